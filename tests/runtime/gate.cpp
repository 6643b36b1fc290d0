#include <agentrt/catalog/schema_tool.hpp>
#include <agentrt/runtime/gate.hpp>

#include "engines/lmdb/keys.hpp"
#include "fixture.hpp"

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

using namespace runtime_test;
using agentrt::decision;
using agentrt::run_status;
using agentrt::step_status;
using strings = std::vector<std::string>;

TEST_CASE("a tool step runs once and records its events in order") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("find order 1").value();
    CHECK(session.run_id() == "run-1");
    REQUIRE(session.open_step().value() == std::optional<std::uint64_t>(0));
    auto step = session.propose(decision::call("lookup_order", R"({ "order_id" : "ord-1" })")).value();
    CHECK(step.status == step_status::executing);
    CHECK(w.calls["lookup_order"] == 0);
    step = session.execute().value();
    CHECK(w.calls["lookup_order"] == 1);
    CHECK(step.status == step_status::done);
    CHECK(step.arguments == R"({"order_id":"ord-1"})");
    CHECK(step.observation == R"({"order":"ord-1","status":"shipped"})");
    CHECK(step.policy->identity == "test-policy/1");
    CHECK(step.policy->outcome == "allow");
    CHECK(event_types(s, "run-1") == strings{"run.created", "run.started", "step.started", "step.decided",
                                             "step.policy", "step.tool_started", "step.tool_finished",
                                             "step.started"}); // the next step opens with the finish
}

TEST_CASE("a tool step costs two commits and three syncs under power_loss") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    for (int i = 0; i < 2; ++i) {
        auto before = s.stats();
        (void)session.propose(decision::call("lookup_order", R"({"order_id":"ord-)" + std::to_string(i) + "\"}"))
            .value();
        (void)session.execute().value();
        REQUIRE(session.open_step().value());
        auto after = s.stats();
        CHECK(after.commits - before.commits == 2);
        CHECK(after.syncs - before.syncs == 3); // the start: data + flush; the finish with the next start: data
    }
}

TEST_CASE("a policy decides again when the run changed before its decision was written: the decision written is "
          "taken from the run as it is") {
    world w;
    auto s = w.open();
    check_policy_decides_again_on_a_changed_run(s, s);
}

TEST_CASE("a decision is recorded verbatim before validation, unusable JSON kept as text") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    auto step = session.propose(decision::call("lookup_order", "{not json")).value();
    CHECK(step.status == step_status::failed);
    CHECK(step.arguments == "{not json");
    CHECK(step.decision ==
          R"({"arguments":"{not json","ignored_calls":0,"kind":"tool_call","summary":"","tool":"lookup_order"})");
    auto events = agentrt::read_events(s, "run-1").value();
    CHECK(events[3].is(agentrt::event_type::step_decided));
    CHECK(events[3].data.at("decision").as_string() == step.decision);
}

TEST_CASE("a decision whose bytes are not UTF-8 is kept verbatim and the run goes on") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    std::string const bytes = "{\"order_id\":\"ord-\xff\"}";
    auto step = session.propose(decision::call("lookup_order", bytes)).value();
    CHECK(step.status == step_status::failed);
    CHECK(step.arguments == bytes);
    auto stored = agentrt::read_run(s, "run-1").value().steps.at(0);
    CHECK(stored.arguments == bytes);
    CHECK(stored.decision == step.decision);
    CHECK(session.open_step().value() == 1u); // the run goes on
    CHECK(agentrt::verify(s).ok());
}

TEST_CASE("an invalid decision fails the step with an invalid_decision observation and the run goes on") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    auto step = session.propose(decision::call("no_such_tool", "{}")).value();
    CHECK(step.status == step_status::failed);
    CHECK(step.observation.starts_with(R"({"invalid_decision":)"));
    (void)session.open_step().value();
    step = session.propose(decision::call("lookup_order", R"({"order_id":"x"})")).value();
    CHECK(step.status == step_status::failed);
    CHECK(step.error.find("pattern") != std::string::npos);
    CHECK(session.run().status == run_status::running);
    CHECK(session.run().failed_streak == 2);
    CHECK(w.calls.empty());
}

TEST_CASE("a denied call fails the step and the run goes on") {
    world w;
    w.decide = [](auto const&, auto const&, auto const&) { return agentrt::deny("not today"); };
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    auto step = session.propose(decision::call("lookup_order", lookup_args)).value();
    CHECK(step.status == step_status::failed);
    CHECK(step.observation == R"({"denied":"not today"})");
    CHECK(session.run().status == run_status::running);
    CHECK_FALSE(session.execute());
    CHECK(w.calls.empty());
}

TEST_CASE("a policy abort fails the run policy_abort") {
    world w;
    w.decide = [](auto const&, auto const&, auto const&) { return agentrt::abort("never"); };
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    (void)session.propose(decision::call("lookup_order", lookup_args)).value();
    auto run = session.run();
    CHECK(run.status == run_status::failed);
    CHECK(run.reason == "policy_abort");
    CHECK(run.lease.owner.empty());
    CHECK(w.calls.empty());
}

TEST_CASE("a throwing policy fails the run internal_error and runs nothing") {
    world w;
    w.decide = [](auto const&, auto const&, auto const&) -> agentrt::verdict { throw std::logic_error("bug"); };
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    auto step = session.propose(decision::call("lookup_order", lookup_args)).value();
    CHECK(step.status == step_status::failed);
    auto run = session.run();
    CHECK(run.status == run_status::failed);
    CHECK(run.reason == "internal_error");
    CHECK(run.message == "policy test-policy/1 threw: bug");
    CHECK(w.calls.empty());
}

TEST_CASE("a policy whose capability or presentation is not usable JSON fails the run internal_error") {
    auto const infinite = boost::json::value(std::numeric_limits<double>::infinity());
    for (bool capability : {true, false}) {
        CAPTURE(capability);
        world w;
        w.decide = [&](auto const&, auto const&, auto const&) {
            return capability ? agentrt::require_approval("k", "r", infinite)
                              : agentrt::require_approval("k", "r", nullptr, {{"text", infinite}});
        };
        auto s = w.open();
        agentrt::gate g(s, w.table, w.policy, w.options());
        auto session = g.begin("goal").value();
        (void)session.open_step().value();
        (void)session.propose(decision::call("lookup_order", lookup_args)).value();
        CHECK(session.run().status == agentrt::run_status::failed);
        CHECK(session.run().reason == "internal_error");
        CHECK(agentrt::pending_approvals(s).empty());
        CHECK(w.calls.empty());
    }
}

TEST_CASE("a policy's capability nested deeper than a model's arguments may be fails the run internal_error") {
    boost::json::value deep = 1;
    for (int i = 0; i < 300; ++i)
        deep = boost::json::array{std::move(deep)};
    world w;
    w.decide = [&](auto const&, auto const&, auto const&) { return agentrt::require_approval("k", "r", deep); };
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    (void)session.propose(decision::call("lookup_order", lookup_args)).value();
    CHECK(session.run().status == agentrt::run_status::failed);
    CHECK(session.run().reason == "internal_error");
    CHECK(agentrt::pending_approvals(s).empty());
    CHECK(agentrt::verify(s).ok());
}

TEST_CASE("a terminal tool commits with the run") {
    world w;
    auto s = w.open();
    std::vector<std::string> seen;
    s.observe([&](agentrt::event_record const& e) {
        if (e.is(agentrt::event_type::step_tool_finished) || e.is(agentrt::event_type::run_finished))
            seen.push_back(e.type);
    });
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    (void)session.propose(decision::call("wipe_account", wipe_args)).value();
    auto commits = s.stats().commits;
    auto step = session.execute().value();
    CHECK(s.stats().commits == commits + 1); // the step's end and the run's end: one transaction
    CHECK(step.status == step_status::done);
    auto run = session.run();
    CHECK(run.status == run_status::completed);
    CHECK(run.reason == "goal_completed");
    CHECK(seen == strings{"step.tool_finished", "run.finished"});
}

TEST_CASE("a tool error is a failed step with the bytes kept, and a throwing tool is a tool error") {
    world w;
    w.replace["lookup_order"] = [](auto const&, auto const&) -> agentrt::tool_result {
        throw std::runtime_error("db down");
    };
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    (void)session.propose(decision::call("wipe_account", R"({"account":"a","confirm":false})")).value();
    auto step = session.execute().value();
    CHECK(step.status == step_status::failed);
    CHECK(step.error == "refusing to wipe without confirm");
    CHECK(step.observation == R"({"error":"refusing to wipe without confirm"})");
    (void)session.open_step().value();
    (void)session.propose(decision::call("lookup_order", lookup_args)).value();
    step = session.execute().value();
    CHECK(step.status == step_status::failed);
    CHECK(step.error == "the tool threw: db down");
    CHECK(session.run().status == run_status::running);
}

TEST_CASE("a result that is not usable JSON fails the step with its bytes kept") {
    world w;
    w.replace["lookup_order"] = [](auto const&, auto const&) -> agentrt::tool_result {
        return agentrt::tool_output{boost::json::value(std::numeric_limits<double>::quiet_NaN()), "nan"};
    };
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    (void)session.propose(decision::call("lookup_order", lookup_args)).value();
    auto step = session.execute().value();
    CHECK(step.status == step_status::failed);
    CHECK_FALSE(step.observation.empty());
    CHECK(step.error.find("not usable JSON") != std::string::npos);
}

TEST_CASE("the failure streak resets on success") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    for (int i = 0; i < 2; ++i) {
        (void)session.open_step().value();
        (void)session.propose(decision::call("nope", "{}")).value();
    }
    CHECK(session.run().failed_streak == 2);
    (void)session.open_step().value();
    (void)session.propose(decision::call("lookup_order", lookup_args)).value();
    (void)session.execute().value();
    CHECK(session.run().failed_streak == 0);
}

TEST_CASE("three consecutive failed steps end the run before a fourth") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    for (int i = 0; i < 3; ++i) {
        REQUIRE(session.open_step().value());
        (void)session.propose(decision::call("nope", "{}")).value();
    }
    CHECK_FALSE(session.open_step().value());
    auto run = session.run();
    CHECK(run.status == run_status::failed);
    CHECK(run.reason == "limit_failures");
    CHECK(event_types(s, run.id).end()[-2] == "limit.exceeded");
}

TEST_CASE("max steps ends the run before the step past it") {
    world w;
    auto s = w.open();
    auto options = w.options();
    options.limits.max_steps = 2;
    options.limits.loop_threshold = 0;
    agentrt::gate g(s, w.table, w.policy, options);
    auto session = g.begin("goal").value();
    for (int i = 0; i < 2; ++i) {
        REQUIRE(session.open_step().value());
        (void)session.propose(decision::call("lookup_order", lookup_args)).value();
        (void)session.execute().value();
    }
    CHECK_FALSE(session.open_step().value());
    CHECK(session.run().reason == "limit_steps");
    CHECK(w.calls["lookup_order"] == 2);
}

TEST_CASE("the elapsed time limit ends the run before the step past it") {
    world w;
    auto s = w.open();
    auto options = w.options();
    options.limits.max_elapsed = std::chrono::seconds(10);
    options.limits.loop_threshold = 0;
    w.replace["lookup_order"] = [&](auto const&, auto const&) -> agentrt::tool_result {
        w.clock.advance(std::chrono::seconds(6));
        return agentrt::tool_output{{{"order", "ord-1"}}, "ok"};
    };
    agentrt::gate g(s, w.table, w.policy, options);
    auto session = g.begin("goal").value();
    for (int i = 0; i < 2; ++i) {
        REQUIRE(session.open_step().value());
        (void)session.propose(decision::call("lookup_order", lookup_args)).value();
        (void)session.execute().value();
    }
    CHECK_FALSE(session.open_step().value()); // 12 s since the run was created
    CHECK(session.run().reason == "limit_elapsed");
    CHECK(w.calls["lookup_order"] == 2);
}

TEST_CASE("the same call with the same result three times is a loop") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    for (int i = 0; i < 3; ++i) {
        REQUIRE(session.open_step().value());
        (void)session.propose(decision::call("lookup_order", lookup_args)).value();
        (void)session.execute().value();
    }
    CHECK_FALSE(session.open_step().value());
    CHECK(session.run().reason == "loop_detected");
    CHECK(event_types(s, "run-1").end()[-2] == "loop.detected");
}

TEST_CASE("a goal beyond its bound is refused before anything is stored") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto big = g.begin(std::string(agentrt::max_goal_bytes + 1, 'g'));
    REQUIRE_FALSE(big);
    CHECK(big.error().code == agentrt::errc::too_large);
    CHECK(agentrt::list_runs(s).empty());
}

TEST_CASE("a decision beyond its bound fails its step, recorded by its size, and counts as a failed step") {
    world w;
    auto s = w.open();
    auto options = w.options();
    options.limits.max_failed_streak = 2;
    agentrt::gate g(s, w.table, w.policy, options);
    auto session = g.begin("goal").value();
    auto huge = [] { return decision::call("lookup_order", std::string(agentrt::max_decision_bytes + 1, ' ')); };
    (void)session.open_step().value();
    auto first = session.propose(huge()).value();
    CHECK(first.status == step_status::failed);
    CHECK(first.decision.empty());
    CHECK(first.arguments.empty());
    CHECK(first.error == "the decision is " + std::to_string(huge().size()) + " bytes; the bound is " +
                             std::to_string(agentrt::max_decision_bytes) + ", so it was not recorded");
    CHECK(session.run().failed_streak == 1);
    CHECK(session.run().status == run_status::running);
    (void)session.open_step().value();
    CHECK(session.propose(huge()).value().status == step_status::failed);
    CHECK(session.open_step().value() == std::nullopt);
    CHECK(session.run().status == run_status::failed);
    CHECK(session.run().reason == agentrt::run_reason::limit_failures);
    CHECK(w.calls.empty());
    CHECK(agentrt::check_invariants(s).ok());
}

TEST_CASE("gate misuse is refused and changes nothing") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    CHECK_FALSE(session.propose(decision::call("lookup_order", lookup_args)));
    CHECK_FALSE(session.execute());
    (void)session.open_step().value();
    auto events = event_types(s, "run-1").size();
    auto second = session.open_step();
    REQUIRE_FALSE(second);
    CHECK(second.error().message == "step 0 is already open: propose its decision first");
    CHECK_FALSE(session.execute());
    (void)session.propose(decision::call("lookup_order", lookup_args)).value();
    CHECK_FALSE(session.open_step());
    (void)session.execute().value();
    auto twice = session.execute();
    REQUIRE_FALSE(twice);
    CHECK(twice.error().code == agentrt::errc::refused);
    CHECK(w.calls["lookup_order"] == 1);
    CHECK(event_types(s, "run-1").size() == events + 5); // decided, policy, started, finished, next started
}

TEST_CASE("a complete decision ends the run goal_completed, a fail decision ends it agent_failed") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto a = g.begin("goal").value();
    (void)a.open_step().value();
    (void)a.propose(decision::complete("done")).value();
    CHECK(a.run().status == run_status::completed);
    auto b = g.begin("goal").value();
    (void)b.open_step().value();
    (void)b.propose(decision::fail("cannot")).value();
    CHECK(b.run().status == run_status::failed);
    CHECK(b.run().reason == "agent_failed");
}

TEST_CASE("failing a run cancels its allowed call that was not executed") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    (void)session.propose(decision::call("send_message", send_args)).value();
    REQUIRE(session.fail("the agent gave up"));
    auto details = agentrt::read_run(s, "run-1").value();
    CHECK(details.run.status == run_status::failed);
    CHECK(details.run.reason == "internal_error");
    CHECK(details.steps.at(0).status == step_status::interrupted);
    CHECK(details.steps.at(0).resolution == "cancelled");
    CHECK_FALSE(session.execute());
    CHECK(w.calls.empty());
    CHECK(agentrt::check_invariants(s).ok());
}

TEST_CASE(
    "a non-read-only tool that overruns its timeout is an interrupted side effect with its late outcome appended") {
    world w;
    w.time_out_tools_after(std::chrono::milliseconds(50));
    std::atomic<bool> release{false};
    w.replace["send_message"] = [&](auto const&, agentrt::call_context const&) -> agentrt::tool_result {
        while (!release)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return agentrt::tool_output{{{"sent", true}}, "sent"};
    };
    auto s = w.open();
    {
        agentrt::gate g(s, w.table, w.policy, w.options());
        auto session = g.begin("goal").value();
        (void)session.open_step().value();
        (void)session.propose(decision::call("send_message", send_args)).value();
        auto step = session.execute().value();
        CHECK(step.status == step_status::interrupted);
        CHECK(step.resolution == "approval");
        CHECK(session.run().status == run_status::waiting_for_approval);
        auto pending = agentrt::pending_approvals(s);
        REQUIRE(pending.size() == 1);
        CHECK(pending[0].kind == "interrupted_side_effect");
        release = true;
    } // the gate waits for the late tool
    auto step = agentrt::read_run(s, "run-1").value().steps[0];
    CHECK(step.late_observation == R"({"sent":true})");
    CHECK(event_types(s, "run-1").back() == "step.tool_finished");
    CHECK(agentrt::read_events(s, "run-1").value().back().data.at("late") == true);
}

TEST_CASE("a late outcome whose recording fails is dropped on the tool's thread, not fatal to the process") {
    world w;
    w.time_out_tools_after(std::chrono::milliseconds(50));
    std::atomic<bool> release{false};
    w.replace["send_message"] = [&](auto const&, agentrt::call_context const&) -> agentrt::tool_result {
        while (!release)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return agentrt::tool_output{{{"sent", true}}, "sent"};
    };
    auto s = w.open();
    std::atomic<int> late_seen{0};
    s.observe([&](agentrt::event_record const& e) {
        if (e.is(agentrt::event_type::step_tool_finished) && e.data.contains("late")) {
            ++late_seen;
            throw std::runtime_error("an observer that fails");
        }
    });
    {
        agentrt::gate g(s, w.table, w.policy, w.options());
        auto session = g.begin("goal").value();
        (void)session.open_step().value();
        (void)session.propose(decision::call("send_message", send_args)).value();
        CHECK(session.execute().value().status == step_status::interrupted);
        release = true;
    } // the gate waits for the late tool, whose recording throws on its thread
    CHECK(late_seen == 1);
    CHECK(agentrt::read_run(s, "run-1").value().steps[0].late_observation == R"({"sent":true})");
}

TEST_CASE("tools that overran their timeout do not pile up threads in a long-lived gate") {
    world w;
    w.time_out_tools_after(std::chrono::milliseconds(5));
    // Each call returns only once the test lets it, after its step has overrun: no timing to race.
    std::atomic<int> started{0}, let_go{0}, returned{0};
    w.replace["lookup_order"] = [&](auto const&, agentrt::call_context const&) -> agentrt::tool_result {
        int const mine = ++started;
        while (let_go.load() < mine)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        ++returned;
        return agentrt::tool_output{{{"order", "ord-1"}}, "ok"};
    };
    // A thread that ended but was never joined keeps its stack mapped (glibc reuses only the stacks of
    // joined threads): count the mappings of a thread stack's size.
    auto stacks = [] {
        pthread_attr_t attr;
        std::size_t stack_size = 0;
        REQUIRE(::pthread_getattr_default_np(&attr) == 0);
        ::pthread_attr_getstacksize(&attr, &stack_size);
        ::pthread_attr_destroy(&attr);
        std::ifstream maps("/proc/self/maps");
        std::string line;
        int n = 0;
        while (std::getline(maps, line)) {
            auto dash = line.find('-'), space = line.find(' ');
            auto from = std::stoull(line.substr(0, dash), nullptr, 16);
            auto to = std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16);
            n += to - from == stack_size && line.compare(space + 1, 4, "rw-p") == 0;
        }
        return n;
    };
    auto s = w.open();
    auto options = w.options();
    options.limits.max_failed_streak = 100;
    options.limits.loop_threshold = 0;
    agentrt::gate g(s, w.table, w.policy, options);
    auto session = g.begin("goal").value();
    auto const before = stacks();
    for (int i = 0; i < 16; ++i) {
        REQUIRE(session.open_step().value());
        (void)session.propose(decision::call("lookup_order", lookup_args)).value();
        REQUIRE(session.execute().value().status == step_status::failed); // overran
        let_go = i + 1;
        while (returned.load() < i + 1)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CHECK(stacks() - before < 8); // glibc keeps a few joined stacks for reuse; never joining keeps all 16
}

TEST_CASE("a read-only tool that overruns its timeout fails its step") {
    world w;
    w.time_out_tools_after(std::chrono::milliseconds(20));
    w.replace["lookup_order"] = [](auto const&, agentrt::call_context const& c) -> agentrt::tool_result {
        while (!c.stop.stop_requested())
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        return agentrt::tool_error("stopped");
    };
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    (void)session.propose(decision::call("lookup_order", lookup_args)).value();
    auto step = session.execute().value();
    CHECK(step.status == step_status::failed);
    CHECK(step.error == "the tool overran its timeout of 20 ms");
    CHECK(session.run().status == run_status::running);
}

TEST_CASE("the policy sees every settled step before its own, and its evaluation records that view") {
    world w;
    std::vector<std::string> seen;
    w.decide = [&](auto const&, auto const&, agentrt::run_view const& v) {
        std::string statuses;
        for (auto const& st : v.steps)
            statuses += std::string(st.status) + " ";
        seen.push_back(statuses);
        return agentrt::allow();
    };
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    (void)session.propose(decision::call("nope", "{}")).value();
    for (auto const* id : {"ord-1", "ord-2"}) {
        (void)session.open_step().value();
        (void)session.propose(decision::call("lookup_order", std::string(R"({"order_id":")") + id + "\"}")).value();
        (void)session.execute().value();
    }
    CHECK(seen == strings{"failed ", "failed done "});
    auto steps = agentrt::read_run(s, "run-1").value().steps;
    CHECK(steps[2].policy->steps_seen == 2);
    CHECK(steps[2].policy->failed_streak == 0);
}

TEST_CASE("no tool is called before the record of its start is committed") {
    world w;
    int seen_by_another_process = -1;
    w.replace["send_message"] = [&](auto const&, auto const&) -> agentrt::tool_result {
        // Another process opens the store file itself and looks for the start record.
        pid_t child = ::fork();
        if (child == 0) {
            MDB_env* env = nullptr;
            MDB_txn* txn = nullptr;
            MDB_dbi dbi = 0;
            mdb_env_create(&env);
            mdb_env_set_maxdbs(env, 16);
            if (mdb_env_open(env, w.store_path.c_str(), MDB_RDONLY, 0600) != 0 ||
                mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn) != 0 || mdb_dbi_open(txn, "steps", 0, &dbi) != 0)
                ::_exit(2);
            std::string key = agentrt::keys::step("run-1", 0);
            MDB_val k{key.size(), key.data()}, v{};
            if (mdb_get(txn, dbi, &k, &v) != 0)
                ::_exit(3);
            std::string row(static_cast<char const*>(v.mv_data), v.mv_size);
            ::_exit(row.find(R"("status":"executing")") != std::string::npos ? 0 : 4);
        }
        int status = 0;
        ::waitpid(child, &status, 0);
        seen_by_another_process = WIFEXITED(status) ? WEXITSTATUS(status) : -2;
        return agentrt::tool_output{{{"sent", true}}, "sent"};
    };
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    auto syncs = s.stats().syncs;
    (void)session.propose(decision::call("send_message", send_args)).value();
    CHECK(s.stats().syncs == syncs + 2); // the data pages and then the meta page, before the call
    (void)session.execute().value();
    CHECK(seen_by_another_process == 0);
}

TEST_CASE("arguments nested as deep as the reader allows are asked about, approved and run like any others") {
    for (std::size_t depth : {31, 40, 250}) {
        CAPTURE(depth);
        world w;
        auto note =
            agentrt::schema_tool("note", "Keep a note.", {{"type", "object"}}, agentrt::side_effect::local_mutation,
                                 std::chrono::seconds(5), [](auto const&, auto const&) -> agentrt::tool_result {
                                     return agentrt::tool_output{{{"kept", true}}, "kept"};
                                 });
        REQUIRE(note);
        w.table = w.table.with(std::vector<agentrt::tool_entry>{*note});
        w.decide = [](auto const&, auto const&, auto const&) { return agentrt::require_approval("note", "notes"); };
        std::string deep;
        for (std::size_t i = 0; i < depth; ++i)
            deep += R"({"a":)";
        deep += "1" + std::string(depth, '}');

        auto s = w.open();
        agentrt::gate g(s, w.table, w.policy, w.options());
        auto session = g.begin("goal").value();
        (void)session.open_step().value();
        auto proposed = session.propose(decision::call("note", deep));
        REQUIRE_MESSAGE(proposed, (proposed ? "" : proposed.error().to_string()));
        CHECK(session.run().status == run_status::waiting_for_approval);
        auto pending = agentrt::pending_approvals(s);
        REQUIRE(pending.size() == 1);
        auto approved = agentrt::approve(s, "run-1", 0, pending[0].hash);
        REQUIRE_MESSAGE(approved, (approved ? "" : approved.error().to_string()));
        w.decide = [](auto const&, auto const&, auto const&) { return agentrt::allow(); };
        auto resumed = g.attach("run-1").value();
        auto step = resumed.execute();
        REQUIRE_MESSAGE(step, (step ? "" : step.error().to_string()));
        CHECK(step->status == step_status::done);
        CHECK(agentrt::verify(s).ok());
    }
}

TEST_CASE("a read that fails before an allowed call runs leaves the call to execute once the fault is gone") {
    world w;
    auto real = w.open();
    auto faulty = std::make_shared<failing_reads>(real.engine());
    agentrt::store s(faulty);
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    (void)session.propose(decision::call("lookup_order", lookup_args)).value();
    REQUIRE(session.pending_execution() == std::optional<std::uint64_t>(0));
    faulty->armed = true;
    auto failed = session.execute();
    REQUIRE_FALSE(failed);
    CHECK(failed.error().code == agentrt::errc::store_failed);
    CHECK(session.pending_execution() == std::optional<std::uint64_t>(0));
    CHECK(w.calls.empty());
    faulty->armed = false;
    auto step = session.execute();
    REQUIRE_MESSAGE(step, (step ? "" : step.error().to_string()));
    CHECK(step->status == step_status::done);
    CHECK(w.calls["lookup_order"] == 1);
}
