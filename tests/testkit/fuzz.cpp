// fuzz_check and never through the test kit's reporter.
#include <agentrt/testkit/fuzz.hpp>

#include "support/recording_reporter.hpp"
#include "support/test_tools.hpp"

#include <doctest/doctest.h>

using namespace test_tools;

namespace {

using shop = agentrt::catalog<lookup_order, send_message, wipe_account>;

struct careful {
    static constexpr std::string_view identity = "careful/1";
    agentrt::verdict operator()(agentrt::untyped_request const& r, agentrt::run_view const&) const {
        return r.effect == agentrt::side_effect::destructive ? agentrt::deny("never") : agentrt::allow();
    }
};

// Allows a wipe when the account is confirmed: a destructive allow that never must find.
struct careless {
    static constexpr std::string_view identity = "careless/1";
    agentrt::verdict operator()(wipe_args const& a, agentrt::run_view const&) const {
        return a.confirm ? agentrt::allow() : agentrt::deny("unconfirmed");
    }
    agentrt::verdict operator()(agentrt::untyped_request const&, agentrt::run_view const&) const {
        return agentrt::allow();
    }
};

agentrt::fuzz::fuzz_check_options few() {
    agentrt::fuzz::fuzz_check_options o;
    o.generation.cases = 30;
    o.generation.seed = 3;
    return o;
}

} // namespace

TEST_SUITE("testkit") {

    TEST_CASE("never: a policy that never allows a destructive tool passes") {
        test_support::recording_reporter recorded;
        agentrt::testkit::scoped_reporter installed(recorded);
        CHECK(agentrt::testkit::never(careful{}, shop{}, agentrt::side_effect::destructive, agentrt::outcome::allow));
        CHECK(recorded.reports.empty());
    }

    TEST_CASE("never: a policy that allows a destructive tool is reported with its counterexample") {
        test_support::recording_reporter recorded;
        agentrt::testkit::scoped_reporter installed(recorded);
        unsigned const line = __LINE__ + 1;
        CHECK(!agentrt::testkit::never(careless{}, shop{}, agentrt::side_effect::destructive, agentrt::outcome::allow));
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].line == line);
        CHECK(recorded.reports[0].message.starts_with("never: "));
        CHECK(recorded.reports[0].message.find("wipe_account") != std::string::npos);
    }

    TEST_CASE("fuzz_check: the test catalogue accepts every valid value and refuses every near miss") {
        test_support::recording_reporter recorded;
        agentrt::testkit::scoped_reporter installed(recorded);
        CHECK(agentrt::testkit::fuzz_check(shop{}.table(), few()));
        CHECK(recorded.reports.empty());
    }

    TEST_CASE("fuzz_check: a tool that crashes on valid arguments is reported") {
        auto table = shop{}.table();
        std::vector<agentrt::tool_entry> entries(table.entries().begin(), table.entries().end());
        entries[0].call = [](agentrt::arguments const&, agentrt::call_context const&) -> agentrt::tool_result {
            throw std::runtime_error("lookup crashed");
        };
        test_support::recording_reporter recorded;
        agentrt::testkit::scoped_reporter installed(recorded);
        CHECK(!agentrt::testkit::fuzz_check(agentrt::tool_table(std::move(entries)), few()));
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].message.starts_with("fuzz_check: "));
    }
}
