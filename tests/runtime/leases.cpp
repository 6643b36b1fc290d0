// Leases, takeover, interrupted side effects and the reconcile hook (include gate.hpp first).
#include <agentrt/runtime/gate.hpp>
#include <agentrt/testkit/scripted_agent.hpp>
#include <agentrt/testkit/simulated_process.hpp>

#include "fixture.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

using namespace runtime_test;
using agentrt::decision;
using agentrt::run_status;
using agentrt::step_status;

TEST_CASE("resuming a run whose holder is alive is refused, naming owner and expiry") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto holder = g.begin("goal").value();
    auto other = g.attach("run-1");
    REQUIRE_FALSE(other);
    CHECK(other.error().code == agentrt::errc::lease_held);
    CHECK(other.error().message == "run run-1 is held by " + holder.owner() + " until " +
                                       std::to_string(w.clock() + 30'000) +
                                       " (lease clock); resume it after that, or stop its holder");
}

TEST_CASE("a lapsed lease starts no side effect") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    (void)session.propose(decision::call("send_message", send_args)).value();
    w.clock.advance(std::chrono::seconds(31));
    auto executed = session.execute();
    REQUIRE_FALSE(executed);
    CHECK(executed.error().code == agentrt::errc::conflict);
    CHECK(executed.error().message.find("lapsed") != std::string::npos);
    CHECK(w.calls.empty());
    // A live but stuck holder loses the run after expiry; its started call is an interrupted side effect.
    auto taken = g.attach("run-1").value();
    auto events = agentrt::read_events(s, "run-1").value();
    auto taken_over = std::find_if(events.begin(), events.end(),
                                   [](auto const& e) { return e.is(agentrt::event_type::lease_taken_over); });
    REQUIRE(taken_over != events.end());
    CHECK(taken_over->data.at("why") == "expired");
    auto step = agentrt::read_run(s, "run-1").value().steps[0];
    CHECK(step.status == step_status::interrupted);
    CHECK(step.interrupted_in == "executing");
    CHECK(taken.run().status == run_status::waiting_for_approval);
    CHECK(w.calls.empty());
}

TEST_CASE("a holder that ended without releasing is taken over at once, its deciding step left behind") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto crashed = g.begin("goal").value();
    (void)crashed.open_step().value();
    crashed.abandon(); // as a crash leaves it: lease held, step deciding
    auto session = g.attach("run-1").value();
    auto details = agentrt::read_run(s, "run-1").value();
    CHECK(details.steps[0].status == step_status::interrupted);
    CHECK(details.steps[0].interrupted_in == "deciding");
    CHECK(details.steps[0].resolution == "left_behind");
    CHECK(details.run.lease.owner == session.owner());
    CHECK(details.run.status == run_status::running);
    REQUIRE(session.open_step().value() == std::optional<std::uint64_t>(1));
}

TEST_CASE("a takeover marks the holder's deciding and executing steps interrupted in its own commit") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto crashed = g.begin("goal").value();
    (void)crashed.open_step().value();
    (void)crashed.propose(decision::call("send_message", send_args)).value();
    crashed.abandon();
    // Observers run after each commit: when the takeover is seen, its commit is the whole store.
    std::vector<std::string> seen_with_takeover;
    s.observe([&](agentrt::event_record const& e) {
        if (e.is(agentrt::event_type::lease_taken_over))
            for (auto const& step : agentrt::read_run(s, "run-1").value().steps)
                seen_with_takeover.push_back(std::string(to_string(step.status)) + " in " + step.interrupted_in);
    });
    (void)g.attach("run-1").value();
    CHECK(seen_with_takeover == std::vector<std::string>{"interrupted in executing"});
}

TEST_CASE("an interrupted read-only call is left behind and the run goes on") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto crashed = g.begin("goal").value();
    (void)crashed.open_step().value();
    (void)crashed.propose(decision::call("lookup_order", lookup_args)).value();
    crashed.abandon();
    auto session = g.attach("run-1").value();
    CHECK(session.run().status == run_status::running);
    CHECK(agentrt::read_run(s, "run-1").value().steps[0].resolution == "left_behind");
    CHECK(agentrt::pending_approvals(s).empty());
}

TEST_CASE(
    "an interrupted side effect is not run again on its own: it waits on an approval and runs once when approved") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto crashed = g.begin("goal").value();
    (void)crashed.open_step().value();
    (void)crashed.propose(decision::call("send_message", send_args)).value();
    crashed.abandon(); // crashed after step.tool_started, before or after the effect
    auto waiting = g.attach("run-1").value();
    CHECK(waiting.run().status == run_status::waiting_for_approval);
    CHECK(w.calls.empty());
    auto pending = agentrt::pending_approvals(s);
    REQUIRE(pending.size() == 1);
    CHECK(pending[0].kind == "interrupted_side_effect");
    REQUIRE(agentrt::approve(s, "run-1", 0, pending[0].hash));
    int asked = 0;
    w.decide = [&](auto const&, auto const&, auto const&) {
        ++asked;
        return agentrt::allow();
    };
    auto resumed = g.attach("run-1").value();
    CHECK(asked == 1);
    REQUIRE(resumed.pending_execution() == std::optional<std::uint64_t>(0));
    auto step = resumed.execute().value();
    CHECK(step.status == step_status::done);
    CHECK(step.attempt == 2);
    CHECK(w.calls["send_message"] == 1);
    CHECK_FALSE(resumed.execute());
    CHECK(w.calls["send_message"] == 1);
}

TEST_CASE("the reconcile hook settles an interrupted side effect: completed, continue or conflict") {
    for (auto answer : {agentrt::reconcile_answer::completed, agentrt::reconcile_answer::continue_run,
                        agentrt::reconcile_answer::conflict}) {
        CAPTURE(static_cast<int>(answer));
        world w;
        auto s = w.open();
        auto options = w.options();
        std::string seen_key;
        options.reconcile = [&](agentrt::step_record const& step, agentrt::tool_entry const& tool) {
            seen_key = step.id() + ":" + tool.name;
            agentrt::reconciliation r;
            r.answer = answer;
            r.observation = {{"sent", "yes, found in the outbox"}};
            r.message = "the outbox disagrees";
            return r;
        };
        agentrt::gate g(s, w.table, w.policy, options);
        auto crashed = g.begin("goal").value();
        (void)crashed.open_step().value();
        (void)crashed.propose(decision::call("send_message", send_args)).value();
        crashed.abandon();
        auto session = g.attach("run-1").value();
        CHECK(seen_key == "run-1/0:send_message");
        auto details = agentrt::read_run(s, "run-1").value();
        CHECK(w.calls.empty());
        CHECK(agentrt::pending_approvals(s).empty());
        if (answer == agentrt::reconcile_answer::completed) {
            CHECK(details.steps[0].status == step_status::done);
            CHECK(details.steps[0].observation == R"({"sent":"yes, found in the outbox"})");
            CHECK(details.run.status == run_status::running);
        } else if (answer == agentrt::reconcile_answer::continue_run) {
            CHECK(details.steps[0].resolution == "reconciled_continue");
            CHECK(details.run.status == run_status::running);
        } else {
            CHECK(details.run.status == run_status::failed);
            CHECK(details.run.reason == "reconcile_conflict");
            CHECK(details.run.message == "the outbox disagrees");
        }
    }
}

TEST_CASE("the reconcile hook may make the run wait on an approval of its own, and the call runs once approved") {
    world w;
    auto s = w.open();
    auto options = w.options();
    options.reconcile = [](agentrt::step_record const&, agentrt::tool_entry const&) {
        agentrt::reconciliation r;
        r.answer = agentrt::reconcile_answer::waiting;
        r.approval = agentrt::require_approval("outbox_check", "the outbox was unreachable", {{"may", "resend"}},
                                               {{"text", "resend the message?"}});
        return r;
    };
    agentrt::gate g(s, w.table, w.policy, options);
    auto crashed = g.begin("goal").value();
    (void)crashed.open_step().value();
    (void)crashed.propose(decision::call("send_message", send_args)).value();
    crashed.abandon();
    auto waiting = g.attach("run-1").value();
    CHECK(waiting.run().status == run_status::waiting_for_approval);
    auto pending = agentrt::pending_approvals(s);
    REQUIRE(pending.size() == 1);
    CHECK(pending[0].kind == "outbox_check");
    CHECK(pending[0].reason == "the outbox was unreachable");
    CHECK(pending[0].capability == boost::json::value{{"may", "resend"}});
    CHECK(w.calls.empty());
    REQUIRE(agentrt::approve(s, "run-1", 0, pending[0].hash));
    auto resumed = g.attach("run-1").value();
    REQUIRE(resumed.pending_execution() == std::optional<std::uint64_t>(0));
    CHECK(resumed.execute().value().status == step_status::done);
    CHECK(w.calls["send_message"] == 1);
}

TEST_CASE("an approved interrupted side effect whose policy asks for its own approval waits again, then runs once") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto crashed = g.begin("goal").value();
    (void)crashed.open_step().value();
    (void)crashed.propose(decision::call("send_message", send_args)).value();
    crashed.abandon();
    (void)g.attach("run-1").value();
    auto interrupted = agentrt::pending_approvals(s).at(0);
    REQUIRE(interrupted.kind == "interrupted_side_effect");
    REQUIRE(agentrt::approve(s, "run-1", 0, interrupted.hash));
    // Since the crash, the policy asks before every message.
    w.decide = [](agentrt::tool_entry const& t, auto const&, auto const&) {
        return t.name == "send_message" ? agentrt::require_approval("external_message", "ask first") : agentrt::allow();
    };
    auto asked = g.attach("run-1").value();
    CHECK(asked.run().status == run_status::waiting_for_approval);
    CHECK_FALSE(asked.pending_execution());
    auto pending = agentrt::pending_approvals(s);
    REQUIRE(pending.size() == 1);
    CHECK(pending[0].kind == "external_message");
    CHECK(w.calls.empty());
    REQUIRE(agentrt::approve(s, "run-1", 0, pending[0].hash));
    auto resumed = g.attach("run-1").value();
    REQUIRE(resumed.pending_execution() == std::optional<std::uint64_t>(0));
    (void)resumed.execute().value();
    CHECK(w.calls["send_message"] == 1);
    CHECK_FALSE(resumed.execute());
    CHECK(w.calls["send_message"] == 1);
}

namespace {

void wait_for_child(pid_t child, int expected_status) {
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == expected_status);
}

} // namespace

TEST_CASE("a run held by a dead process is taken over at once") {
    world w;
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        auto s = agentrt::store::open(w.store_path);
        if (!s)
            ::_exit(2);
        agentrt::gate g(*s, w.table, w.policy, w.options());
        auto session = g.begin("goal");
        if (!session || !session->open_step())
            ::_exit(3);
        ::_exit(0); // dies holding the lease, its step deciding
    }
    wait_for_child(child, 0);
    auto s = w.open();
    CHECK_FALSE(agentrt::read_run(s, "run-1").value().run.lease.owner.empty());
    CHECK(agentrt::ready_runs(s, w.clock()) == std::vector<std::string>{"run-1"});
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.attach("run-1").value(); // no clock advance: the holder is dead
    auto events = agentrt::read_events(s, "run-1").value();
    auto taken = std::find_if(events.begin(), events.end(),
                              [](auto const& e) { return e.is(agentrt::event_type::lease_taken_over); });
    REQUIRE(taken != events.end());
    CHECK(taken->data.at("why") == "holder_dead");
}

TEST_CASE("two concurrent resumes execute once") {
    world w;
    fs::path effects = w.dir.path / "effects";
    w.decide = [](agentrt::tool_entry const& t, auto const&, auto const&) {
        return t.name == "send_message" ? agentrt::require_approval("send", "ask") : agentrt::allow();
    };
    {
        auto s = w.open();
        agentrt::testkit::scripted_agent agent({decision::call("send_message", send_args)});
        agentrt::driver d(s, w.table, w.policy, agent, w.options());
        REQUIRE(d.start("goal").value().status == run_status::waiting_for_approval);
        auto pending = agentrt::pending_approvals(s).at(0);
        REQUIRE(agentrt::approve(s, "run-1", 0, pending.hash));
    }
    w.replace["send_message"] = [&](auto const&, auto const&) -> agentrt::tool_result {
        int fd = ::open(effects.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
        REQUIRE(fd >= 0);
        REQUIRE(::write(fd, "x", 1) == 1);
        ::close(fd);
        return agentrt::tool_output{{{"sent", true}}, "sent"};
    };
    int go[2];
    REQUIRE(::pipe(go) == 0);
    std::vector<pid_t> children;
    for (int i = 0; i < 2; ++i) {
        pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            ::close(go[1]);
            char c;
            (void)::read(go[0], &c, 1); // both start together
            auto s = agentrt::store::open(w.store_path);
            if (!s)
                ::_exit(2);
            agentrt::testkit::scripted_agent agent(
                {decision::call("send_message", send_args), decision::complete("done")});
            agentrt::driver d(*s, w.table, w.policy, agent, w.options());
            auto run = d.resume("run-1");
            ::_exit(run && run->status == run_status::completed ? 0 : 1);
        }
        children.push_back(child);
    }
    ::close(go[0]);
    ::close(go[1]); // releases both
    int won = 0;
    for (pid_t child : children) {
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        REQUIRE(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) <= 1);
        won += WEXITSTATUS(status) == 0;
    }
    CHECK(won == 1);
    std::ifstream in(effects);
    std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(written == "x");
    auto s = w.open();
    CHECK(agentrt::read_run(s, "run-1").value().run.status == run_status::completed);
    CHECK(agentrt::check_invariants(s).ok());
}

TEST_CASE("a step opened before its session released the run is left behind on attach") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    {
        auto session = g.begin("goal").value();
        (void)session.open_step().value();
        (void)session.propose(decision::call("lookup_order", lookup_args)).value();
        (void)session.execute().value(); // also opened step 1
        REQUIRE(session.release());
    }
    auto session = g.attach("run-1").value();
    auto step = agentrt::read_run(s, "run-1").value().steps.at(1);
    CHECK(step.status == step_status::interrupted);
    CHECK(step.resolution == "left_behind");
    CHECK(session.open_step().value() == std::optional<std::uint64_t>(2));
}

TEST_CASE("a tool call started before its session released the run is an interrupted side effect on attach") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    {
        auto session = g.begin("goal").value();
        (void)session.open_step().value();
        (void)session.propose(decision::call("send_message", send_args)).value();
        w.clock.advance(std::chrono::seconds(31));
        REQUIRE_FALSE(session.execute()); // the lease lapsed: the tool start is recorded, its outcome never
        REQUIRE(session.release());
    }
    auto resumed = g.attach("run-1").value();
    auto step = agentrt::read_run(s, "run-1").value().steps.at(0);
    CHECK(step.status == step_status::interrupted);
    CHECK(step.interrupted_in == "executing");
    CHECK(resumed.run().status == run_status::waiting_for_approval);
    auto pending = agentrt::pending_approvals(s);
    REQUIRE(pending.size() == 1);
    CHECK(pending[0].kind == "interrupted_side_effect");
    CHECK(w.calls.empty());
    CHECK(agentrt::check_invariants(s).ok());
}

TEST_CASE("a read-only call started before its session released the run is left behind on attach") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    {
        auto session = g.begin("goal").value();
        (void)session.open_step().value();
        (void)session.propose(decision::call("lookup_order", lookup_args)).value();
        REQUIRE(session.release());
    }
    auto resumed = g.attach("run-1").value();
    auto step = agentrt::read_run(s, "run-1").value().steps.at(0);
    CHECK(step.status == step_status::interrupted);
    CHECK(step.resolution == "left_behind");
    CHECK(resumed.open_step().value() == std::optional<std::uint64_t>(1));
    CHECK(agentrt::pending_approvals(s).empty());
}

TEST_CASE("a session that lost its lease to a takeover writes nothing and releases nothing of its successor's") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto stale = g.begin("goal").value();
    w.clock.advance(std::chrono::seconds(31));
    auto successor = g.attach("run-1").value();
    auto before = agentrt::read_events(s, "run-1").value().size();
    auto opened = stale.open_step();
    REQUIRE_FALSE(opened);
    CHECK(opened.error().code == agentrt::errc::conflict);
    auto released = stale.release();
    REQUIRE_FALSE(released);
    CHECK(released.error().code == agentrt::errc::conflict);
    CHECK(agentrt::read_events(s, "run-1").value().size() == before);
    CHECK(agentrt::read_run(s, "run-1").value().run.lease.owner == successor.owner());
    CHECK(successor.open_step().value() == std::optional<std::uint64_t>(0));
}

TEST_CASE("every take of a run raises its lease epoch, and a release keeps it") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto first = g.begin("goal").value();
    CHECK(first.lease_epoch() == 1);
    CHECK(first.run().lease.epoch == 1);
    first.release().value();
    auto released = agentrt::read_run(s, "run-1").value().run.lease;
    CHECK(released.owner.empty());
    CHECK(released.epoch == 1);
    auto second = g.attach("run-1").value();
    CHECK(second.lease_epoch() == 2);
    second.abandon(); // as a crash leaves it
    auto third = g.attach("run-1").value();
    CHECK(third.lease_epoch() == 3);
    CHECK(third.run().lease.owner == third.owner());
}

TEST_CASE("a holder whose epoch is not the run's changes nothing, even under its own name") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto stale = g.begin("goal").value();
    // The run taken again by a holder of the same name (what an engine that fences by epoch alone sees).
    s.write([&](agentrt::store_writer& wr) {
        auto run = wr.run("run-1").value();
        ++run.lease.epoch;
        wr.put(run);
    });
    auto before = agentrt::read_events(s, "run-1").value().size();
    auto opened = stale.open_step();
    REQUIRE_FALSE(opened);
    CHECK(opened.error().code == agentrt::errc::conflict);
    CHECK(opened.error().message ==
          "this session no longer holds run run-1: it was taken again (lease epoch 2, not 1)");
    auto released = stale.release();
    REQUIRE_FALSE(released);
    CHECK(released.error().code == agentrt::errc::conflict);
    CHECK(agentrt::read_events(s, "run-1").value().size() == before);
    CHECK(agentrt::read_run(s, "run-1").value().run.lease.owner == stale.owner()); // not released by the stale holder
}

TEST_CASE("a lease just taken is alive to the other threads of its process as soon as it is committed") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    // Observers run right after the commit, before begin or attach returns: the moment another
    // thread (a worker looking for ready runs) can first see the new lease.
    std::vector<std::string> ready_when_committed;
    s.observe([&](agentrt::event_record const& e) {
        if (e.is(agentrt::event_type::run_started) || e.is(agentrt::event_type::run_resumed))
            for (auto const& id : agentrt::ready_runs(s, w.clock()))
                ready_when_committed.push_back(e.type + " " + id);
    });
    {
        auto session = g.begin("goal").value();
        REQUIRE(session.release());
    }
    auto resumed = g.attach("run-1").value();
    CHECK(ready_when_committed.empty());
    CHECK(agentrt::ready_runs(s, w.clock()).empty());
}

TEST_CASE("a simulated process that crashed writes nothing more, from any thread") {
    world w;
    auto primary = w.open();
    agentrt::testkit::simulated_machine machine(primary);
    auto dying = machine.process();
    CHECK(dying.process_id() != primary.process_id());
    agentrt::gate g(dying, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    auto before = agentrt::read_events(primary, "run-1").value().size();
    dying.crash();
    CHECK(dying.crashed());
    CHECK_THROWS_AS(session.open_step(), agentrt::testkit::simulated_process_crashed);
    std::thread other([&] {
        CHECK_THROWS_AS(dying.write([](agentrt::store_writer& wr) { wr.put_meta("late", "x"); }),
                        agentrt::testkit::simulated_process_crashed);
    });
    other.join();
    CHECK(agentrt::read_events(primary, "run-1").value().size() == before);
    CHECK_FALSE(primary.read([](agentrt::store_reader const& r) { return r.meta("late"); }));
}

TEST_CASE("the lease of a crashed simulated process stays held and is taken over at once") {
    world w;
    auto primary = w.open();
    agentrt::testkit::simulated_machine machine(primary);
    std::string holder;
    {
        auto dying = machine.process();
        agentrt::gate g(dying, w.table, w.policy, w.options());
        auto session = g.begin("goal").value();
        holder = session.owner();
        (void)session.open_step().value();
        dying.crash();
    } // the session's release on destruction reaches nothing
    auto run = agentrt::read_run(primary, "run-1").value().run;
    CHECK(run.lease.owner == holder);
    CHECK_FALSE(machine.alive(run.lease.pid));
    auto next = machine.process();
    agentrt::gate g(next, w.table, w.policy, w.options());
    auto session = g.attach("run-1").value(); // no clock advance: the holder is dead
    auto events = agentrt::read_events(primary, "run-1").value();
    auto taken = std::find_if(events.begin(), events.end(),
                              [](auto const& e) { return e.is(agentrt::event_type::lease_taken_over); });
    REQUIRE(taken != events.end());
    CHECK(taken->data.at("why") == "holder_dead");
}

TEST_CASE("assigning over a session whose process crashed does not end the program") {
    world w;
    auto primary = w.open();
    agentrt::testkit::simulated_machine machine(primary);
    auto dying = machine.process();
    agentrt::gate other(primary, w.table, w.policy, w.options());
    agentrt::gate g(dying, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    dying.crash();
    session = other.begin("another goal", "run-2").value(); // the release of run-1 throws inside
    CHECK(session.run().id == "run-2");
    CHECK(agentrt::read_run(primary, "run-1").value().run.lease.pid == dying.process_id());
}

TEST_CASE("a live simulated process holds its lease like a live process") {
    world w;
    auto primary = w.open();
    agentrt::testkit::simulated_machine machine(primary);
    auto holder = machine.process();
    agentrt::gate first(holder, w.table, w.policy, w.options());
    auto session = first.begin("goal").value();
    CHECK(machine.alive(holder.process_id()));
    auto other = machine.process();
    agentrt::gate second(other, w.table, w.policy, w.options());
    auto refused = second.attach("run-1");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == agentrt::errc::lease_held);
}

TEST_CASE("a simulated process sees the test's own process alive") {
    world w;
    auto primary = w.open();
    agentrt::testkit::simulated_machine machine(primary);
    agentrt::gate own(primary, w.table, w.policy, w.options());
    auto session = own.begin("goal").value();
    auto other = machine.process();
    agentrt::gate second(other, w.table, w.policy, w.options());
    auto refused = second.attach("run-1");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == agentrt::errc::lease_held);
}

TEST_CASE("a lease is renewed while a tool longer than the lease works") {
    world w;
    auto s = w.open();
    auto options = w.options();
    options.lease_duration = short_lease;
    w.replace["send_message"] = [&](agentrt::arguments const&, agentrt::call_context const&) -> agentrt::tool_result {
        work_longer_than_the_lease(w, s);
        return agentrt::tool_output{{{"sent", true}}, "sent"};
    };
    agentrt::gate g(s, w.table, w.policy, options);
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    (void)session.propose(decision::call("send_message", send_args)).value();
    auto step = session.execute().value();
    CHECK(step.status == step_status::done);
    check_lease_kept(w, s, session, options);
}

TEST_CASE("a tool started late in its lease renews the lease before it would lapse") {
    world w;
    auto s = w.open();
    auto options = w.options();
    options.lease_duration = std::chrono::seconds(3); // renewed every second while a call works
    w.replace["send_message"] = [&](agentrt::arguments const&, agentrt::call_context const&) -> agentrt::tool_result {
        // 100 ms of the lease were left at the start: it must be renewed well before the first second.
        auto renewed_after = w.clock() + 2'000;
        auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(600);
        while (agentrt::read_run(s, "run-1").value().run.lease.expiry_ms < renewed_after &&
               std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        w.clock.advance(std::chrono::milliseconds(200)); // past the expiry as it was at the start
        return agentrt::tool_output{{{"sent", true}}, "sent"};
    };
    agentrt::gate g(s, w.table, w.policy, options);
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    (void)session.propose(decision::call("send_message", send_args)).value();
    w.clock.advance(std::chrono::milliseconds(2'900));
    auto step = session.execute().value();
    CHECK(step.status == step_status::done);
    check_lease_kept(w, s, session, options);
}

TEST_CASE("a takeover of a run that waits for an approval it does not have is refused and writes nothing") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto crashed = g.begin("goal").value();
    (void)crashed.open_step().value();
    crashed.abandon();                       // a takeover would interrupt the open step
    s.write([&](agentrt::store_writer& wr) { // a contradictory store: it waits, and nothing is pending
        auto run = wr.run("run-1").value();
        run.status = run_status::waiting_for_approval;
        wr.put(run);
    });
    auto before = agentrt::read_events(s, "run-1").value().size();
    auto attached = g.attach("run-1");
    REQUIRE_FALSE(attached);
    CHECK(attached.error().code == agentrt::errc::store_failed);
    CHECK(agentrt::read_events(s, "run-1").value().size() == before);
    CHECK(agentrt::read_run(s, "run-1").value().run.event_count == before);
}
