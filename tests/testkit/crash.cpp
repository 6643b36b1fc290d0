// The crash harness: real processes killed at each point, resumed, and held to the invariants.
#include <agentrt/testkit/scenario.hpp>

#include <agentrt/catalog/catalog.hpp>

#include "support/recording_reporter.hpp"
#include "support/test_tools.hpp"

#include <doctest/doctest.h>

using namespace agentrt::testkit;
using namespace test_tools;

namespace {

using shop = agentrt::catalog<lookup_order, send_message>;

// Allows everything: the send is a side effect the policy lets through without an approval.
struct trusting_policy {
    static constexpr std::string_view identity = "trusting/1";
    agentrt::verdict operator()(agentrt::untyped_request const&, agentrt::run_view const&) const {
        return agentrt::allow();
    }
};

std::string const mail = R"({"to":{"kind":"email","address":"a@b.c"},"cc":[],"subject":"refund","counters":{}})";

scenario shop_scenario() {
    scenario s;
    s.tools = [] { return shop{}.table(); };
    s.policy = [] { return agentrt::lower_policy(trusting_policy{}, shop{}); };
    s.agent = [] {
        return std::make_unique<agentrt::scripted_agent>(std::vector<agentrt::decision>{
            agentrt::decision::call("lookup_order", R"({"order_id":"ord-7"})"),
            agentrt::decision::call("send_message", mail), agentrt::decision::complete("refund mailed")});
    };
    s.goal = "mail the refund of order 7";
    return s;
}

std::string problems_of(scenario_result const& r) {
    std::string out;
    for (auto const& p : r.problems)
        out += p + "\n";
    return out;
}

} // namespace

TEST_SUITE("testkit") {

    TEST_CASE("crash harness: a scenario without crashes completes and holds its invariants") {
        auto r = run_scenario(shop_scenario());
        CHECK_MESSAGE(r.ok(), problems_of(r));
        CHECK(r.run.status == agentrt::run_status::completed);
        CHECK(r.resumes == 0);
        CHECK(r.invocations_of("lookup_order") == 1);
        CHECK(r.invocations_of("send_message") == 1);
        CHECK(r.steps.size() == 3);
    }

    TEST_CASE("crash harness: a side effect lost in a crash runs again only when approved") {
        auto r = run_scenario(shop_scenario(), {{1, crash_point::after_effect_before_outcome}});
        CHECK_MESSAGE(r.ok(), problems_of(r));
        CHECK(r.crashes_fired == std::vector<crash>{{1, crash_point::after_effect_before_outcome}});
        CHECK(r.resumes == 1);
        CHECK(r.run.status == agentrt::run_status::completed);
        CHECK(r.invocations_of("send_message") == 2); // once lost, once approved
        REQUIRE(r.approvals.size() == 1);
        CHECK(r.approvals[0].kind == "interrupted_side_effect");
        CHECK(r.approvals[0].status == agentrt::approval_status::approved);
        CHECK(!r.invocations[1].returned);
    }

    TEST_CASE("crash harness: an operator who rejects: the lost side effect never runs again") {
        auto s = shop_scenario();
        s.answer = [](agentrt::approval_record const&) { return operator_answer::reject; };
        auto r = run_scenario(s, {{1, crash_point::after_effect_before_outcome}});
        CHECK_MESSAGE(r.ok(), problems_of(r));
        CHECK(r.run.status == agentrt::run_status::failed);
        CHECK(r.run.reason == "approval_rejected");
        CHECK(r.invocations_of("send_message") == 1);
    }

    TEST_CASE("crash harness: a reconciled side effect is not run again") {
        auto s = shop_scenario();
        s.reconcile = [](agentrt::step_record const&, agentrt::tool_entry const&) {
            return agentrt::reconciliation{agentrt::reconcile_answer::completed, {{"sent", true}}, {}, {}};
        };
        auto r = run_scenario(s, {{1, crash_point::after_effect_before_outcome}});
        CHECK_MESSAGE(r.ok(), problems_of(r));
        CHECK(r.run.status == agentrt::run_status::completed);
        CHECK(r.invocations_of("send_message") == 1);
        CHECK(r.approvals.empty());
    }

    TEST_CASE("crash harness: several crashes in one scenario, each in a fresh process") {
        auto r = run_scenario(shop_scenario(), {{0, crash_point::after_step_decided},
                                                {1, crash_point::after_tool_started},
                                                {2, crash_point::after_run_resumed}}); // the second resume
        CHECK_MESSAGE(r.ok(), problems_of(r));
        CHECK(r.crashes_fired.size() == 3);
        CHECK(r.resumes == 3);
    }

    TEST_CASE("crash harness: a requested crash that is never reached is a failure") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        CHECK(!check_scenario(shop_scenario(), {{7, crash_point::after_step_started}}));
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].message.find("crash step 7 after_step_started was requested but never reached") !=
              std::string::npos);
    }

    TEST_CASE("crash harness: explore_random tries schedules of several crashes and finds nothing wrong") {
        CHECK(explore_random(shop_scenario(), {.cases = 8, .max_crashes = 3, .seed = 7}));
    }

    namespace {
    // An agent that cannot bear to see its own interrupted step: it aborts the process.
    struct fragile_agent final : agentrt::agent {
        agentrt::decision decide(agentrt::agent_view const& view) override {
            for (auto const& step : view.steps)
                if (step.status == agentrt::step_status::interrupted)
                    std::abort();
            return view.step_index == 0 ? agentrt::decision::call("lookup_order", R"({"order_id":"ord-7"})")
                                        : agentrt::decision::complete("done");
        }
    };
    } // namespace

    TEST_CASE("crash harness: explore_random reports a failing schedule, shrunk") {
        auto s = shop_scenario();
        s.agent = [] { return std::make_unique<fragile_agent>(); };
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        CHECK(!explore_random(s, {.cases = 30, .max_crashes = 3, .seed = 11}));
        REQUIRE(recorded.reports.size() == 1);
        auto const& message = recorded.reports[0].message;
        CHECK(message.starts_with("explore_random: Falsifiable"));
        CHECK(message.find("was killed by signal 6") != std::string::npos);
        // Shrunk: one crash is enough to make the agent see an interrupted step.
        CHECK(message.find("scenario with crashes [step 0 ") != std::string::npos);
        CHECK(message.find(", step") == std::string::npos);
    }

    TEST_CASE("crash harness: explore crashes at every point of every step and finds nothing wrong") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        auto summary = explore(shop_scenario());
        CHECK(summary.crashes_tried >= 10);
        CHECK(summary.failures == 0);
        CHECK(summary.resumes >= summary.crashes_tried);
        for (auto const& r : recorded.reports)
            FAIL_CHECK(r.message);
    }
}
