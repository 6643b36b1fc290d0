#include <agentrt/fuzz/generate.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/fuzz/doctest.hpp>

#include "support/test_tools.hpp"

#include <boost/json/serialize.hpp>

#include <set>

namespace {

using namespace test_tools;
namespace json = boost::json;
namespace fuzz = agentrt::fuzz;

// Serialised, read back through the strict boundary, and decoded by the catalogue: the whole path
// a model-sent value takes.
template <class T>
void every_generated_value_is_accepted(char const* name, int cases) {
    CAPTURE(name);
    AGENTRT_CHECK_PROPERTY(
        name,
        [] {
            auto document = *fuzz::valid_json(agentrt::type_info_of<T>());
            auto text = json::serialize(document);
            auto decoded = agentrt::decode<T>(std::string_view(text));
            if (!decoded)
                RC_FAIL(text + "\n" + decoded.error().to_string());
        },
        fuzz::property_settings{.seed = 1, .cases = cases});
}

// Longer than the pattern's unbounded repeats reach by default (max_pattern_repeat), in a window.
struct long_identifiers {
    BOOST_HANA_DEFINE_STRUCT(
        long_identifiers, (field<std::string, agentrt::min_length<12>, agentrt::pattern<"^[a-z]+$">>, word),
        (field<std::string, agentrt::min_length<9>, agentrt::pattern<"^(ab)*c+$">>, runs),
        (field<std::string, agentrt::min_length<36>, agentrt::max_length<40>, agentrt::pattern<"^[0-9a-f]+$">>, hex));
};

struct switches {
    BOOST_HANA_DEFINE_STRUCT(switches, (std::vector<bool>, flags),
                             (field<std::vector<bool>, agentrt::max_items<2>>, pair));
};

} // namespace

TEST_CASE("vectors_of_bool_generate_values_the_decoder_accepts") {
    every_generated_value_is_accepted<switches>("switches", 300);
    for (auto const& v : fuzz::sample(fuzz::valid_json(agentrt::type_info_of<switches>()), 50, 3))
        CHECK(v.at("pair").as_array().size() <= 2u);
}

TEST_CASE("a_pattern_with_a_min_length_beyond_its_default_repeats_still_generates") {
    every_generated_value_is_accepted<long_identifiers>("long_identifiers", 300);
    for (auto const& v : fuzz::sample(fuzz::valid_json(agentrt::type_info_of<long_identifiers>()), 50, 3)) {
        CHECK(v.at("word").as_string().size() >= 12u);
        CHECK(v.at("runs").as_string().size() >= 9u);
        CHECK(v.at("hex").as_string().size() >= 36u);
        CHECK(v.at("hex").as_string().size() <= 40u);
    }
}

TEST_CASE("every_generated_value_serialised_is_accepted_by_the_decoder_for_every_test_type") {
    every_generated_value_is_accepted<every_scalar>("every_scalar", 1000);
    every_generated_value_is_accepted<bounded_numbers>("bounded_numbers", 2000);
    every_generated_value_is_accepted<text_rules>("text_rules", 1000);
    every_generated_value_is_accepted<send_args>("send_args", 1000);
    every_generated_value_is_accepted<lookup_args>("lookup_args", 500);
    every_generated_value_is_accepted<wipe_args>("wipe_args", 500);
    every_generated_value_is_accepted<test_tools::adapted_point>("adapted_point", 500);
    every_generated_value_is_accepted<lists>("lists", 1000);
}

TEST_CASE("arbitrary_is_derived_for_reflected_argument_types") {
    AGENTRT_CHECK_PROPERTY("bounded", [](bounded_numbers const& b) {
        RC_ASSERT(b.count >= 1);
        RC_ASSERT(b.count <= 10);
        RC_ASSERT(b.step % 5u == 0u);
    });
}

TEST_CASE("the_same_seed_gives_the_same_sequence") {
    auto gen = fuzz::valid_json(agentrt::type_info_of<send_args>());
    auto a = fuzz::sample(gen, 50, 42), b = fuzz::sample(gen, 50, 42), c = fuzz::sample(gen, 50, 43);
    CHECK(a == b);
    CHECK(a != c);
}

TEST_CASE("a_failing_property_reports_the_smallest_counterexample") {
    auto gen = fuzz::valid_json(agentrt::type_info_of<send_args>());
    rc::detail::TestParams params;
    params.seed = 12;
    params.maxSuccess = 200;
    struct : rc::detail::TestListener { // quiet: this failure is the expected outcome
        void onTestCaseFinished(rc::detail::CaseDescription const&) override {}
        void onShrinkTried(rc::detail::CaseDescription const&, bool) override {}
        void onTestFinished(rc::detail::TestMetadata const&, rc::detail::TestResult const&) override {}
    } quiet;
    auto result = rc::detail::checkProperty(rc::detail::toProperty([&] {
                                                auto document = *gen;
                                                RC_ASSERT(document.at("subject").as_string().size() < 5u);
                                            }),
                                            rc::detail::TestMetadata{"shrink", "shrink"}, params, quiet);
    REQUIRE(result.is<rc::detail::FailureResult>());
    auto const& example = result.get<rc::detail::FailureResult>().counterExample;
    REQUIRE(example.size() == 1);
    // Every member at its smallest: first alternative, shortest matching address, empty lists and
    // maps, optional members absent, and the subject exactly one past what the property allows.
    CHECK(example[0].second == R"({"to":{"kind":"email","address":"a@a"},"cc":[],"subject":"aaaaa","counters":{}})");
}

TEST_CASE("size_options_bound_items_string_lengths_and_depth") {
    fuzz::options small;
    small.max_items = 2;
    small.max_string_length = 3;
    for (auto const& v : fuzz::sample(fuzz::valid_json(agentrt::type_info_of<lists>(), small), 200, 9)) {
        CHECK(v.at("numbers").as_array().size() <= 2u);
        for (auto const& row : v.at("grid").as_array()) {
            CHECK(row.as_array().size() <= 2u);
            for (auto const& cell : row.as_array())
                CHECK(cell.as_string().size() <= 3u * 4u); // 3 code points of at most 4 bytes
        }
    }
    fuzz::options shallow;
    shallow.max_depth = 1;
    for (auto const& v : fuzz::sample(fuzz::valid_json(agentrt::type_info_of<lists>(), shallow), 100, 9)) {
        CHECK(v.at("numbers").as_array().size() == 1u); // at the limit, only what min_items asks
        CHECK(v.at("grid").as_array().empty());
        CHECK(v.at("switches").as_array().empty());
    }
    // A constraint wins over an option.
    fuzz::options tiny;
    tiny.max_string_length = 0;
    for (auto const& v : fuzz::sample(fuzz::valid_json(agentrt::type_info_of<wipe_args>(), tiny), 20, 9))
        CHECK(v.at("account").as_string().size() >= 1u);
}

TEST_CASE("a_pattern_outside_the_subset_is_refused_by_the_generator_naming_what_it_uses") {
    auto nodes = std::make_shared<std::deque<agentrt::schema_node>>();
    auto& n = nodes->emplace_back();
    n.types = agentrt::json_type::string;
    n.pattern = "a\\bc";
    agentrt::compiled_schema s(nodes, &n);
    try {
        (void)fuzz::valid_json(s);
        FAIL("no exception");
    } catch (std::invalid_argument const& e) {
        CHECK(std::string(e.what()).find("word boundary") != std::string::npos);
    }
}

TEST_CASE("generated_strings_carry_escapes_quotes_backslashes_and_non_ascii") {
    std::set<std::string> seen;
    for (auto const& v : fuzz::sample(fuzz::valid_json(agentrt::type_info_of<every_scalar>()), 300, 4))
        for (std::string c : {"\"", "\\", "\n", "\x01", "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80"})
            if (std::string(v.at("text").as_string()).find(c) != std::string::npos)
                seen.insert(c);
    CHECK(seen.size() == 7);
}

TEST_CASE("optionals_are_present_and_absent_and_every_alternative_and_enumerator_occurs") {
    std::set<std::string> seen;
    for (auto const& v : fuzz::sample(fuzz::valid_json(agentrt::type_info_of<send_args>()), 300, 6)) {
        auto const& o = v.as_object();
        seen.insert(o.contains("urgency") ? "urgency present" : "urgency absent");
        seen.insert(o.contains("options") ? "options present" : "options absent");
        seen.insert("to " + std::string(o.at("to").at("kind").as_string()));
        if (o.contains("urgency"))
            seen.insert("urgency " + std::string(o.at("urgency").as_string()));
        if (!o.at("cc").as_array().empty())
            seen.insert("cc items");
        if (!o.at("counters").as_object().empty())
            seen.insert("counters entries");
    }
    CHECK(seen == std::set<std::string>{"urgency present", "urgency absent", "options present", "options absent",
                                        "to email", "to phone", "urgency low", "urgency normal", "urgency urgent",
                                        "cc items", "counters entries"});
}
