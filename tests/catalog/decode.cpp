// Decoding is validation: every violation, with its JSON Pointer, keyword and the value found.
#include <agentrt/catalog/decode.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/schema.hpp>

#include "support/nested_vectors.hpp"
#include "support/test_tools.hpp"

#include <doctest/doctest.h>

#include <boost/json/value_from.hpp>
#include <boost/json/value_to.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

using namespace test_tools;
using agentrt::violation;

namespace {

template <class T>
std::vector<violation> violations_of(std::string_view text) {
    auto r = agentrt::decode<T>(text);
    REQUIRE_MESSAGE(!r, "accepted: " << text);
    return r.error().violations;
}

template <class T>
bool refuses_with(std::string_view text, std::string_view pointer, std::string_view keyword) {
    auto found = violations_of<T>(text);
    return std::any_of(found.begin(), found.end(),
                       [&](violation const& v) { return v.pointer == pointer && v.keyword == keyword; });
}

struct switches {
    BOOST_HANA_DEFINE_STRUCT(switches, (std::vector<bool>, flags),
                             (agentrt::field<std::vector<bool>, agentrt::max_items<2>>, pair));
};

// One struct and 19 vectors: exactly agentrt::max_type_depth levels.
struct deepest_allowed {
    BOOST_HANA_DEFINE_STRUCT(deepest_allowed, (nested<int, agentrt::max_type_depth - 1>::type, v));
};

constexpr std::string_view valid_send =
    R"({"to":{"kind":"email","address":"a@b.c"},"cc":[],"subject":"hi","counters":{}})";

} // namespace

TEST_SUITE("decode") {

    TEST_CASE("fields read as plain values: comparisons, string operations, streams and Boost.JSON") {
        struct plain {
            BOOST_HANA_DEFINE_STRUCT(plain, (agentrt::field<int, agentrt::minimum<1>>, count),
                                     (agentrt::field<bool>, urgent),
                                     (agentrt::field<std::string, agentrt::max_length<20>>, to));
        };
        auto d = agentrt::decode<plain>(R"({"count":3,"urgent":true,"to":"ana@example.com"})");
        REQUIRE(d);
        CHECK(d->count == 3);
        CHECK(d->count < 4);
        CHECK(d->urgent);
        CHECK(d->to == "ana@example.com");
        CHECK(d->to.ends_with("@example.com"));
        CHECK("to " + d->to == "to ana@example.com");
        std::ostringstream out;
        out << d->to << " " << d->count;
        CHECK(out.str() == "ana@example.com 3");
        CHECK(boost::json::value_from(d->count) == 3);
        CHECK(boost::json::value_from(d->urgent) == true);
        CHECK(boost::json::value_from(d->to) == "ana@example.com");
        CHECK(boost::json::value_to<decltype(d->count)>(boost::json::value(7)) == 7);
        CHECK(boost::json::value_to<decltype(d->urgent)>(boost::json::value(false)) == false);
    }

    TEST_CASE("std::vector<bool> decodes, encodes and is checked like any vector") {
        auto d = agentrt::decode<switches>(R"({"flags":[true,false,true],"pair":[false]})");
        REQUIRE(d);
        CHECK(d->flags == std::vector<bool>{true, false, true});
        CHECK(d->pair.get() == std::vector<bool>{false});
        CHECK(agentrt::canonical_json(agentrt::to_json(*d)) == R"({"flags":[true,false,true],"pair":[false]})");
        CHECK(refuses_with<switches>(R"({"flags":[true,1],"pair":[]})", "/flags/1", "type"));
        CHECK(refuses_with<switches>(R"({"flags":[],"pair":[true,true,true]})", "/pair", "maxItems"));
        CHECK(agentrt::canonical_json(agentrt::schema_of<switches>().at("properties").at("flags")) ==
              R"({"items":{"type":"boolean"},"type":"array"})");
    }

    TEST_CASE("an argument type nests at most max_type_depth levels: structs, vectors and maps count") {
        CHECK(agentrt::type_info_of<int>().depth == 0);
        CHECK(agentrt::type_info_of<switches>().depth == 2);
        CHECK(agentrt::type_info_of<std::map<std::string, std::vector<int>>>().depth == 2);
        CHECK(agentrt::type_info_of<std::optional<std::vector<int>>>().depth == 1);
        CHECK(agentrt::type_info_of<agentrt::field<std::vector<int>, agentrt::max_items<3>>>().depth == 1);
        CHECK(agentrt::type_info_of<send_args>().depth == 2);
        static_assert(agentrt::type_info_of<deepest_allowed>().depth == agentrt::max_type_depth);

        std::string document = R"({"v":)" + std::string(19, '[') + "7" + std::string(19, ']') + "}";
        auto d = agentrt::decode<deepest_allowed>(document);
        REQUIRE(d);
        CHECK(d->v[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0] == 7);
        CHECK(agentrt::canonical_json(agentrt::to_json(*d)) == document);
        std::string too_deep = R"({"v":)" + std::string(20, '[') + "7" + std::string(20, ']') + "}";
        CHECK(refuses_with<deepest_allowed>(too_deep, "/v/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0", "type"));
    }

    TEST_CASE("a valid document decodes into the struct, members read as plain values") {
        auto r = agentrt::decode<send_args>(
            R"({"to":{"kind":"phone","number":"+3312345678","sms":true},"cc":["x@y.z"],"subject":"hi",)"
            R"("urgency":"urgent","counters":{"a":1,"b":2},"options":{"enabled":false}})");
        REQUIRE(r);
        auto const& phone = std::get<phone_recipient>(r->to);
        CHECK(phone.number.get() == "+3312345678");
        CHECK(phone.sms == true);
        CHECK(r->cc.size() == 1);
        CHECK(r->cc[0].get() == "x@y.z");
        std::string const& subject = r->subject;
        CHECK(subject == "hi");
        CHECK(r->urgency == priority::urgent);
        CHECK(r->counters.at("b") == 2);
        REQUIRE(r->options);
        CHECK(r->options->enabled == false);
    }

    TEST_CASE("absent optional members decode as empty") {
        auto r = agentrt::decode<send_args>(valid_send);
        REQUIRE(r);
        CHECK(!r->urgency);
        CHECK(!r->options);
    }

    TEST_CASE("every violation is reported, each with its pointer, keyword and what was found") {
        auto found =
            violations_of<send_args>(R"({"to":{"kind":"fax","address":"a@b.c"},"cc":["a","a","b","c"],"subject":"",)"
                                     R"("counters":{"x":-1},"extra":1})");
        std::vector<std::string> lines;
        for (auto const& v : found)
            lines.push_back(v.to_string());
        CHECK(
            lines ==
            std::vector<std::string>{
                R"(/to: oneOf no alternative has the tags of this object, expected {"kind":"email"} or {"kind":"phone"})",
                "/cc: maxItems 3, got 4",
                R"(/cc: uniqueItems item 1 repeats an earlier item, got "a")",
                "/subject: minLength 1, got 0",
                "/counters/x: minimum 0, got -1",
                "/extra: additionalProperties unknown member, got 1",
            });
    }

    TEST_CASE("the error of decode names the number of rules broken") {
        auto r = agentrt::decode<send_args>(R"({"to":{"kind":"phone","number":"123"},"cc":[1],"subject":"x"})");
        REQUIRE(!r);
        CHECK(r.error().code == agentrt::errc::invalid_arguments);
        CHECK(r.error().message == "the arguments break 3 rules of the schema");
        CHECK(r.error().to_string().find("/counters: required member is missing") != std::string::npos);
    }

    TEST_CASE("required: a missing member is reported at its own pointer") {
        CHECK(refuses_with<send_args>(R"({"to":{"kind":"email","address":"a@b.c"},"cc":[],"subject":"x"})", "/counters",
                                      "required"));
        CHECK(refuses_with<lists>(R"({"numbers":[1],"grid":[],"switches":[{}]})", "/switches/0/enabled", "required"));
    }

    TEST_CASE("additionalProperties: unknown members are refused at every depth") {
        CHECK(refuses_with<send_args>(
            R"({"to":{"kind":"email","address":"a@b.c","cc":1},"cc":[],"subject":"x","counters":{}})", "/to/cc",
            "additionalProperties"));
        CHECK(refuses_with<lists>(R"({"numbers":[1],"grid":[],"switches":[{"enabled":true,"x":0}]})", "/switches/0/x",
                                  "additionalProperties"));
    }

    TEST_CASE("type: booleans are not numbers, numbers are not strings, null is nothing") {
        CHECK(refuses_with<flags>(R"({"enabled":1})", "/enabled", "type"));
        CHECK(refuses_with<bounded_numbers>(R"({"count":1,"percent":"1","ratio":0,"price":0,"step":0})", "/percent",
                                            "type"));
        CHECK(refuses_with<text_rules>(R"({"code":"a","ident":"a","phone":null})", "/phone", "type"));
        CHECK(refuses_with<lists>("[1]", "", "type"));
    }

    TEST_CASE("integers: a zero fraction is an integer, any other fraction is not") {
        CHECK(agentrt::decode<bounded_numbers>(R"({"count":1.0,"percent":1e1,"ratio":-2.5,"price":0.07,"step":1000})"));
        CHECK(refuses_with<bounded_numbers>(R"({"count":1.5,"percent":1,"ratio":0,"price":0,"step":0})", "/count",
                                            "type"));
    }

    TEST_CASE("a number literal that is not mathematically an integer is refused for an integer member") {
        auto with = [](std::string_view member, std::string_view literal) {
            std::string doc = R"({"flag":true,"i8":0,"u8":0,"i16":0,"u16":0,"i32":0,"u32":0,"i64":0,"u64":0,)"
                              R"("f32":0,"f64":0,"text":"","level":"low"})";
            std::string key = "\"" + std::string(member) + "\":0";
            doc.replace(doc.find(key), key.size(), "\"" + std::string(member) + "\":" + std::string(literal));
            return doc;
        };
        // Each literal has a fraction that the nearest double loses.
        CHECK(refuses_with<every_scalar>(with("i32", "0.99999999999999999999"), "/i32", "numberPrecision"));
        CHECK(refuses_with<every_scalar>(with("i32", "2.0000000000000001"), "/i32", "numberPrecision"));
        CHECK(refuses_with<every_scalar>(with("i8", "-2.0000000000000001"), "/i8", "numberPrecision"));
        CHECK(refuses_with<every_scalar>(with("i64", "9007199254740993.5"), "/i64", "numberPrecision"));
        CHECK(refuses_with<every_scalar>(with("u64", "18446744073709551614.5"), "/u64", "numberPrecision"));

        // Mathematically integers, however written.
        auto r = agentrt::decode<every_scalar>(with("i32", "1.0"));
        REQUIRE(r);
        CHECK(r->i32 == 1);
        r = agentrt::decode<every_scalar>(with("i32", "1e2"));
        REQUIRE(r);
        CHECK(r->i32 == 100);
        r = agentrt::decode<every_scalar>(with("i32", "1.5e1"));
        REQUIRE(r);
        CHECK(r->i32 == 15);
        r = agentrt::decode<every_scalar>(with("i64", "9007199254740993.0"));
        REQUIRE(r);
        CHECK(r->i64 == 9007199254740993);
    }

    TEST_CASE("integer widths: the C++ range is the schema range, refused on either side") {
        auto found = violations_of<every_scalar>(
            R"({"flag":true,"i8":128,"u8":-1,"i16":-32769,"u16":65536,"i32":2147483648,"u32":-1,)"
            R"("i64":-9223372036854775809,"u64":18446744073709551616,"f32":1e39,"f64":1,"text":"","level":"low"})");
        std::vector<std::string> pointers;
        for (auto const& v : found)
            pointers.push_back(v.pointer);
        CHECK(pointers ==
              std::vector<std::string>{"/i8", "/u8", "/i16", "/u16", "/i32", "/u32", "/i64", "/u64", "/f32"});

        auto extremes = agentrt::decode<every_scalar>(
            R"({"flag":false,"i8":-128,"u8":255,"i16":-32768,"u16":65535,"i32":-2147483648,"u32":4294967295,)"
            R"("i64":-9223372036854775808,"u64":18446744073709551615,"f32":-1.5,"f64":1e300,"text":"","level":"low"})");
        REQUIRE(extremes);
        CHECK(extremes->i64 == INT64_MIN);
        CHECK(extremes->u64 == UINT64_MAX);
        CHECK(extremes->f32 == -1.5f);
    }

    TEST_CASE("an integral double is an integer when it fits 64 bits, and breaks the type's bounds when not") {
        auto doc = boost::json::value{{"flag", true}, {"i8", 3.0},  {"u8", 0},       {"i16", 0},    {"u16", 0},
                                      {"i32", 0},     {"u32", 0},   {"i64", -4.0},   {"u64", 1e19}, {"f32", 0},
                                      {"f64", 0},     {"text", ""}, {"level", "low"}};
        auto r = agentrt::decode<every_scalar>(doc);
        REQUIRE(r);
        CHECK(r->i8 == 3);
        CHECK(r->i64 == -4);
        CHECK(r->u64 == 10'000'000'000'000'000'000ull);
        doc.as_object()["u64"] = 18446744073709551616.0;
        doc.as_object()["i64"] = -1e19;
        auto beyond = agentrt::decode<every_scalar>(doc);
        REQUIRE(!beyond);
        CHECK(beyond.error().violations ==
              std::vector<violation>{{"/i64", "minimum", "-9223372036854775808, got -1e+19"},
                                     {"/u64", "maximum", "18446744073709551615, got 18446744073709551616"}});
    }

    TEST_CASE("bounds: inclusive and exclusive, each refused exactly at its limit") {
        auto found = violations_of<bounded_numbers>(R"({"count":0,"percent":100,"ratio":2.5,"price":0.015,"step":7})");
        std::vector<std::string> lines;
        for (auto const& v : found)
            lines.push_back(v.to_string());
        CHECK(lines == std::vector<std::string>{"/count: minimum 1, got 0", "/percent: exclusiveMaximum 100, got 100",
                                                "/ratio: exclusiveMaximum 2.5, got 2.5",
                                                "/price: multipleOf 0.01, got 0.015", "/step: multipleOf 5, got 7"});
        CHECK(refuses_with<bounded_numbers>(R"({"count":11,"percent":0,"ratio":-2.6,"price":0,"step":0})", "/count",
                                            "maximum"));
        CHECK(refuses_with<bounded_numbers>(R"({"count":1,"percent":0,"ratio":0,"price":0,"step":0})", "/percent",
                                            "exclusiveMinimum"));
        CHECK(refuses_with<bounded_numbers>(R"({"count":1,"percent":1,"ratio":-2.6,"price":0,"step":0})", "/ratio",
                                            "minimum"));
    }

    TEST_CASE("multipleOf is exact decimal arithmetic, not floating point") {
        // 0.07 / 0.01 is 7.000000000000001 in doubles; exactly 7 in decimals.
        CHECK(agentrt::decode<bounded_numbers>(R"({"count":1,"percent":1,"ratio":0,"price":0.07,"step":0})"));
        CHECK(agentrt::decode<bounded_numbers>(R"({"count":1,"percent":1,"ratio":0,"price":1.1,"step":0})"));
        CHECK(agentrt::decode<bounded_numbers>(R"({"count":1,"percent":1,"ratio":0,"price":-123.45,"step":0})"));
        CHECK(refuses_with<bounded_numbers>(R"({"count":1,"percent":1,"ratio":0,"price":0.001,"step":0})", "/price",
                                            "multipleOf"));
    }

    TEST_CASE("string lengths count Unicode code points, not bytes") {
        CHECK(agentrt::decode<text_rules>(R"({"code":"éééééééé","ident":"a9"})")); // 8 code points, 16 bytes
        CHECK(refuses_with<text_rules>(R"({"code":"ééééééééé","ident":"a9"})", "/code", "maxLength"));
        CHECK(agentrt::decode<text_rules>(R"({"code":"😀","ident":"a"})")); // one code point, 4 bytes
        CHECK(refuses_with<text_rules>(R"({"code":"","ident":"a"})", "/code", "minLength"));
    }

    TEST_CASE("pattern: an ECMA-262 subset, unanchored unless anchored, \\d is ASCII") {
        CHECK(agentrt::decode<text_rules>(R"({"code":"a","ident":"a","phone":"123-4567"})"));
        CHECK(refuses_with<text_rules>(R"({"code":"a","ident":"9a"})", "/ident", "pattern"));
        CHECK(refuses_with<text_rules>(R"({"code":"a","ident":"a","phone":"12-3456"})", "/phone", "pattern"));
        CHECK(refuses_with<text_rules>(R"({"code":"a","ident":"a","phone":"١٢٣-٤٥٦٧"})", "/phone", "pattern"));
        // ECMA-262's $ is the end of the string (Python's re also matches before a final newline).
        CHECK(refuses_with<text_rules>(R"({"code":"a","ident":"a\n"})", "/ident", "pattern"));
    }

    TEST_CASE("pattern matching stays linear on hostile input") {
        std::string hostile(100'000, 'a');
        std::string text = R"({"code":"a","ident":")" + hostile + R"(!"})";
        CHECK(refuses_with<text_rules>(text, "/ident", "pattern"));
    }

    TEST_CASE("enum: only the names Describe gives") {
        CHECK(refuses_with<send_args>(R"({"to":{"kind":"email","address":"a@b.c"},"cc":[],"subject":"x",)"
                                      R"("counters":{},"urgency":"high"})",
                                      "/urgency", "enum"));
        CHECK(refuses_with<send_args>(R"({"to":{"kind":"email","address":"a@b.c"},"cc":[],"subject":"x",)"
                                      R"("counters":{},"urgency":1})",
                                      "/urgency", "enum"));
    }

    TEST_CASE("items: counts and uniqueness, uniqueness by JSON value") {
        CHECK(refuses_with<lists>(R"({"numbers":[],"grid":[],"switches":[]})", "/numbers", "minItems"));
        CHECK(refuses_with<lists>(R"({"numbers":[1,2,3,4,5],"grid":[],"switches":[]})", "/numbers", "maxItems"));
        CHECK(refuses_with<send_args>(R"({"to":{"kind":"email","address":"a@b.c"},"cc":["a","b","a"],)"
                                      R"("subject":"x","counters":{}})",
                                      "/cc", "uniqueItems"));
        CHECK(refuses_with<lists>(R"({"numbers":[1],"grid":[["a"],[1]],"switches":[]})", "/grid/1/0", "type"));
    }

    TEST_CASE("variant: the tag chooses the alternative, whose own rules then apply") {
        CHECK(refuses_with<send_args>(R"({"to":{"kind":"phone","number":"123"},"cc":[],"subject":"x","counters":{}})",
                                      "/to/number", "pattern"));
        CHECK(refuses_with<send_args>(R"({"to":{"address":"a@b.c"},"cc":[],"subject":"x","counters":{}})", "/to",
                                      "oneOf"));
        CHECK(refuses_with<send_args>(R"({"to":"a@b.c","cc":[],"subject":"x","counters":{}})", "/to", "type"));
    }

    TEST_CASE("map: every value is checked at a pointer that escapes its key") {
        CHECK(refuses_with<send_args>(R"({"to":{"kind":"email","address":"a@b.c"},"cc":[],"subject":"x",)"
                                      R"("counters":{"a/b~c":-1}})",
                                      "/counters/a~1b~0c", "minimum"));
    }

    TEST_CASE("the strict boundary runs first: its refusal is an invalid_json error") {
        auto r = agentrt::decode<flags>(R"({"enabled":true,"enabled":false})");
        REQUIRE(!r);
        CHECK(r.error().code == agentrt::errc::invalid_json);
        REQUIRE(r.error().violations.size() == 1);
        CHECK(r.error().violations[0].keyword == "duplicateKey");
    }

    TEST_CASE("decoding from a value already read gives the same answer as from text") {
        auto doc = agentrt::read_json(valid_send);
        REQUIRE(doc);
        auto r = agentrt::decode<send_args>(doc.value());
        REQUIRE(r);
        CHECK(r->subject.get() == "hi");
    }

    TEST_CASE("to_json writes the members back in declaration order, absent optionals left out") {
        auto r = agentrt::decode<send_args>(
            R"({"subject":"hi","cc":[],"counters":{"n":3},"to":{"number":"+123456789","kind":"phone"}})");
        REQUIRE(r);
        CHECK(agentrt::ordered_json(agentrt::to_json(*r)) ==
              R"({"to":{"kind":"phone","number":"+123456789"},"cc":[],"subject":"hi","counters":{"n":3}})");
    }

    TEST_CASE("a decoded value encodes to a document that decodes to the same encoding") {
        auto first = agentrt::decode<every_scalar>(
            R"({"flag":true,"i8":-1,"u8":2,"i16":3,"u16":4,"i32":5,"u32":6,"i64":7,"u64":8,"f32":0.5,"f64":0.1,)"
            R"("text":"\"q\"\\\n","level":"normal"})");
        REQUIRE(first);
        auto again = agentrt::decode<every_scalar>(agentrt::to_json(*first));
        REQUIRE(again);
        CHECK(agentrt::canonical_json(agentrt::to_json(*again)) == agentrt::canonical_json(agentrt::to_json(*first)));
    }
}
