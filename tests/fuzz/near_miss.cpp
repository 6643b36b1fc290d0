#include <agentrt/fuzz/near_miss.hpp>

#include <agentrt/catalog/decode.hpp>
#include <agentrt/fuzz/doctest.hpp>
#include <agentrt/fuzz/generate.hpp>

#include "support/test_tools.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <set>

namespace {

using namespace test_tools;
namespace json = boost::json;
namespace fuzz = agentrt::fuzz;

// Refused, through the whole path a model-sent text takes, and for the rule it claims.
template <class T>
void every_near_miss_is_refused(char const* name) {
    AGENTRT_CHECK_PROPERTY(
        name,
        [] {
            auto miss = *fuzz::near_miss_gen(agentrt::type_info_of<T>());
            auto decoded = agentrt::decode<T>(std::string_view(miss.text));
            RC_ASSERT(!decoded);
            auto const& found = decoded.error().violations;
            RC_ASSERT(std::any_of(found.begin(), found.end(),
                                  [&](agentrt::violation const& v) { return v.keyword == miss.rule; }));
        },
        fuzz::property_settings{.seed = 2, .cases = 300});
}

template <class T>
std::set<std::string> rules_of(std::size_t count) {
    std::set<std::string> rules;
    for (auto const& valid : fuzz::sample(fuzz::valid_json(agentrt::type_info_of<T>()), count, 5))
        for (auto const& m : fuzz::near_misses(agentrt::type_info_of<T>(), valid))
            rules.insert(m.rule);
    return rules;
}

} // namespace

TEST_CASE("every_near_miss_is_refused_by_the_decoder_for_the_rule_it_names") {
    every_near_miss_is_refused<every_scalar>("every_scalar");
    every_near_miss_is_refused<bounded_numbers>("bounded_numbers");
    every_near_miss_is_refused<text_rules>("text_rules");
    every_near_miss_is_refused<send_args>("send_args");
    every_near_miss_is_refused<lists>("lists");
    every_near_miss_is_refused<wipe_args>("wipe_args");
}

TEST_CASE("near_misses_cover_every_rule_of_the_test_catalogue") {
    std::set<std::string> rules;
    for (auto const& r : rules_of<every_scalar>(50))
        rules.insert(r);
    for (auto const& r : rules_of<bounded_numbers>(50))
        rules.insert(r);
    for (auto const& r : rules_of<text_rules>(50))
        rules.insert(r);
    for (auto const& r : rules_of<send_args>(100))
        rules.insert(r);
    for (auto const& r : rules_of<lists>(50))
        rules.insert(r);
    for (char const* rule :
         {"required", "additionalProperties", "type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
          "multipleOf", "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "enum", "oneOf"}) {
        CAPTURE(rule);
        CHECK(rules.count(rule) == 1);
    }
}

TEST_CASE("a_near_miss_is_one_change_away_and_carries_its_pointer") {
    auto valid = json::parse(R"({"to":{"kind":"email","address":"a@b"},"cc":["x"],"subject":"hi","counters":{"n":1}})");
    auto misses = fuzz::near_misses(agentrt::type_info_of<send_args>(), valid);
    auto has = [&](std::string const& rule, std::string const& pointer) {
        return std::any_of(misses.begin(), misses.end(),
                           [&](fuzz::near_miss const& m) { return m.rule == rule && m.pointer == pointer; });
    };
    CHECK(has("required", "/subject"));
    CHECK(has("additionalProperties", "/agentrt_unknown"));
    CHECK(has("additionalProperties", "/to/agentrt_unknown"));
    CHECK(has("oneOf", "/to"));
    CHECK(has("pattern", "/to/address"));
    CHECK(has("maxLength", "/to/address"));
    CHECK(has("maxLength", "/cc/0"));
    CHECK(has("uniqueItems", "/cc"));
    CHECK(has("maxItems", "/cc"));
    CHECK(has("minLength", "/subject"));
    CHECK(has("minimum", "/counters/n"));
    CHECK(has("type", "/counters"));
    for (auto const& m : misses) {
        CAPTURE(m);
        CHECK_FALSE(m.boundary);
    }
}

TEST_CASE("boundary_cases_are_refused_by_the_json_boundary_with_their_rule") {
    auto valid = json::parse(R"({"order_id":"ord-1"})");
    auto cases = fuzz::boundary_cases(valid);
    std::set<std::string> rules;
    for (auto const& c : cases) {
        CAPTURE(c);
        CHECK(c.boundary);
        rules.insert(c.rule);
        auto read = agentrt::read_json(c.text);
        REQUIRE_FALSE(read);
        CHECK(read.error().violations.front().keyword == c.rule);
        if (c.rule == "utf8" || c.rule == "unpairedSurrogate")
            CHECK(c.pointer == "/order_id");
    }
    CHECK(rules == std::set<std::string>{"maxDepth", "duplicateKey", "utf8", "unpairedSurrogate", "truncated",
                                         "trailingContent"});
}

TEST_CASE("boundary_cases_exist_for_a_document_without_strings") {
    auto cases = fuzz::boundary_cases(json::parse(R"({"x":1,"y":2})"));
    CHECK(cases.size() == 6);
}
