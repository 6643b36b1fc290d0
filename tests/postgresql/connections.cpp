// The PostgreSQL engine's pool of connections: a cap that threads queue behind, a typed error for a
// thread that waits too long, no connection a restart ended handed out again, and no second
// connection for a read asked within a transaction.
#include <agentrt/runtime.hpp>

#include "runtime/fixture.hpp"
#include "support/postgres.hpp"

#include <atomic>
#include <csignal>
#include <latch>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace runtime_test;

namespace {

agentrt::store_options with_pool(std::size_t max_connections,
                                 std::chrono::milliseconds wait = std::chrono::seconds(30)) {
    agentrt::store_options options;
    options.postgresql.max_connections = max_connections;
    options.postgresql.connection_wait = wait;
    return options;
}

// The store's sessions on the server: its pooled connections and its liveness one.
int sessions_of(std::string const& where) {
    return std::stoi(test_support::postgres_sql("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" +
                                                test_support::schema_of(where) + "'"));
}

} // namespace

TEST_CASE("a store never holds more than max_connections at once: threads past them wait their turn") {
    auto where = test_support::fresh_postgres_store();
    auto s = agentrt::store::open(where, with_pool(2)).value();
    std::atomic<int> inside{0}, most{0}, done{0};
    std::vector<std::jthread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 10; ++i) {
                s.read([&](agentrt::store_reader const& r) {
                    int now = ++inside;
                    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
                    }
                    ::usleep(2'000);
                    (void)r.run("no such run");
                    --inside;
                });
                ++done;
            }
        });
    threads.clear();
    CHECK(done == 80);
    CHECK(most == 2);
    CHECK(sessions_of(where) == 3); // the two pooled connections, idle now, and the liveness one
}

TEST_CASE("a thread that waits longer than connection_wait for a connection gets a typed error naming the cap") {
    world w;
    auto where = test_support::fresh_postgres_store();
    auto s = agentrt::store::open(where, with_pool(1, std::chrono::milliseconds(100))).value();
    std::latch holding(1), release(1);
    std::jthread holder([&] {
        s.read([&](agentrt::store_reader const&) {
            holding.count_down();
            release.wait();
        });
    });
    holding.wait();
    auto refused = agentrt::read_run(s, "run-1");
    release.count_down();
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == agentrt::errc::store_failed);
    CHECK(refused.error().message.find("all 1 connections stayed busy for 100 ms") != std::string::npos);
    holder.join();
    CHECK(agentrt::read_run(s, "run-1").error().code == agentrt::errc::not_found); // and then it is served
}

TEST_CASE("after a server restart the pool hands out no connection the restart ended, however many were idle") {
    test_support::private_postgres_server server;
    // More idle connections than a transaction has attempts: each would fail one.
    constexpr int idle = 24;
    auto s = agentrt::store::open(server.uri(), with_pool(idle)).value();
    {
        std::latch all_inside(idle);
        std::vector<std::jthread> threads;
        for (int t = 0; t < idle; ++t)
            threads.emplace_back([&] { s.read([&](agentrt::store_reader const&) { all_inside.arrive_and_wait(); }); });
    }
    server.restart();
    world w;
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("after the restart");
    REQUIRE_MESSAGE(session, session.error().to_string());
    CHECK(agentrt::read_run(s, session->run_id()).value().run.status == agentrt::run_status::running);
}

TEST_CASE("a holder's liveness asked within a write shares its connection: a pool of one still tells a live "
          "holder from a dead one") {
    world w;
    auto where = test_support::fresh_postgres_store();
    auto parent = agentrt::store::open(where, with_pool(1, std::chrono::milliseconds(2'000))).value();
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    pid_t child = ::fork();
    if (child == 0) {
        auto s = agentrt::store::open(where);
        if (!s)
            ::_exit(1);
        agentrt::gate g(*s, w.table, w.policy, w.options());
        auto session = g.begin("held by a worker of another process", "run-held");
        if (!session || !session->open_step())
            ::_exit(2);
        char byte = 1;
        (void)!::write(ready[1], &byte, 1);
        ::pause();
        ::_exit(0);
    }
    char byte = 0;
    REQUIRE(::read(ready[0], &byte, 1) == 1);
    agentrt::gate g(parent, w.table, w.policy, w.options());
    auto refused = g.attach("run-held");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == agentrt::errc::lease_held);
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    ::close(ready[0]);
    ::close(ready[1]);
    std::optional<agentrt::session> taken;
    for (int i = 0; i < 200 && !taken; ++i) {
        if (auto attached = g.attach("run-held"))
            taken.emplace(std::move(*attached));
        else
            ::usleep(10'000);
    }
    CHECK(taken);
}

TEST_CASE("a read within a write shares the write's connection and sees its changes, also with another store's "
          "transaction open between them") {
    auto where = test_support::fresh_postgres_store();
    auto outer = agentrt::store::open(where, with_pool(1, std::chrono::milliseconds(1'000))).value();
    auto other = agentrt::store::open(test_support::fresh_postgres_store()).value();
    std::optional<std::string> seen;
    outer.engine()->write(
        [&](agentrt::engine_writer& w) {
            w.put_meta("nested.probe", "written, not yet committed");
            other.engine()->write(
                [&](agentrt::engine_writer&) {
                    outer.engine()->read([&](agentrt::store_reader const& r) { seen = r.meta("nested.probe"); });
                },
                false);
        },
        false);
    CHECK(seen == "written, not yet committed");
    auto committed = outer.read([](agentrt::store_reader const& r) { return r.meta("nested.probe"); });
    CHECK(committed == "written, not yet committed");
}
