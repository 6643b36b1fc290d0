#include <agentrt/runtime/driver.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include "fixture.hpp"
#include "support/logical_store.hpp"

#include <atomic>
#include <memory>

using namespace runtime_test;
using agentrt::decision;

namespace {

std::vector<decision> script() {
    return {decision::call("lookup_order", lookup_args), decision::call("nope", "{}"),
            decision::call("send_message", send_args), decision::complete("done")};
}

// A record clock one millisecond later at every reading: a reading more, fewer or elsewhere shows.
agentrt::gate_options ticking(world const& w) {
    auto o = w.options();
    o.clocks.record = [now = std::make_shared<std::atomic<std::int64_t>>(1'700'000'000'000)] { return ++*now; };
    return o;
}

std::string drive_scenario(bool tick = true) {
    world w;
    auto s = w.open();
    agentrt::testkit::scripted_agent agent(script());
    agentrt::driver d(s, w.table, w.policy, agent, tick ? ticking(w) : w.options());
    REQUIRE(d.start("scenario").value().status == agentrt::run_status::completed);
    return test_support::logical_store(s);
}

} // namespace

TEST_CASE("clock readings are stable: two runs of a scenario record the same logical store") {
    auto first = drive_scenario();
    auto second = drive_scenario();
    CHECK(first.size() > 1000);
    CHECK(first == second);
    CHECK(first != drive_scenario(false)); // the ticks are recorded: the check above could see a change
}

TEST_CASE("a gate loop and the driver record the same store") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, ticking(w));
    auto session = g.begin("scenario").value();
    for (auto const& d : script()) {
        REQUIRE(session.open_step().value());
        auto step = session.propose(d).value();
        if (step.status == agentrt::step_status::executing)
            (void)session.execute().value();
    }
    CHECK_FALSE(session.open_step().value());
    (void)session.release();
    CHECK(test_support::logical_store(s) == drive_scenario());
}

TEST_CASE("the scripted agent fails clearly past its script, and the run fails internal_error") {
    world w;
    auto s = w.open();
    agentrt::testkit::scripted_agent agent({decision::call("lookup_order", lookup_args)});
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    auto run = d.start("goal").value();
    CHECK(run.status == agentrt::run_status::failed);
    CHECK(run.reason == "internal_error");
    CHECK(run.message ==
          "the agent threw: scripted agent has no decision for step 1 of run run-1: its script has 1 decisions");
    CHECK(run.lease.owner.empty());
}

TEST_CASE("the agent decides from the steps recorded before its step") {
    world w;
    auto s = w.open();
    struct recording_agent : agentrt::agent {
        std::vector<std::size_t> seen;
        decision decide(agentrt::agent_view const& v) override {
            seen.push_back(v.steps.size());
            if (v.step_index == 2)
                return decision::complete("done");
            return decision::call("lookup_order", R"({"order_id":"ord-)" + std::to_string(v.step_index) + "\"}");
        }
    } agent;
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    CHECK(d.start("goal").value().status == agentrt::run_status::completed);
    CHECK(agent.seen == std::vector<std::size_t>{0, 1, 2});
}
