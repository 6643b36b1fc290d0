// Server-side faults, real ones: the server terminating a worker's sessions, a statement timeout, a
// lock held by another session.
#include <agentrt/runtime.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include "runtime/fixture.hpp"
#include "support/postgres.hpp"
#include "support/postgres_proxy.hpp"

#include <pqxx/pqxx>

#include <algorithm>
#include <atomic>
#include <thread>

#include <unistd.h>

using namespace runtime_test;
using namespace std::chrono_literals;
using agentrt::decision;
using agentrt::step_status;

namespace {

// The run each fault here strikes: a lookup, a mail, then done. Whatever the fault, it completes,
// each tool ran once, and the store checks and verifies.
agentrt::run_record look_up_and_mail(world& w, agentrt::store& s) {
    agentrt::testkit::scripted_agent agent({decision::call("lookup_order", lookup_args),
                                            decision::call("send_message", send_args), decision::complete("done")});
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    auto run = d.start("look up and mail");
    REQUIRE_MESSAGE(run, run.error().to_string());
    CHECK(run->status == agentrt::run_status::completed);
    CHECK(w.calls["lookup_order"] == 1);
    CHECK(w.calls["send_message"] == 1);
    CHECK(agentrt::check_invariants(s).ok());
    CHECK(agentrt::verify(s).ok());
    return *run;
}

} // namespace

TEST_CASE("the server terminating every session of a worker mid-run: the next transaction is retried on a new "
          "connection, and each tool ran once") {
    world w;
    auto where = test_support::fresh_postgres_store();
    auto s = agentrt::store::open(where).value();
    std::string terminated;
    w.replace["lookup_order"] = [&](agentrt::arguments const&, agentrt::call_context const&) -> agentrt::tool_result {
        terminated = test_support::postgres_sql(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '" +
            test_support::schema_of(where) + "'");
        return agentrt::tool_output{{{"order", "ord-1"}}, "found"};
    };
    (void)look_up_and_mail(w, s);
    CHECK(std::stoi(terminated) >= 2); // the pooled connection and the liveness one, at least
}

TEST_CASE("the server restarting in the middle of a run, as after a crash: the run goes on, each tool once") {
    world w;
    test_support::private_postgres_server server;
    auto s = agentrt::store::open(server.uri()).value();
    int restarts = 0;
    w.replace["lookup_order"] = [&](agentrt::arguments const&, agentrt::call_context const&) -> agentrt::tool_result {
        server.restart(); // every connection of the worker dies, the pooled one and the liveness one
        ++restarts;
        return agentrt::tool_output{{{"order", "ord-1"}}, "found"};
    };
    (void)look_up_and_mail(w, s);
    CHECK(restarts == 1);
}

TEST_CASE("a connection lost during the COMMIT of a write the server did not write: the run's record, read again, "
          "says so, the write runs again, and each tool ran once") {
    world w;
    auto where = test_support::fresh_postgres_store();
    auto const schema = test_support::schema_of(where);
    auto s = agentrt::store::open(where).value();
    // The first write to change a run once armed sleeps at its COMMIT, in a deferred trigger, until
    // it is terminated: the COMMIT was sent, and its transaction never ends but rolled back.
    test_support::postgres_sql("CREATE SEQUENCE " + schema +
                               ".stalls;\n"
                               "CREATE FUNCTION " +
                               schema +
                               ".stall_once() RETURNS trigger LANGUAGE plpgsql AS $$\n"
                               "BEGIN IF nextval('" +
                               schema +
                               ".stalls') = 1 THEN PERFORM pg_sleep(60); END IF;\n"
                               "RETURN NULL; END $$");
    std::atomic<int> terminated{0};
    std::jthread terminator;
    w.replace["lookup_order"] = [&](agentrt::arguments const&, agentrt::call_context const&) -> agentrt::tool_result {
        test_support::postgres_sql("CREATE CONSTRAINT TRIGGER stall AFTER INSERT OR UPDATE ON " + schema +
                                   ".agentrt_runs DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION " +
                                   schema + ".stall_once()");
        terminator = std::jthread([&](std::stop_token stop) {
            while (!stop.stop_requested() && terminated == 0) {
                terminated = std::stoi(test_support::postgres_sql(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '" +
                    schema + "' AND wait_event = 'PgSleep'"));
                std::this_thread::sleep_for(20ms);
            }
        });
        return agentrt::tool_output{{{"order", "ord-1"}}, "found"};
    };
    (void)look_up_and_mail(w, s);
    terminator.request_stop();
    CHECK(terminated == 1); // the write that recorded the tool's outcome, in the middle of its COMMIT
}

TEST_CASE("a connection lost after the server wrote a COMMIT and before its answer came: the run's record, read "
          "again, says written, and nothing is written twice") {
    world w;
    test_support::postgres_proxy proxy(test_support::fresh_postgres_store());
    auto s = agentrt::store::open(proxy.location()).value();
    w.replace["lookup_order"] = [&](agentrt::arguments const&, agentrt::call_context const&) -> agentrt::tool_result {
        proxy.lose_answer_to_commit_with("agentrt_2_update_run"); // the write that records this outcome
        return agentrt::tool_output{{{"order", "ord-1"}}, "found"};
    };
    auto run = look_up_and_mail(w, s);
    CHECK(proxy.answers_lost() == 1);
    auto events = agentrt::read_events(s, run.id).value();
    CHECK(std::count_if(events.begin(), events.end(), [](auto const& e) {
              return e.is(agentrt::event_type::step_tool_finished);
          }) == 2); // one for each tool: the one whose answer was lost is not there twice
}

TEST_CASE("a statement timeout behind a lock another session holds is a typed error that changes nothing, the run "
          "goes on once the lock is gone") {
    world w;
    auto where = test_support::fresh_postgres_store();
    { auto create = agentrt::store::open(where).value(); }
    auto s = agentrt::store::open(where + "%20-cstatement_timeout%3D300").value();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("mail").value();
    (void)session.open_step().value();
    auto events = agentrt::read_events(s, session.run_id()).value().size();
    {
        pqxx::connection other(test_support::postgres_uri() + "&options=-csearch_path%3D" +
                               test_support::schema_of(where));
        pqxx::work holding(other);
        holding.exec("LOCK TABLE agentrt_runs IN ACCESS EXCLUSIVE MODE");
        auto proposed = session.propose(decision::call("send_message", send_args));
        REQUIRE_FALSE(proposed);
        CHECK(proposed.error().code == agentrt::errc::store_failed);
        CHECK(proposed.error().message.find("statement timeout") != std::string::npos);
    }
    CHECK(w.calls.empty());
    CHECK(agentrt::read_events(s, session.run_id()).value().size() == events);
    CHECK(agentrt::read_run(s, session.run_id()).value().steps.at(0).status == step_status::deciding);
    auto proposed = session.propose(decision::call("send_message", send_args));
    REQUIRE_MESSAGE(proposed, proposed.error().to_string());
    CHECK(proposed->status == step_status::executing);
    CHECK(session.execute().value().status == step_status::done);
    CHECK(w.calls["send_message"] == 1);
}

TEST_CASE("a statement that fails inside a write fails the write even when the work goes on: its commit never "
          "rolls back in silence") {
    world w;
    auto where = test_support::fresh_postgres_store();
    { auto create = agentrt::store::open(where).value(); }
    auto s = agentrt::store::open(where + "%20-cstatement_timeout%3D300").value();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("mail").value();
    auto const id = session.run_id();
    auto events = agentrt::read_events(s, id).value().size();
    bool read_refused = false;
    {
        pqxx::connection other(test_support::postgres_uri() + "&options=-csearch_path%3D" +
                               test_support::schema_of(where));
        pqxx::work holding(other);
        holding.exec("LOCK TABLE agentrt_model_calls IN ACCESS EXCLUSIVE MODE");
        CHECK_THROWS_AS(s.write([&](agentrt::store_writer& wr) {
            auto run = wr.run(id).value();
            wr.append(run, agentrt::event_type::step_tool_finished, {{"step", 0}}, 0);
            wr.put(run);
            try {
                (void)wr.model_calls(id); // behind the lock: the statement times out
            } catch (std::exception const&) {
                read_refused = true; // and the work goes on as if nothing had happened
            }
        }),
                        agentrt::exception);
    }
    CHECK(read_refused);
    CHECK(agentrt::read_events(s, id).value().size() == events);
}

TEST_CASE("the server ending a worker's liveness session: its next write takes the lock again, so the worker is not "
          "taken for dead") {
    world w;
    auto where = test_support::fresh_postgres_store();
    auto s = agentrt::store::open(where).value();
    auto locks = [&] {
        return test_support::postgres_sql(
            "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
            "AND l.granted AND a.application_name = '" +
            test_support::schema_of(where) + "'");
    };
    REQUIRE(locks() == "1");
    test_support::postgres_sql(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '" +
        test_support::schema_of(where) + "'");
    for (int i = 0; i < 100 && locks() != "0"; ++i)
        ::usleep(10'000);
    REQUIRE(locks() == "0"); // to any other worker, this process now looks dead
    ::usleep(1'100'000);     // the liveness session is checked at most once a second
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("a write after the cut").value();
    CHECK(locks() == "1");
}

TEST_CASE("two stores of one database in one process both open, and agentrt copy goes between two of its schemas") {
    world w;
    auto first = test_support::fresh_postgres_store();
    auto second = test_support::fresh_postgres_store();
    {
        auto a = agentrt::store::open(first).value();
        auto again = agentrt::store::open(first); // the same store twice: its liveness lock is shared
        REQUIRE_MESSAGE(again, again.error().to_string());
        agentrt::testkit::scripted_agent agent({decision::complete("done")});
        agentrt::driver(a, w.table, w.policy, agent, w.options()).start("copied").value();
    }
    auto from = agentrt::store::open(first, {.access = agentrt::store_access::operator_only}).value();
    auto to = agentrt::store::open(second).value();
    auto copied = agentrt::copy_store(from, to);
    REQUIRE_MESSAGE(copied, copied.error().to_string());
    CHECK(copied->runs == 1);
    CHECK(agentrt::verify(to).ok());
}

TEST_CASE("a copy of a store whose newest runs were pruned still verifies") {
    world w;
    auto s = w.open();
    for (int i = 0; i < 2; ++i) {
        agentrt::testkit::scripted_agent agent({decision::complete("done")});
        agentrt::driver(s, w.table, w.policy, agent, w.options()).start("pruned " + std::to_string(i)).value();
    }
    w.clock.advance(std::chrono::hours(1));
    REQUIRE(agentrt::prune(s, w.clock()).value().runs.size() == 2);
    REQUIRE(agentrt::verify(s).ok());
    auto to = agentrt::store::open(test_support::fresh_postgres_store()).value();
    auto copied = agentrt::copy_store(s, to);
    REQUIRE_MESSAGE(copied, copied.error().to_string());
    CHECK(copied->runs == 0);
    auto chains = agentrt::verify(to);
    CHECK_MESSAGE(chains.ok(), chains.first_break);
}
