// The schema a model is shown: pinned byte for byte, for a representative set of types.
#include <agentrt/catalog/schema.hpp>

#include "support/test_tools.hpp"

#include <doctest/doctest.h>

using namespace test_tools;

TEST_SUITE("schema") {

    TEST_CASE("a struct lists its properties and required members in declaration order") {
        CHECK(agentrt::schema_text<flags>() ==
              R"({"type":"object","properties":{"enabled":{"type":"boolean"}},"required":["enabled"],)"
              R"("additionalProperties":false})");
    }

    TEST_CASE("every scalar: integer widths carry the bounds of their C++ type") {
        CHECK(agentrt::schema_text<every_scalar>() ==
              R"({"type":"object","properties":{"flag":{"type":"boolean"},)"
              R"("i8":{"type":"integer","minimum":-128,"maximum":127},)"
              R"("u8":{"type":"integer","minimum":0,"maximum":255},)"
              R"("i16":{"type":"integer","minimum":-32768,"maximum":32767},)"
              R"("u16":{"type":"integer","minimum":0,"maximum":65535},)"
              R"("i32":{"type":"integer","minimum":-2147483648,"maximum":2147483647},)"
              R"("u32":{"type":"integer","minimum":0,"maximum":4294967295},)"
              R"("i64":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},)"
              R"("u64":{"type":"integer","minimum":0,"maximum":18446744073709551615},)"
              R"("f32":{"type":"number","minimum":-3.4028234663852886e+38,"maximum":3.4028234663852886e+38},)"
              R"("f64":{"type":"number"},"text":{"type":"string"},)"
              R"("level":{"type":"string","enum":["low","normal","urgent"]}},)"
              R"("required":["flag","i8","u8","i16","u16","i32","u32","i64","u64","f32","f64","text","level"],)"
              R"("additionalProperties":false})");
    }

    TEST_CASE("numeric keywords narrow the type's bounds, decimals are written as numbers") {
        CHECK(agentrt::schema_text<bounded_numbers>() ==
              R"({"type":"object","properties":{)"
              R"("count":{"type":"integer","minimum":1,"maximum":10},)"
              R"("percent":{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":100},)"
              R"("ratio":{"type":"number","minimum":-2.5,"exclusiveMaximum":2.5},)"
              R"("price":{"type":"number","multipleOf":0.01},)"
              R"("step":{"type":"integer","minimum":0,"maximum":1000,"multipleOf":5}},)"
              R"("required":["count","percent","ratio","price","step"],"additionalProperties":false})");
    }

    TEST_CASE("string keywords, descriptions, and optional members left out of required") {
        CHECK(agentrt::schema_text<text_rules>() ==
              R"({"type":"object","properties":{)"
              R"("code":{"type":"string","minLength":1,"maxLength":8},)"
              R"("ident":{"type":"string","pattern":"^[a-z][a-z0-9_]*$","description":"A lower-case identifier"},)"
              R"("phone":{"type":"string","pattern":"^\\d{3}-\\d{4}$"}},)"
              R"("required":["code","ident"],"additionalProperties":false})");
    }

    TEST_CASE("a variant is a oneOf of tagged structs, a map types its additionalProperties") {
        CHECK(
            agentrt::schema_text<send_args>() ==
            R"({"type":"object","properties":{"to":{"oneOf":[)"
            R"({"type":"object","properties":{"kind":{"const":"email"},)"
            R"("address":{"type":"string","maxLength":64,"pattern":"^[^@ ]+@[^@ ]+$"}},)"
            R"("required":["kind","address"],"additionalProperties":false},)"
            R"({"type":"object","properties":{"kind":{"const":"phone"},)"
            R"("number":{"type":"string","pattern":"^\\+[0-9]{6,15}$"},"sms":{"type":"boolean"}},)"
            R"("required":["kind","number"],"additionalProperties":false}]},)"
            R"("cc":{"type":"array","items":{"type":"string","maxLength":64},"maxItems":3,"uniqueItems":true},)"
            R"("subject":{"type":"string","minLength":1,"maxLength":200,"description":"Subject line"},)"
            R"("urgency":{"type":"string","enum":["low","normal","urgent"]},)"
            R"("counters":{"type":"object","additionalProperties":{"type":"integer","minimum":0,"maximum":2147483647}},)"
            R"("options":{"type":"object","properties":{"enabled":{"type":"boolean"}},"required":["enabled"],)"
            R"("additionalProperties":false}},)"
            R"("required":["to","cc","subject","counters"],"additionalProperties":false})");
    }

    TEST_CASE("arrays of scalars, of arrays and of structs") {
        CHECK(agentrt::schema_text<lists>() ==
              R"({"type":"object","properties":{)"
              R"("numbers":{"type":"array","items":{"type":"integer","minimum":-2147483648,"maximum":2147483647},)"
              R"("minItems":1,"maxItems":4},)"
              R"("grid":{"type":"array","items":{"type":"array","items":{"type":"string"}}},)"
              R"("switches":{"type":"array","items":{"type":"object","properties":{"enabled":{"type":"boolean"}},)"
              R"("required":["enabled"],"additionalProperties":false}}},)"
              R"("required":["numbers","grid","switches"],"additionalProperties":false})");
    }

    TEST_CASE("a struct adapted from outside reflects like a defined one") {
        CHECK(agentrt::schema_text<adapted_point>() ==
              R"({"type":"object","properties":{)"
              R"("x":{"type":"integer","minimum":-2147483648,"maximum":2147483647},)"
              R"("y":{"type":"integer","minimum":-2147483648,"maximum":2147483647}},)"
              R"("required":["x","y"],"additionalProperties":false})");
    }

    TEST_CASE("counts in the schema are signed integers, as every JSON library reads them") {
        auto schema = agentrt::schema_of<text_rules>();
        CHECK(schema.at("properties").at("code").at("maxLength").is_int64());
        CHECK(agentrt::schema_of<lists>().at("properties").at("numbers").at("minItems").is_int64());
    }

    TEST_CASE("the schema is a function of the type: the same text every time") {
        CHECK(agentrt::schema_text<send_args>() == agentrt::schema_text<send_args>());
        CHECK(&agentrt::type_info_of<send_args>() == &agentrt::type_info_of<send_args>());
    }

    TEST_CASE("to_json(decimal) writes integers as integers and fractions as the nearest double") {
        CHECK(agentrt::to_json(agentrt::decimal(42)).is_int64());
        CHECK(agentrt::to_json(agentrt::decimal("1.0")).is_int64());
        CHECK(agentrt::to_json(agentrt::decimal("1e2")).as_int64() == 100);
        CHECK(agentrt::to_json(agentrt::decimal("0.25")).as_double() == 0.25);
    }
}
