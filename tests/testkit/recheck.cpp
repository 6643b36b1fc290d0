// Re-checks: a recorded run decided again under a policy, and nothing passes unchecked.
#include <agentrt/testkit/recheck.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include <agentrt/catalog/catalog.hpp>

#include "support/recording_reporter.hpp"
#include "support/test_tools.hpp"

#include <doctest/doctest.h>

using namespace agentrt::testkit;
using namespace test_tools;

namespace {

using shop = agentrt::catalog<lookup_order, send_message>;

struct trusting {
    static constexpr std::string_view identity = "trusting/1";
    agentrt::verdict operator()(agentrt::untyped_request const&, agentrt::run_view const&) const {
        return agentrt::allow();
    }
};

// Asks before every message, and counts what it saw: the view must be rebuilt faithfully.
struct cautious {
    static constexpr std::string_view identity = "cautious/1";
    agentrt::verdict operator()(lookup_args const&, agentrt::run_view const& v) const {
        return v.steps.empty() ? agentrt::allow() : agentrt::deny("lookups come first");
    }
    agentrt::verdict operator()(send_args const&, agentrt::run_view const&) const {
        return agentrt::require_approval("message", "every message is checked");
    }
};

// Asks for another kind of approval than cautious does.
struct other_approver {
    static constexpr std::string_view identity = "other-approver/1";
    agentrt::verdict operator()(lookup_args const&, agentrt::run_view const&) const { return agentrt::allow(); }
    agentrt::verdict operator()(send_args const&, agentrt::run_view const&) const {
        return agentrt::require_approval("manager", "messages need a manager now");
    }
};

std::string const mail = R"({"to":{"kind":"email","address":"a@b.c"},"cc":[],"subject":"s","counters":{}})";

scenario messaging(std::vector<agentrt::decision> script) {
    scenario s;
    s.tools = [] { return shop{}.table(); };
    s.policy = [] { return agentrt::lower_policy(trusting{}, shop{}); };
    s.agent = [script] { return std::make_unique<agentrt::testkit::scripted_agent>(script); };
    return s;
}

scenario lookup_then_mail() {
    return messaging({agentrt::decision::call("lookup_order", R"({"order_id":"ord-1"})"),
                      agentrt::decision::call("send_message", mail), agentrt::decision::complete("done")});
}

} // namespace

TEST_SUITE("testkit") {

    TEST_CASE("recheck: the policy that decided a run decides it the same way again") {
        auto r = run_scenario(lookup_then_mail());
        REQUIRE(r.ok());
        auto report = recheck_run(records_of(r), shop{}.table(), agentrt::lower_policy(trusting{}, shop{}));
        CHECK(report.rechecked == 2);
        CHECK(report.differences.empty());
        CHECK(recheck(records_of(r), shop{}.table(), agentrt::lower_policy(trusting{}, shop{})));
    }

    TEST_CASE("recheck: another policy's differences are named by step") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        auto records = records_of(run_scenario(lookup_then_mail()));
        auto stricter = agentrt::lower_policy(cautious{}, shop{});
        CHECK(!recheck(records, shop{}.table(), stricter));
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].message ==
              "recheck: policy cautious/1 decides run run-1 differently:\n"
              "  step 1: recorded allow, now require_approval message (every message is checked)");
        CHECK(recheck_differs(records, shop{}.table(), stricter, {1}));
        CHECK(!recheck_differs(records, shop{}.table(), stricter, {0, 1}));
    }

    TEST_CASE("recheck: re-evaluations on resume are re-checked too") {
        auto r = run_scenario(lookup_then_mail(), {{1, crash_point::after_effect_before_outcome}});
        REQUIRE(r.ok());
        auto report = recheck_run(records_of(r), shop{}.table(), agentrt::lower_policy(trusting{}, shop{}));
        CHECK(report.rechecked == 3);
        CHECK(report.differences.empty());
    }

    TEST_CASE("recheck: a run with nothing to re-check fails, partial too") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        auto records = records_of(run_scenario(messaging({agentrt::decision::complete("nothing to do")})));
        auto policy = agentrt::lower_policy(trusting{}, shop{});
        CHECK(!recheck(records, shop{}.table(), policy));
        CHECK(!recheck_differs(records, shop{}.table(), policy, {}));
        CHECK(!recheck_partial(records, shop{}.table(), policy));
        REQUIRE(recorded.reports.size() == 3);
        CHECK(recorded.reports[2].message ==
              "recheck_partial: run run-1 has no policy evaluation that could be re-checked");
    }

    TEST_CASE("recheck: a policy that now asks for a different approval decides differently") {
        auto s = lookup_then_mail();
        s.policy = [] { return agentrt::lower_policy(cautious{}, shop{}); };
        auto r = run_scenario(s);
        REQUIRE(r.ok());
        auto records = records_of(r);
        CHECK(recheck(records, shop{}.table(), agentrt::lower_policy(cautious{}, shop{})));
        auto report = recheck_run(records, shop{}.table(), agentrt::lower_policy(other_approver{}, shop{}));
        CHECK(report.differing == std::vector<std::uint64_t>{1});
        REQUIRE_FALSE(report.differences.empty());
        CHECK(report.differences[0] == "step 1: now require_approval manager (messages need a manager now), an "
                                       "approval (kind, capability or presentation) the step never asked for");
    }

    TEST_CASE("recheck: a record the table can no longer validate is reported, or tolerated by recheck_partial") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        auto records = records_of(run_scenario(lookup_then_mail()));
        auto lookups_only = agentrt::catalog<lookup_order>{}.table();
        auto policy = agentrt::lower_policy(trusting{}, agentrt::catalog<lookup_order>{});
        auto report = recheck_run(records, lookups_only, policy);
        CHECK(report.rechecked == 1);
        REQUIRE(report.not_rechecked.size() == 1);
        CHECK(report.not_rechecked[0].starts_with("step 1: its arguments no longer pass the table: unknown tool"));
        CHECK(!recheck(records, lookups_only, policy));
        CHECK(recheck_partial(records, lookups_only, policy));
    }
}
