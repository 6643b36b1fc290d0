#include <agentrt/fuzz/doctest.hpp>

#include <agentrt/fuzz/generate.hpp>

#include "support/test_tools.hpp"

TEST_CASE("a_property_that_holds_passes_inside_doctest") {
    CHECK(AGENTRT_CHECK_PROPERTY(
        "lookup ids", [](test_tools::lookup_args const& a) { RC_ASSERT(a.order_id.get().rfind("ord-", 0) == 0u); }));
}

// The adapter must turn a falsified property into a failed doctest check (here expected).
TEST_CASE("a_falsified_property_fails_the_doctest_check" * doctest::should_fail()) {
    AGENTRT_CHECK_PROPERTY(
        "short subjects", [](test_tools::send_args const& a) { RC_ASSERT(a.subject.get().size() < 3u); },
        agentrt::fuzz::property_settings{.seed = 1, .cases = 200});
}
