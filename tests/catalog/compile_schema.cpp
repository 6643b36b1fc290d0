// Run-time schemas in the one core: compiled into the nodes typed tools lower into, checked by the
// same decoder, written by the same writer, and refused by keyword and place when outside the subset.
#include <agentrt/catalog/compiled_schema.hpp>

#include <agentrt/catalog/catalog.hpp>
#include <agentrt/catalog/decode.hpp>
#include <agentrt/catalog/schema.hpp>
#include <agentrt/catalog/schema_tool.hpp>

#include "support/test_tools.hpp"

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

using namespace test_tools;
namespace json = boost::json;

namespace {

agentrt::compiled_schema compiled(std::string_view text) {
    auto s = agentrt::compile_schema(json::parse(text));
    REQUIRE_MESSAGE(s, text);
    return *s;
}

agentrt::compiled_schema compiled_from_its_schema(agentrt::type_info const& type) {
    auto s = agentrt::compile_schema(agentrt::schema(type));
    REQUIRE(s);
    return *s;
}

agentrt::tool_result echo(json::value const& a, agentrt::call_context const&) {
    return agentrt::tool_output{a, "ok"};
}

constexpr char const* note_schema = R"({"type":"object","properties":{"text":{"type":"string","maxLength":5}},
                                        "required":["text"],"additionalProperties":false})";

struct shop_then_classes {
    static constexpr std::string_view identity = "shop-then-classes/1";
    agentrt::verdict operator()(lookup_args const&, agentrt::run_view const&) const {
        return agentrt::deny("typed rule");
    }
    agentrt::verdict operator()(agentrt::untyped_request const& r, agentrt::run_view const& v) const {
        return agentrt::class_table{}(r, v);
    }
};

} // namespace

TEST_SUITE("one schema core") {

    TEST_CASE("a typed tool and its schema given at run time report the same violations") {
        struct sample {
            agentrt::type_info const* type;
            char const* document;
        };
        sample const samples[] = {
            {&agentrt::type_info_of<bounded_numbers>(),
             R"({"count":0,"percent":100,"ratio":2.5,"price":0.015,"step":7,"extra":null})"},
            {&agentrt::type_info_of<bounded_numbers>(), R"({"count":"1","percent":1.5,"ratio":-3,"price":1})"},
            {&agentrt::type_info_of<text_rules>(), R"({"code":"","ident":"Nope","phone":"555"})"},
            {&agentrt::type_info_of<text_rules>(), R"({"code":"123456789","ident":7})"},
            {&agentrt::type_info_of<every_scalar>(),
             R"({"flag":1,"i8":128,"u8":-1,"i16":1e10,"u16":1.5,"i32":true,"u32":null,"i64":1,"u64":1,
                 "f32":"x","f64":[],"text":{},"level":"loud"})"},
            {&agentrt::type_info_of<lists>(), R"({"numbers":[],"grid":[["a",1]],"switches":[{"enabled":"no"}]})"},
            {&agentrt::type_info_of<lists>(), R"({"numbers":[1,2,3,4,5],"grid":"x","switches":[{}]})"},
        };
        for (auto const& [type, document] : samples) {
            CAPTURE(std::string(document));
            auto value = json::parse(document);
            auto typed = agentrt::decode_into(*type, value, nullptr);
            CHECK_FALSE(typed.empty());
            CHECK(agentrt::validate(compiled_from_its_schema(*type), value) == typed);
        }
    }

    TEST_CASE("a variant's schema given at run time refuses what the typed decoder refuses") {
        auto const& type = agentrt::type_info_of<send_args>();
        auto dynamic = compiled_from_its_schema(type);
        for (char const* document :
             {R"({"to":{"kind":"fax"},"cc":[],"subject":"s","counters":{}})",
              R"({"to":"a@b.c","cc":[],"subject":"s","counters":{}})",
              R"({"to":{"kind":"email","address":"a@b.c","sms":true},"cc":[],"subject":"s","counters":{}})",
              R"({"to":{"kind":"phone","number":"+123456789"},"cc":["x","x"],"subject":"s","counters":{}})"}) {
            CAPTURE(std::string(document));
            auto value = json::parse(document);
            CHECK_FALSE(agentrt::decode_into(type, value, nullptr).empty());
            CHECK_FALSE(agentrt::validate(dynamic, value).empty());
        }
        auto valid =
            json::parse(R"({"to":{"kind":"phone","number":"+123456789"},"cc":[],"subject":"s","counters":{}})");
        CHECK(agentrt::decode_into(type, valid, nullptr).empty());
        CHECK(agentrt::validate(dynamic, valid).empty());
    }

    TEST_CASE("the writer spells a compiled run-time schema that compiles back to the same verdicts") {
        auto original = compiled(R"({"type":["integer","null"],"minimum":1,"maximum":9})");
        auto written = agentrt::schema(original.root());
        CHECK(written == json::parse(R"({"type":["null","integer"],"minimum":1,"maximum":9})"));
        auto object = compiled(R"({"type":"object","properties":{"a":{"enum":["x",2]},"b":{"const":true}},
                                   "required":["a"],"minProperties":1,"additionalProperties":{"type":"string"}})");
        auto again = agentrt::compile_schema(agentrt::schema(object.root()));
        REQUIRE(again);
        for (char const* document : {R"({"a":"x"})", R"({"a":2,"b":true,"c":"s"})", R"({"b":true})", R"({"a":"y"})",
                                     R"({"a":"x","c":1})", R"({"a":"x","b":false})"}) {
            CAPTURE(std::string(document));
            CHECK(agentrt::validate(*again, json::parse(document)) == agentrt::validate(object, json::parse(document)));
        }
        CHECK_THROWS_AS(
            agentrt::schema(compiled(R"({"$ref":"#/$defs/t","$defs":{"t":{"items":{"$ref":"#/$defs/t"}}}})").root()),
            std::invalid_argument);
    }

    TEST_CASE("a schema outside the subset is refused by keyword and JSON Pointer") {
        struct refusal {
            char const* schema;
            char const* pointer;
            char const* keyword;
        };
        refusal const refusals[] = {
            {R"({"type":"object","properties":{"to":{"type":"string","format":"email"}}})", "/properties/to", "format"},
            {R"({"type":"string","pattern":"^(?=a)b"})", "", "pattern"},
            {R"({"$ref":"https://example.com/s.json"})", "", "$ref"},
            {R"({"$ref":"#/$defs/missing"})", "", "$ref"},
            {R"({"$ref":"#"})", "", "$ref"},
            {R"({"type":"object","anyOf":[{"$ref":"#"}]})", "/anyOf/0", "$ref"},
            {R"({"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"})", "/$defs/a", "$ref"},
            {R"({"$defs":{"a":{"oneOf":[{"$ref":"#/$defs/b"}]},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},
                 "properties":{"x":{"$ref":"#/$defs/a"}}})",
             "/$defs/b/allOf/0", "$ref"},
            {R"({"$schema":"http://json-schema.org/draft-04/schema#"})", "", "$schema"},
            {R"({"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/a","type":"string",
                 "definitions":{"a":{}}})",
             "", "$ref"},
            {R"({"type":"array","items":[{"type":"string"}]})", "", "items"},
            {R"({"type":"object","patternProperties":{"^a":{}}})", "", "patternProperties"},
            {R"({"type":"array","items":{"type":"array","contains":{"type":"integer"}}})", "/items", "contains"},
            {R"({"if":{"type":"string"},"then":{"minLength":1}})", "", "if"},
            {R"({"type":"object","dependentRequired":{"a":["b"]}})", "", "dependentRequired"},
            {R"({"anyOf":[{"type":"string"},{"not":{"type":"integer"}}]})", "/anyOf/1", "not"},
            {R"({"$defs":{"a/b":{"unevaluatedProperties":false}}})", "/$defs/a~1b", "unevaluatedProperties"},
            {R"({"type":"strnig"})", "", "type"},
            {R"({"minimum":"1"})", "", "minimum"},
            {R"({"multipleOf":0})", "", "multipleOf"},
            {R"({"maxLength":-1})", "", "maxLength"},
            {R"({"enum":[]})", "", "enum"},
            {R"({"properties":{"a":false}})", "/properties/a", "false"},
            {R"([])", "", "type"},
        };
        for (auto const& [text, pointer, keyword] : refusals) {
            CAPTURE(std::string(text));
            auto s = agentrt::compile_schema(json::parse(text));
            REQUIRE_FALSE(s);
            CHECK(s.error().code == agentrt::errc::invalid_schema);
            REQUIRE(s.error().violations.size() == 1);
            CHECK(s.error().violations[0].pointer == pointer);
            CHECK(s.error().violations[0].keyword == keyword);
            CHECK(s.error().message.find(keyword) != std::string::npos);
        }
    }

    TEST_CASE("annotations of a run-time schema are read and ignored") {
        auto s = compiled(R"({"$schema":"https://json-schema.org/draft/2020-12/schema","title":"t","description":"d",
                             "$comment":"c","default":1,"examples":[1],"deprecated":false,"readOnly":false,
                             "writeOnly":false,"type":"integer"})");
        CHECK(s.root().description == "d");
        CHECK(agentrt::validate(s, json::value(1)).empty());
        CHECK(agentrt::validate(s, json::value("1")).size() == 1);
    }

    TEST_CASE("a draft-07 schema means what it means in 2020-12 within the subset") {
        // What MCP servers built on zod send: draft-07, with annotations beside a $ref.
        auto s = compiled(R"({"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
                             "properties":{"a":{"$ref":"#/definitions/n","description":"the first"}},
                             "required":["a"],"definitions":{"n":{"type":"number","maximum":10}}})");
        CHECK(agentrt::validate(s, json::parse(R"({"a":3})")).empty());
        auto refused = agentrt::validate(s, json::parse(R"({"a":11})"));
        REQUIRE(refused.size() == 1);
        CHECK(refused[0].keyword == "maximum");
        CHECK(refused[0].pointer == "/a");
    }

    TEST_CASE("an enum outsider is reported as one whatever its JSON type") {
        auto s = compiled(R"({"type":"string","enum":["a","b"]})");
        CHECK(agentrt::validate(s, json::value(3)) ==
              std::vector<agentrt::violation>{{"", "enum", R"(["a","b"], got 3)"}});
        auto e = agentrt::decode<send_args>(R"({"to":{"kind":"phone","number":"+123456789"},"cc":[],"subject":"s",
                                                "counters":{},"urgency":3})");
        REQUIRE_FALSE(e);
        CHECK(e.error().violations ==
              std::vector<agentrt::violation>{{"/urgency", "enum", R"(["low","normal","urgent"], got 3)"}});
    }

    TEST_CASE("a run-time tool sits in a catalogue's table and is decided by the same evaluator") {
        using shop = agentrt::catalog<lookup_order, send_message, wipe_account>;
        shop catalogue;
        auto note = agentrt::schema_tool("save_note", "Save a note.", json::parse(note_schema).as_object(),
                                         agentrt::side_effect::local_mutation, std::chrono::milliseconds(100), echo);
        auto publish =
            agentrt::schema_tool("publish", "Publish a note.", json::parse(note_schema).as_object(),
                                 agentrt::side_effect::remote_mutation, std::chrono::milliseconds(100), echo);
        REQUIRE(note);
        REQUIRE(publish);
        agentrt::tool_table table = catalogue.table().with({*note, *publish});
        REQUIRE(table.size() == 5);
        CHECK(table.at(3).argument_type == nullptr);
        CHECK(table.at(3).input_schema == json::parse(note_schema));
        CHECK(&table.at(0).argument_schema.root() == &agentrt::lowered(agentrt::type_info_of<lookup_args>()).root());

        auto refused = table.accept("save_note", R"({"text":"too long","more":1})");
        REQUIRE_FALSE(refused);
        CHECK(refused.error().violations ==
              std::vector<agentrt::violation>{{"/text", "maxLength", "5, got 8"},
                                              {"/more", "additionalProperties", "unknown member, got 1"}});

        auto policy = agentrt::lower_policy(shop_then_classes{}, catalogue);
        auto decide = [&](std::string_view tool, std::string_view args) {
            auto accepted = table.accept(tool, args);
            REQUIRE_MESSAGE(accepted, args);
            return policy(table.at(accepted->index), accepted->args, {});
        };
        CHECK(decide("lookup_order", R"({"order_id":"ord-1"})").reason == "typed rule");
        CHECK(decide("save_note", R"({"text":"hi"})").outcome == agentrt::outcome::allow);
        auto remote = decide("publish", R"({"text":"hi"})");
        CHECK(remote.outcome == agentrt::outcome::require_approval);
        CHECK(remote.capability.at("tool") == "publish");
        CHECK(decide("wipe_account", R"({"account":"a","confirm":true})").outcome == agentrt::outcome::deny);

        auto accepted = table.accept("save_note", R"({"text":"hi"})");
        REQUIRE(accepted);
        auto result = table.at(accepted->index).call(accepted->args, {});
        REQUIRE(result);
        CHECK(result->content == json::parse(R"({"text":"hi"})"));
        CHECK_THROWS_AS((void)table.with({*note}), std::invalid_argument); // the name is taken
    }

    TEST_CASE("unique items compare by value and find a repeat among many") {
        auto shape = compiled(R"({"type": "array", "uniqueItems": true})");
        auto repeats = [&](json::value const& v) {
            auto found = agentrt::validate(shape, v);
            REQUIRE(found.size() <= 1);
            return found.empty() ? std::string() : found[0].to_string();
        };
        // Numbers are equal by mathematical value; objects regardless of member order.
        CHECK(repeats(json::parse("[1, 1.0]")) == "(root): uniqueItems item 1 repeats an earlier item, got 1");
        CHECK(repeats(json::array{json::value(std::int64_t(-3)), json::value(-3.0)}) ==
              "(root): uniqueItems item 1 repeats an earlier item, got -3");
        CHECK(repeats(json::parse(R"([{"a": 1, "b": [2, "x"]}, {"b": [2.0, "x"], "a": 1e0}])")) ==
              R"((root): uniqueItems item 1 repeats an earlier item, got {"a":1,"b":[2,"x"]})");
        CHECK(repeats(json::parse(R"([0, -0.0, 1])")) == "(root): uniqueItems item 1 repeats an earlier item, got 0");
        CHECK(repeats(json::parse(R"([1, "1", [1], {"1": 1}, true, null, 0.5, [[1]], {"1": "1"}, "true"])")).empty());
        CHECK(repeats(json::parse(R"([[1, 2], [2, 1], {"a": "b"}, {"b": "a"}, "a\"b", "a", "\"b"])")).empty());

        // A short array of strings is checked pair by pair, a long one through a set: the same answer.
        for (std::size_t size : {5u, 16u, 17u, 40u}) {
            json::array strings;
            for (std::size_t i = 0; i < size; ++i)
                strings.emplace_back("s" + std::to_string(i));
            CHECK(repeats(strings).empty());
            strings[size - 2] = "s1";
            CHECK(repeats(strings) ==
                  "(root): uniqueItems item " + std::to_string(size - 2) + R"( repeats an earlier item, got "s1")");
        }

        json::array many;
        for (int i = 0; i < 50'000; ++i)
            many.push_back(json::value(i % 2 ? json::value(double(i) + 0.5) : json::value(std::int64_t(i))));
        CHECK(repeats(many).empty());
        many.push_back(json::value(49'998.0));
        CHECK(repeats(many) == "(root): uniqueItems item 50000 repeats an earlier item, got 49998");
    }

    TEST_CASE("a run-time oneOf counts every alternative that matches, tags or not") {
        auto verdict = [](agentrt::compiled_schema const& shape, std::string_view text) {
            auto found = agentrt::validate(shape, json::parse(text));
            std::string out;
            for (auto const& v : found)
                out += (out.empty() ? "" : "; ") + v.to_string();
            return out;
        };
        auto untagged = compiled(R"({"oneOf": [{"type": "integer"}, {"minimum": 0}]})");
        CHECK(verdict(untagged, "-1").empty());
        CHECK(verdict(untagged, "1.5").empty());
        CHECK(verdict(untagged, "1") == "(root): oneOf 2 alternatives match, got 1");
        CHECK(verdict(untagged, "-1.5") == "(root): oneOf no alternative matches, got -1.5");

        // A tag that is not required leaves its branch open to an object without it.
        auto tagged = compiled(R"({"oneOf": [
            {"properties": {"kind": {"const": "a"}, "n": {"type": "integer"}}},
            {"properties": {"kind": {"const": "b"}, "n": {"maximum": 3}}, "required": ["kind"]}]})");
        CHECK(verdict(tagged, R"({"kind": "a", "n": 7})").empty());
        CHECK(verdict(tagged, R"({"kind": "b", "n": 2.5})").empty());
        CHECK(verdict(tagged, R"({"n": 9})").empty());
        CHECK(verdict(tagged, R"({"kind": "c"})") == R"((root): oneOf no alternative matches, got {"kind":"c"})");
        // The one branch whose tags the object has explains why it fails.
        CHECK(verdict(tagged, R"({"kind": "b", "n": 4})") == "/n: maximum 3, got 4");
        CHECK(verdict(tagged, R"({"kind": "a", "n": "x"})") == R"(/n: type integer, got string "x")");
    }
}
