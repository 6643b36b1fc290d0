// Including <agentrt/testkit/doctest.hpp> makes a helper's failure fail the running doctest case.
#include <agentrt/testkit/doctest.hpp>

#include <agentrt/testkit/check_policy.hpp>

#include "support/test_tools.hpp"

namespace {
struct allow_everything {
    static constexpr std::string_view identity = "allow-everything/1";
    agentrt::verdict operator()(agentrt::untyped_request const&, agentrt::run_view const&) const {
        return agentrt::allow();
    }
};
} // namespace

TEST_SUITE("testkit") {

    TEST_CASE("doctest reporter: a helper's failure fails the test case" * doctest::should_fail()) {
        agentrt::testkit::check_policy(
            allow_everything{}, agentrt::catalog<test_tools::wipe_account>{},
            {{"wipes are denied", "wipe_account", R"({"account":"a","confirm":true})", agentrt::testkit::denied()}});
    }

    TEST_CASE("doctest reporter: a helper that passes leaves the test case passing") {
        CHECK(agentrt::testkit::check_policy(
            allow_everything{}, agentrt::catalog<test_tools::wipe_account>{},
            {{"wipes are allowed", "wipe_account", R"({"account":"a","confirm":true})", agentrt::testkit::allowed()}}));
    }
}
