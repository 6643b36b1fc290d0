#include <agentrt/runtime/check.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include "fixture.hpp"

using namespace runtime_test;
using agentrt::decision;

TEST_CASE("the invariant checker passes a store of finished runs") {
    world w;
    auto s = w.open();
    agentrt::testkit::scripted_agent agent({decision::call("send_message", send_args), decision::complete("ok")});
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    (void)d.start("goal").value();
    auto report = agentrt::check_invariants(s);
    CHECK(report.ok());
    CHECK(report.runs_checked == 1);
}

TEST_CASE("the invariant checker names a tool start left open and a lease left held") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto crashed = g.begin("goal").value();
    (void)crashed.open_step().value();
    (void)crashed.propose(decision::call("send_message", send_args)).value();
    crashed.abandon();
    auto report = agentrt::check_invariants(s);
    CHECK(report.problems ==
          std::vector<std::string>{
              "step run-1/0 started its tool and no finish or interruption closes it", "step run-1/0 is left executing",
              "run run-1 (running) has its lease held by " + agentrt::read_run(s, "run-1").value().run.lease.owner});
    CHECK(agentrt::check_invariants(s, {.allow_in_progress = true}).ok());
    // After the takeover the start is closed by the interruption.
    (void)g.attach("run-1").value();
    CHECK(agentrt::check_invariants(s).ok());
}
