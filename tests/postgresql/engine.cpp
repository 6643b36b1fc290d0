// The PostgreSQL engine, against a real server the tests start (tests/support/postgres-server).
#include <agentrt/runtime.hpp>
#include <agentrt/testkit/scripted_agent.hpp>
#include <agentrt/testkit/store_contract.hpp>

#include "cli/command.hpp"
#include "runtime/fixture.hpp"
#include "support/postgres.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <limits>
#include <mutex>
#include <optional>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace runtime_test;
using agentrt::decision;
using agentrt::run_status;
using test_support::fresh_postgres_store;

namespace {

agentrt::store open_pg(std::string const& where, agentrt::store_options options = {}) {
    auto s = agentrt::store::open(where, options);
    REQUIRE_MESSAGE(s, (s ? std::string() : s.error().to_string()));
    return std::move(*s);
}

} // namespace

TEST_CASE("the store contract holds") {
    auto where = fresh_postgres_store();
    CHECK(agentrt::testkit::check_store_contract([&] { return open_pg(where); }));
}

TEST_CASE("the engine contract holds, at both durability levels") {
    for (auto level : {agentrt::durability::power_loss, agentrt::durability::process_crash}) {
        auto where = fresh_postgres_store();
        CHECK(agentrt::testkit::check_engine_contract([&] { return open_pg(where, {.durability = level}).engine(); }));
    }
}

TEST_CASE("a run goes from begin to completed, and check and verify pass on it") {
    world w;
    auto s = open_pg(fresh_postgres_store());
    agentrt::testkit::scripted_agent agent({decision::call("lookup_order", lookup_args),
                                            decision::call("send_message", send_args), decision::complete("done")});
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    auto run = d.start("mail the customer");
    REQUIRE_MESSAGE(run, run.error().to_string());
    CHECK(run->status == run_status::completed);
    CHECK(w.calls["lookup_order"] == 1);
    CHECK(w.calls["send_message"] == 1);
    CHECK(agentrt::read_run(s, run->id).value().steps.size() == 3);
    CHECK(agentrt::check_invariants(s).ok());
    auto chains = agentrt::verify(s);
    CHECK_MESSAGE(chains.ok(), chains.first_break);
    CHECK(chains.events == run->event_count);
}

TEST_CASE("an operator open never creates a store, and a writer's store opens for an operator") {
    auto where = fresh_postgres_store();
    auto op = agentrt::store::open(where, {.access = agentrt::store_access::operator_only});
    REQUIRE_FALSE(op);
    CHECK(op.error().code == agentrt::errc::not_found);
    CHECK(op.error().message == "no store at " + where + " (an operator never creates one)");
    { auto writer = open_pg(where); }
    auto again = agentrt::store::open(where, {.access = agentrt::store_access::operator_only});
    CHECK_MESSAGE(again, (again ? std::string() : again.error().to_string()));
}

TEST_CASE("a store of a newer schema version is refused by name") {
    auto where = fresh_postgres_store();
    {
        auto s = open_pg(where);
        s.write([](agentrt::store_writer& w) { w.put_meta("schema_version", "4"); });
    }
    auto s = agentrt::store::open(where);
    REQUIRE_FALSE(s);
    CHECK(s.error().message ==
          "store " + where + " has schema version 4, newer than this library's 3: open it with a newer agentrt");
}

TEST_CASE("a location's password never appears in what the store says of itself") {
    auto s = agentrt::store::open("postgresql://agentrt:s3cret@127.0.0.1:1/nowhere?connect_timeout=2");
    REQUIRE_FALSE(s);
    CHECK(s.error().code == agentrt::errc::store_failed);
    CHECK(s.error().message.find("s3cret") == std::string::npos);
    CHECK(s.error().message.find("postgresql://agentrt:***@127.0.0.1:1/nowhere") != std::string::npos);
}

// The statements a store sent, as the server logged them: one log entry per round trip (a simple
// query carries all its statements in one message). The liveness check is not a step's.
int round_trips(std::string const& log) {
    int n = 0;
    for (auto at = log.find("statement: "); at != std::string::npos; at = log.find("statement: ", at + 1))
        if (log.compare(at, 21, "statement: SELECT 1\n") != 0)
            ++n;
    return n;
}

// The round trips of `steps` tool call steps of one run.
int round_trips_of_steps(int steps) {
    world w;
    test_support::private_postgres_server server;
    auto s = agentrt::store::open(server.uri() + "&options=-clog_statement%3Dall").value();
    auto options = w.options();
    options.limits.loop_threshold = 0; // the same call again and again is the point here
    agentrt::gate g(s, w.table, w.policy, options);
    auto session = g.begin("count the round trips").value();
    (void)session.open_step().value();
    int const before = round_trips(server.log());
    for (int i = 0; i < steps; ++i) {
        REQUIRE(session.propose(decision::call("lookup_order", lookup_args)).value().status ==
                agentrt::step_status::executing);
        REQUIRE(session.execute().value().status == agentrt::step_status::done);
        (void)session.open_step().value();
    }
    CHECK(w.calls["lookup_order"] == steps);
    return round_trips(server.log()) - before;
}

TEST_CASE("a tool call step costs three round trips: the policy's view is the run as the worker last saw it, the "
          "check before the tool one statement, and each write one message of the run's lock, its digest, its "
          "writes and COMMIT") {
    constexpr int steps = 5;
    int const sent = round_trips_of_steps(steps);
    // The check before the tool, and two writes (the tool's start, its outcome with the next step),
    // one round trip each; the policy's view costs none.
    CHECK(sent <= 3 * steps);
    CHECK(sent >= 2 * steps); // the log is the one the store's sessions write
}

TEST_CASE("a policy that decided on the run as this worker last saw it decides again when another worker changed "
          "the run meanwhile: the decision written is taken from the run as it is") {
    auto where = fresh_postgres_store();
    auto s = open_pg(where);
    auto other = open_pg(where); // its own connections: what this worker saw is not refreshed by its write
    check_policy_decides_again_on_a_changed_run(s, other);
}

TEST_CASE("a session moved between threads hands its policy each step as it is, not as a thread last saw it") {
    auto s = open_pg(fresh_postgres_store());
    world w;
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("move between threads").value();
    (void)session.open_step().value();
    REQUIRE(session.propose(decision::call("lookup_order", lookup_args)).value().status ==
            agentrt::step_status::executing); // this thread last saw step 0 executing
    std::optional<agentrt::result<agentrt::step_record>> executed;
    std::thread([&] { executed = session.execute(); }).join(); // another finishes it
    REQUIRE_MESSAGE(*executed, executed->error().to_string());
    std::vector<std::string> step_0_seen;
    w.decide = [&](auto const&, auto const&, agentrt::run_view const& view) {
        step_0_seen.emplace_back(view.steps.empty() ? "none" : view.steps[0].status);
        return agentrt::allow();
    };
    (void)session.open_step().value();
    REQUIRE(session.propose(decision::call("lookup_order", lookup_args)));
    // The first look may be at step 0 as this thread saw it; the decision written is taken from
    // step 0 as it is.
    REQUIRE_FALSE(step_0_seen.empty());
    CHECK(step_0_seen.back() == "done");
}

TEST_CASE("a write taken from what a worker saw before another worker changed the run is refused by the server and "
          "run again from fresh reads: no change is lost") {
    auto where = fresh_postgres_store();
    auto s = open_pg(where);
    auto other = open_pg(where); // its own connections, its own view
    world w;
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto id = g.begin("two writers").value().run_id();
    auto goal_of = [&](agentrt::store const& store) {
        return store.read([&](agentrt::store_reader const& r) { return r.run(id).value().goal; });
    };
    CHECK(goal_of(s) == "two writers"); // what this thread saw of the run, through `s`
    other.write([&](agentrt::store_writer& writer) {
        auto run = writer.run(id).value();
        run.goal += ", changed by the other";
        writer.put(run);
    });
    int attempts = 0;
    s.write([&](agentrt::store_writer& writer) {
        ++attempts;
        auto run = writer.run(id).value();
        run.goal += ", then by this one";
        writer.put(run);
    });
    CHECK(attempts == 2); // the first, from what it had seen, was refused
    CHECK(goal_of(other) == "two writers, changed by the other, then by this one");
    CHECK(agentrt::check_invariants(s).ok());
}

int occurrences(std::string const& log, std::string_view what) {
    int n = 0;
    for (auto at = log.find(what); at != std::string::npos; at = log.find(what, at + 1))
        ++n;
    return n;
}

TEST_CASE("each connection prepares a step's statements once, so that the server plans them once, not at every "
          "step") {
    world w;
    test_support::private_postgres_server server;
    auto s = agentrt::store::open(server.uri() + "&options=-clog_statement%3Dall").value();
    auto options = w.options();
    options.limits.loop_threshold = 0;
    agentrt::gate g(s, w.table, w.policy, options);
    auto session = g.begin("prepared once").value();
    auto steps = [&](int n) {
        for (int i = 0; i < n; ++i) {
            (void)session.open_step().value();
            REQUIRE(session.propose(decision::call("lookup_order", lookup_args)).value().status ==
                    agentrt::step_status::executing);
            REQUIRE(session.execute().value().status == agentrt::step_status::done);
        }
    };
    steps(3);
    auto const log = server.log();
    int const preparations = occurrences(log, "statement: DEALLOCATE ALL;");
    CHECK(preparations >= 1);
    CHECK(occurrences(log, "EXECUTE agentrt_2_run_bundle(") >= 3); // the check before each tool
    CHECK(occurrences(log, "EXECUTE agentrt_2_put_step(") >= 2 * 3);
    steps(5);
    auto const later = server.log();
    CHECK(occurrences(later, "statement: DEALLOCATE ALL;") == preparations); // the same connections
    CHECK(occurrences(later, "EXECUTE agentrt_2_run_bundle(") >= 8);
    // No statement's text again, but in the log's note of what each EXECUTE runs ("prepare: ... AS").
    auto const since = later.substr(log.size());
    CHECK(occurrences(since, "INSERT INTO agentrt_steps") == occurrences(since, "AS INSERT INTO agentrt_steps"));
    CHECK(occurrences(since, "SELECT 0, 0::bigint") == occurrences(since, "AS SELECT 0, 0::bigint"));
}

TEST_CASE("with prepared_statements off, as behind a pooler of transactions, the store sends its statements as text "
          "and keeps the same records") {
    world w;
    test_support::private_postgres_server server;
    agentrt::store_options options;
    options.postgresql.prepared_statements = false;
    auto s = open_pg(server.uri() + "&options=-clog_statement%3Dall", options);
    agentrt::testkit::scripted_agent agent({decision::call("lookup_order", lookup_args),
                                            decision::call("send_message", send_args), decision::complete("done")});
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    auto run = d.start("no prepared statements");
    REQUIRE_MESSAGE(run, run.error().to_string());
    CHECK(run->status == run_status::completed);
    CHECK(agentrt::read_run(s, run->id).value().steps.size() == 3);
    CHECK(agentrt::verify(s).ok());
    auto const log = server.log();
    CHECK(occurrences(log, "PREPARE") == 0);
    CHECK(occurrences(log, "EXECUTE") == 0);
    CHECK(occurrences(log, "INSERT INTO agentrt_steps") >= 3);
}

TEST_CASE("a read of several statements sees one snapshot, though a write commits between them") {
    world w;
    auto where = fresh_postgres_store();
    auto s = open_pg(where);
    auto other = open_pg(where); // its own connections
    agentrt::gate g(other, w.table, w.policy, w.options());
    auto session = g.begin("write while the other reads").value();
    int attempts = 0;
    auto seen = s.read([&](agentrt::store_reader const& r) {
        ++attempts;
        auto run = r.run(session.run_id());
        REQUIRE(run);
        if (attempts == 1)
            (void)session.open_step().value();
        else
            (void)session.propose(decision::call("lookup_order", lookup_args)).value();
        return std::pair(run->event_count, r.events(session.run_id()).size());
    });
    CHECK(seen.first == seen.second);
    CHECK(attempts == 2); // its first statement went alone; then the read ran again as a transaction
}

TEST_CASE("a run held by a killed worker of another process is taken over at once") {
    world w;
    auto where = fresh_postgres_store();
    auto parent = open_pg(where);
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    pid_t child = ::fork();
    if (child == 0) {
        auto s = agentrt::store::open(where);
        if (!s)
            ::_exit(1);
        agentrt::gate g(*s, w.table, w.policy, w.options());
        auto session = g.begin("held by a worker that dies", "run-held");
        if (!session || !session->open_step())
            ::_exit(2);
        char byte = 1;
        (void)!::write(ready[1], &byte, 1);
        ::pause(); // holds the lease until killed
        ::_exit(0);
    }
    char byte = 0;
    REQUIRE(::read(ready[0], &byte, 1) == 1);
    agentrt::gate g(parent, w.table, w.policy, w.options());
    auto refused = g.attach("run-held");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == agentrt::errc::lease_held); // alive: its connection holds the lock
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    ::close(ready[0]);
    ::close(ready[1]);
    // The server ends the dead process's connections, and their advisory locks with them, at once;
    // the lease itself is far from its expiry (the world's clock does not move).
    std::optional<agentrt::session> taken;
    for (int i = 0; i < 200 && !taken; ++i) {
        auto attached = g.attach("run-held");
        if (attached)
            taken.emplace(std::move(*attached));
        else
            ::usleep(10'000);
    }
    REQUIRE(taken);
    auto events = agentrt::read_events(parent, "run-held").value();
    auto over = std::find_if(events.begin(), events.end(),
                             [](auto const& e) { return e.is(agentrt::event_type::lease_taken_over); });
    REQUIRE(over != events.end());
    CHECK(over->data.at("why") == "holder_dead");
    CHECK(taken->lease_epoch() == 2);
}

TEST_CASE("the agentrt command reads, checks and decides on a PostgreSQL store, given by --store or AGENTRT_STORE") {
    world w;
    w.decide = cli_test::ask_for_send;
    auto where = fresh_postgres_store();
    auto s = open_pg(where);
    auto done = cli_test::run_to_completion(w, s);
    auto waiting = cli_test::start_waiting(w, s);

    auto runs = cli_test::on_store(where, {"runs"});
    SHOW(runs);
    CHECK(runs.status == 0);
    CHECK(runs.out.find(done) != std::string::npos);
    CHECK(runs.out.find("waiting_for_approval") != std::string::npos);
    auto pending = cli_test::run_command({"pending"}, {.env = {"AGENTRT_STORE=" + where}});
    SHOW(pending);
    CHECK(pending.status == 0);
    CHECK(pending.out.find(waiting) != std::string::npos);
    auto approved = cli_test::on_store(where, {"approve", waiting, "--yes", "--by", "ana"});
    SHOW(approved);
    CHECK(approved.status == 0);
    CHECK(agentrt::read_run(s, waiting).value().approvals.at(0).status == agentrt::approval_status::approved);
    for (std::string command : {"check", "verify"}) {
        auto o = cli_test::on_store(where, {command});
        SHOW(o);
        CHECK(o.status == 0);
    }
    auto backup = cli_test::on_store(where, {"backup", (w.dir.path / "copy").string()});
    SHOW(backup);
    CHECK(backup.status != 0);
    CHECK(backup.err.find("back it up with the database's own tools") != std::string::npos);
}

TEST_CASE("agentrt copy moves a store from LMDB to PostgreSQL and back, every record and chain intact") {
    world w;
    w.decide = cli_test::ask_for_send;
    std::string first, kept, waiting;
    {
        auto s = w.open();
        first = cli_test::run_to_completion(w, s, "pruned later");
        w.clock.advance(std::chrono::hours(1));
        kept = cli_test::run_to_completion(w, s, "kept");
        waiting = cli_test::start_waiting(w, s);
        // The first run is pruned: the copy must carry what verify needs to accept the gap.
        auto pruned = agentrt::prune(s, w.clock() - 1000);
        REQUIRE(pruned);
        REQUIRE(pruned->runs == std::vector<std::string>{first});
    }
    auto postgres = fresh_postgres_store();
    auto there = cli_test::run_command({"copy", w.store_path.string(), postgres});
    SHOW(there);
    REQUIRE(there.status == 0);
    CHECK(there.out.find("copied 2 run(s)") != std::string::npos);
    auto verified = cli_test::on_store(postgres, {"verify"});
    SHOW(verified);
    CHECK(verified.status == 0);

    fs::path back = w.dir.path / "back";
    auto home = cli_test::run_command({"copy", postgres, back.string()});
    SHOW(home);
    REQUIRE(home.status == 0);
    for (auto const& where : {postgres, back.string()}) {
        auto v = cli_test::on_store(where, {"verify"});
        SHOW(v);
        CHECK(v.status == 0);
        auto c = cli_test::on_store(where, {"check"});
        SHOW(c);
        CHECK(c.status == 0);
    }
    auto original = agentrt::store::open(w.store_path).value();
    auto copy = agentrt::store::open(back).value();
    for (auto const& id : {kept, waiting}) {
        auto a = agentrt::read_run(original, id).value();
        auto b = agentrt::read_run(copy, id).value();
        CHECK(b.run.status == a.run.status);
        CHECK(b.run.head == a.run.head);
        CHECK(b.steps.size() == a.steps.size());
        CHECK(b.approvals.size() == a.approvals.size());
        auto ea = agentrt::read_events(original, id).value();
        auto eb = agentrt::read_events(copy, id).value();
        REQUIRE(eb.size() == ea.size());
        for (std::size_t i = 0; i < ea.size(); ++i)
            CHECK(eb[i].hash == ea[i].hash);
    }
    // The approval waiting in the original can be decided on the copy.
    auto approved = cli_test::on_store(back, {"approve", waiting, "--yes", "--by", "ana"});
    SHOW(approved);
    CHECK(approved.status == 0);
}

TEST_CASE("agentrt copy refuses a destination that holds runs, and changes nothing") {
    world w;
    auto where = fresh_postgres_store();
    {
        auto s = w.open();
        cli_test::run_to_completion(w, s);
    }
    {
        auto pg = open_pg(where);
        cli_test::run_to_completion(w, pg, "already here");
    }
    auto o = cli_test::run_command({"copy", w.store_path.string(), where});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.err.find("already holds runs: copy into a new, empty store; nothing copied") != std::string::npos);
    CHECK(agentrt::list_runs(open_pg(where)).size() == 1);
}

TEST_CASE("sixteen runs begun and driven at once, each on a thread and gate of its own, all complete: writers queue "
          "on rows instead of giving up") {
    world w;
    auto s = open_pg(fresh_postgres_store(), {.durability = agentrt::durability::process_crash});
    std::vector<std::thread> threads;
    std::atomic<int> completed{0};
    std::mutex failures_mutex;
    std::vector<std::string> failures;
    for (int t = 0; t < 16; ++t)
        threads.emplace_back([&, t] {
            agentrt::testkit::scripted_agent agent({decision::call("lookup_order", lookup_args),
                                                    decision::call("lookup_order", R"({"order_id":"ord-2"})"),
                                                    decision::complete("done")});
            agentrt::driver d(s, w.table, w.policy, agent, w.options());
            for (int r = 0; r < 3; ++r) {
                auto run = d.start("concurrent", "run-" + std::to_string(t) + "-" + std::to_string(r));
                if (run && run->status == run_status::completed) {
                    ++completed;
                } else {
                    std::lock_guard lock(failures_mutex);
                    failures.push_back(run ? std::string(agentrt::to_string(run->status)) : run.error().to_string());
                }
            }
        });
    for (auto& t : threads)
        t.join();
    CHECK_MESSAGE(failures.empty(), (failures.empty() ? std::string() : failures.front()));
    CHECK(completed == 48);
    CHECK(agentrt::verify(s).ok()); // the chain of runs holds, however the creations interleaved
    CHECK(agentrt::check_invariants(s).ok());
}

TEST_CASE("prune running beside workers removes only ended runs, and the chain of runs still verifies") {
    world w;
    auto s = open_pg(fresh_postgres_store(), {.durability = agentrt::durability::process_crash});
    std::atomic<bool> working{true};
    std::atomic<int> completed{0};
    std::mutex mutex;
    std::vector<std::string> failures, pruned;
    std::vector<std::string> gone; // runs that ended and were pruned before their driver read them back
    std::vector<std::thread> workers;
    for (int t = 0; t < 4; ++t)
        workers.emplace_back([&, t] {
            agentrt::testkit::scripted_agent agent(
                {decision::call("lookup_order", lookup_args), decision::complete("done")});
            agentrt::driver d(s, w.table, w.policy, agent, w.options());
            for (int r = 0; r < 10; ++r) {
                std::string id = "run-" + std::to_string(t) + "-" + std::to_string(r);
                auto run = d.start("pruned meanwhile", id);
                std::lock_guard lock(mutex);
                if (run && run->status == run_status::completed)
                    ++completed;
                else if (!run && run.error().code == agentrt::errc::not_found)
                    gone.push_back(id);
                else
                    failures.push_back(run ? std::string(agentrt::to_string(run->status)) : run.error().to_string());
            }
        });
    std::thread pruner([&] {
        while (working) {
            auto removed = agentrt::prune(s, std::numeric_limits<std::int64_t>::max() / 2);
            std::lock_guard lock(mutex);
            if (!removed)
                failures.push_back("prune: " + removed.error().to_string());
            else
                pruned.insert(pruned.end(), removed->runs.begin(), removed->runs.end());
        }
    });
    for (auto& t : workers)
        t.join();
    working = false;
    pruner.join();
    CHECK_MESSAGE(failures.empty(), (failures.empty() ? std::string() : failures.front()));
    CHECK(completed + gone.size() == 40);
    for (auto const& id : gone) // only a run that had ended can be gone
        CHECK(std::find(pruned.begin(), pruned.end(), id) != pruned.end());
    auto left = agentrt::list_runs(s, {}, 100);
    CHECK(pruned.size() + left.size() == 40);
    CHECK_FALSE(pruned.empty());
    for (auto const& run : left)
        CHECK(run.status == run_status::completed);
    CHECK(agentrt::verify(s).ok()); // links to the pruned runs are accepted, however they interleaved
    CHECK(agentrt::check_invariants(s).ok());
}

TEST_CASE("eight workers beginning one run id at once: exactly one creates it, the others get a conflict") {
    world w;
    auto s = open_pg(fresh_postgres_store());
    std::atomic<int> created{0}, conflicts{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&] {
            agentrt::gate g(s, w.table, w.policy, w.options());
            auto session = g.begin("the one run", "run-once");
            if (session)
                ++created;
            else if (session.error().code == agentrt::errc::conflict)
                ++conflicts;
            else
                MESSAGE(session.error().to_string());
        });
    for (auto& t : threads)
        t.join();
    CHECK(created.load() == 1);
    CHECK(conflicts.load() == 7);
    CHECK(agentrt::list_runs(s).size() == 1);
    CHECK(agentrt::verify(s).ok());
}
