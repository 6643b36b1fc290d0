#include <agentrt/catalog/schema_tool.hpp>

#include <agentrt/catalog/decode.hpp>
#include <agentrt/catalog/schema.hpp>
#include <agentrt/fuzz/check.hpp>
#include <agentrt/fuzz/doctest.hpp>
#include <agentrt/fuzz/generate.hpp>
#include <agentrt/fuzz/near_miss.hpp>

#include "support/run_time_schemas.hpp"
#include "support/test_tools.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <set>

namespace {

using namespace test_tools;
namespace json = boost::json;
namespace fuzz = agentrt::fuzz;

agentrt::compiled_schema compiled(char const* text) {
    auto s = agentrt::compile_schema(json::parse(text));
    REQUIRE(s);
    return *s;
}

template <class T>
void derived_schema_agrees_with_the_decoder(char const* name) {
    auto s = agentrt::compile_schema(agentrt::schema_of<T>());
    REQUIRE(s);
    auto shape = *s;
    AGENTRT_CHECK_PROPERTY(
        name,
        [shape] {
            // From the schema, accepted by the typed decoder...
            auto document = *fuzz::valid_json(shape);
            auto text = json::serialize(document);
            auto decoded = agentrt::decode<T>(std::string_view(text));
            if (!decoded)
                RC_FAIL(text + "\n" + decoded.error().to_string());
            // ...and from the type, accepted by the schema validator.
            auto typed = *fuzz::valid_json(agentrt::type_info_of<T>());
            auto found = agentrt::validate(shape, typed);
            if (!found.empty())
                RC_FAIL(json::serialize(typed) + "\n" + found.front().to_string());
        },
        fuzz::property_settings{.seed = 8, .cases = 300});
}

} // namespace

TEST_CASE("values_generated_from_a_run_time_schema_satisfy_its_validator") {
    auto shape = compiled(run_time_schemas::everything);
    AGENTRT_CHECK_PROPERTY(
        "everything",
        [shape] {
            auto document = *fuzz::valid_json(shape);
            auto found = agentrt::validate(shape, document);
            if (!found.empty())
                RC_FAIL(json::serialize(document) + "\n" + found.front().to_string());
        },
        fuzz::property_settings{.seed = 9, .cases = 1000});
}

TEST_CASE("run_time_near_misses_are_refused_by_the_validator_for_their_rule") {
    auto shape = compiled(run_time_schemas::everything);
    std::set<std::string> rules;
    for (auto const& valid : fuzz::sample(fuzz::valid_json(shape), 150, 4))
        for (auto const& m : fuzz::near_misses(shape, valid, fuzz::judge_of(shape))) {
            rules.insert(m.rule);
            auto found = agentrt::validate(shape, json::parse(m.text));
            CHECK_FALSE(found.empty());
        }
    for (char const* rule :
         {"required", "additionalProperties", "type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
          "multipleOf", "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "enum", "const"}) {
        CAPTURE(rule);
        CHECK(rules.count(rule) == 1);
    }
}

TEST_CASE("the_derived_schemas_of_the_test_catalogue_compile_and_agree_with_the_decoder") {
    derived_schema_agrees_with_the_decoder<every_scalar>("every_scalar");
    derived_schema_agrees_with_the_decoder<bounded_numbers>("bounded_numbers");
    derived_schema_agrees_with_the_decoder<text_rules>("text_rules");
    derived_schema_agrees_with_the_decoder<send_args>("send_args");
    derived_schema_agrees_with_the_decoder<lists>("lists");
}

TEST_CASE("a_schema_tool_enters_the_table_and_validates_with_the_typed_error_format") {
    auto tool =
        agentrt::schema_tool("lookup", "Look something up.", json::parse(run_time_schemas::everything).as_object(),
                             agentrt::side_effect::read_only, std::chrono::milliseconds(500),
                             [](json::value const& a, agentrt::call_context const&) -> agentrt::tool_result {
                                 return agentrt::tool_output{a, "ok"};
                             });
    REQUIRE(tool);
    CHECK(tool->argument_type == nullptr);
    agentrt::tool_table table({*tool});
    auto refused = table.accept("lookup", R"({"id":0,"tags":["abcd"],"extra":1})");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == agentrt::errc::invalid_arguments);
    CHECK(refused.error().violations ==
          std::vector<agentrt::violation>{{"/id", "minimum", "1, got 0"},
                                          {"/tags/0", "maxLength", "3, got 4"},
                                          {"/extra", "additionalProperties", "unknown member, got 1"}});
    CHECK(table.accept("lookup", R"({"id":1,"tags":["a"]})"));
    CHECK_FALSE(table.accept("lookup", R"({"id":1,"tags":["a"],"id":1})")); // the strict boundary first

    fuzz::fuzz_check_options o;
    o.generation.cases = 60;
    auto report = fuzz::fuzz_check(table, o);
    INFO(report.message);
    CHECK(report.passed);
}

TEST_CASE("a_schema_with_nothing_to_violate_yields_the_boundary_cases_only") {
    auto shape = compiled("{}");
    for (auto const& valid : fuzz::sample(fuzz::valid_json(shape), 20, 1)) {
        CHECK(fuzz::near_misses(shape, valid, fuzz::judge_of(shape)).empty());
        CHECK(fuzz::boundary_cases(valid).size() >= 5);
    }
}

namespace {
std::size_t depth_of(json::value const& v) {
    std::size_t deepest = 0;
    if (v.is_array())
        for (auto const& x : v.get_array())
            deepest = std::max(deepest, depth_of(x));
    if (v.is_object())
        for (auto const& kv : v.get_object())
            deepest = std::max(deepest, depth_of(kv.value()));
    return deepest + (v.is_array() || v.is_object() ? 1 : 0);
}
} // namespace

TEST_CASE("recursion_through_ref_is_bounded_by_max_depth") {
    auto shape = compiled(R"({"$ref":"#/$defs/tree","$defs":{"tree":{"type":"object","required":["kids"],
        "properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/tree"}}},"additionalProperties":false}}})");
    fuzz::options o;
    o.max_depth = 4;
    std::size_t deepest = 0;
    for (auto const& v : fuzz::sample(fuzz::valid_json(shape, o), 100, 3)) {
        CHECK(agentrt::validate(shape, v).empty());
        deepest = std::max(deepest, depth_of(v));
    }
    CHECK(deepest >= 3);
    CHECK(deepest <= 2 * o.max_depth + 2);
}
