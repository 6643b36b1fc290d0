#include <agentrt/runtime/worker.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include "fixture.hpp"

#include <thread>

using namespace runtime_test;
using agentrt::decision;
using agentrt::run_status;

TEST_CASE("a worker resumes the runs that are ready: a granted approval and a dead holder") {
    world w;
    w.decide = [](agentrt::tool_entry const& t, auto const&, auto const&) {
        return t.name == "send_message" ? agentrt::require_approval("send", "ask") : agentrt::allow();
    };
    auto s = w.open();
    agentrt::testkit::scripted_agent agent({decision::call("send_message", send_args), decision::complete("done")});
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    REQUIRE(d.start("approved").value().status == run_status::waiting_for_approval);      // run-1
    REQUIRE(d.start("still pending").value().status == run_status::waiting_for_approval); // run-2
    REQUIRE(agentrt::approve(s, "run-1", 0, agentrt::read_run(s, "run-1").value().approvals[0].hash));
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto crashed = g.begin("crashed").value(); // run-3
    crashed.abandon();
    agentrt::worker worker(s, w.table, w.policy, agent, w.options());
    auto outcomes = worker.run_once().value();
    REQUIRE(outcomes.size() == 2);
    std::map<std::string, run_status> left;
    for (auto const& o : outcomes)
        left[o.run_id] = o.run.value().status;
    CHECK(left == std::map<std::string, run_status>{{"run-1", run_status::completed},
                                                    {"run-3", run_status::waiting_for_approval}});
    CHECK(w.calls["send_message"] == 1);
    CHECK(worker.run_once().value().empty());
}

TEST_CASE("many runs in one process share one store from several threads") {
    world w;
    auto s = w.open({.durability = agentrt::durability::process_crash});
    std::vector<std::thread> threads;
    std::atomic<int> completed{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            agentrt::testkit::scripted_agent agent(
                {decision::call("lookup_order", lookup_args), decision::complete("ok")});
            auto options = w.options();
            options.ids = agentrt::counting_ids("thread-" + std::to_string(t) + "-");
            agentrt::driver d(s, w.table, w.policy, agent, options);
            for (int i = 0; i < 10; ++i)
                if (auto run = d.start("goal"); run && run->status == run_status::completed)
                    ++completed;
        });
    for (auto& t : threads)
        t.join();
    CHECK(completed == 40);
    CHECK(agentrt::list_runs(s, {}, 100).size() == 40);
    CHECK(agentrt::verify(s).ok());
    CHECK(agentrt::check_invariants(s).ok());
}

TEST_CASE("a worker whose store cannot be read returns the store's error, and its next round goes on") {
    world w;
    auto real = w.open();
    agentrt::gate g(real, w.table, w.policy, w.options());
    g.begin("crashed").value().abandon();
    auto faulty = std::make_shared<failing_reads>(real.engine());
    faulty->armed = true;
    agentrt::store s(faulty);
    agentrt::testkit::scripted_agent agent({decision::complete("done")});
    agentrt::worker worker(s, w.table, w.policy, agent, w.options());
    auto failed = worker.run_once();
    REQUIRE_FALSE(failed);
    CHECK(failed.error().code == agentrt::errc::store_failed);
    faulty->armed = false;
    auto outcomes = worker.run_once();
    REQUIRE(outcomes);
    REQUIRE(outcomes->size() == 1);
    CHECK(outcomes->front().run.value().status == run_status::completed);
}
