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

} // namespace

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
