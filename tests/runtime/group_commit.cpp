// Group commit: the transactions of one process's threads that are ready while one commits share the
// next commit and its sync, each in its own nested transaction.
#include <agentrt/runtime.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include "engines/lmdb/environment.hpp"
#include "engines/lmdb/lmdb_engine.hpp"
#include "failing_syncs.hpp"
#include "fixture.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

using namespace runtime_test;
using agentrt::decision;

namespace {

// `writers` threads each write one meta key while a first transaction is held open for a while, so
// that all of them are ready when it commits; the odd ones throw from their work.
struct held_group {
    int writers = 8;
    std::vector<std::string> outcomes = std::vector<std::string>(8);
    agentrt::store_stats before{}, after{};

    void run(agentrt::store& s) {
        before = s.stats();
        std::atomic<bool> first_is_open{false};
        std::thread first([&] {
            s.write([&](agentrt::store_writer& w) {
                w.put_meta("first", "1");
                first_is_open = true;
                std::this_thread::sleep_for(std::chrono::milliseconds(500));
            });
        });
        while (!first_is_open)
            std::this_thread::yield();
        std::vector<std::thread> threads;
        for (int i = 0; i < writers; ++i)
            threads.emplace_back([&, i] {
                try {
                    s.write(
                        [&](agentrt::store_writer& w) {
                            w.put_meta("writer-" + std::to_string(i), "written");
                            if (i % 2 == 1)
                                throw std::runtime_error("writer " + std::to_string(i) + " gave up");
                        },
                        i == 0);
                    outcomes[i] = "committed";
                } catch (std::exception const& e) {
                    outcomes[i] = e.what();
                }
            });
        for (auto& t : threads)
            t.join();
        first.join();
        after = s.stats();
    }
};

// The LMDB engine of an existing store, opened by itself so that a test can see its commits.
std::shared_ptr<agentrt::lmdb_detail::lmdb_engine> lmdb_engine_of(world const& w) {
    w.open(); // creates the store, then closes it
    auto opened = agentrt::engines::open_lmdb(w.store_path, {});
    REQUIRE(opened);
    return std::dynamic_pointer_cast<agentrt::lmdb_detail::lmdb_engine>(*opened);
}

// `threads` writers each commit `writes` transactions that start a tool (flush), and check after
// each that its commit survives power loss, by the engine's account and by the syncs the file had
// (failing_syncs.hpp); returns how many of them did not.
int flushed_writes_left_volatile(agentrt::lmdb_detail::lmdb_engine& engine, int threads, int writes) {
    std::atomic<int> volatile_returns{0};
    std::vector<std::thread> writers;
    for (int t = 0; t < threads; ++t)
        writers.emplace_back([&, t] {
            for (int k = 0; k < writes; ++k) {
                engine.write(
                    [&](agentrt::engine_writer& w) { w.put_meta("writer-" + std::to_string(t), std::to_string(k)); },
                    true);
                auto committed_as = agentrt::lmdb_detail::last_write_txnid_of_this_thread();
                if (committed_as == 0 || engine.durable_txnid() < committed_as ||
                    syncs::synced_through() < committed_as)
                    ++volatile_returns;
            }
        });
    for (auto& w : writers)
        w.join();
    return volatile_returns;
}

// A transaction that starts a tool, on its own thread: "durable", or the error it returned.
struct flushed_write {
    std::string outcome;
    std::thread thread;

    flushed_write(agentrt::lmdb_detail::lmdb_engine& engine, std::string key)
        : thread([&engine, this, key = std::move(key)] {
              try {
                  engine.write([&](agentrt::engine_writer& w) { w.put_meta(key, "written"); }, true);
                  auto committed_as = agentrt::lmdb_detail::last_write_txnid_of_this_thread();
                  outcome = committed_as != 0 && engine.durable_txnid() >= committed_as ? "durable" : "volatile";
              } catch (std::exception const& e) {
                  outcome = e.what();
              }
          }) {}
    ~flushed_write() {
        if (thread.joinable()) {
            syncs::release(); // a check that failed must not leave the thread held
            thread.join();
        }
    }
    std::string const& finished() {
        thread.join();
        return outcome;
    }
};

// `second` is written from another thread while `first`'s transaction is held open inside its work,
// LMDB's writer lock taken and a commit under way; whether the second's work ran while it was.
bool write_while_one_is_open(agentrt::lmdb_detail::lmdb_engine& engine,
                             std::function<void(agentrt::engine_writer&)> const& first,
                             std::function<void(agentrt::engine_writer&)> const& second) {
    std::atomic<bool> open{false}, second_done{false}, ran_while_open{false};
    std::thread holder([&] {
        engine.write(
            [&](agentrt::engine_writer& w) {
                first(w);
                open = true;
                auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
                while (!second_done && std::chrono::steady_clock::now() < deadline)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                std::this_thread::sleep_for(std::chrono::milliseconds(50)); // the second is queued
                open = false;
            },
            false);
    });
    while (!open)
        std::this_thread::yield();
    std::thread writer([&] {
        engine.write(
            [&](agentrt::engine_writer& w) {
                ran_while_open = ran_while_open || open;
                second(w);
                second_done = true;
            },
            false);
    });
    writer.join();
    holder.join();
    return ran_while_open;
}

bool stored(agentrt::lmdb_detail::lmdb_engine& engine, std::string const& key) {
    bool found = false;
    engine.read([&](agentrt::store_reader const& r) { found = r.meta(key).has_value(); });
    return found;
}

void wait_for_commits(agentrt::lmdb_detail::lmdb_engine& engine, std::uint64_t commits) {
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (engine.stats().commits < commits && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    REQUIRE(engine.stats().commits >= commits);
}

} // namespace

TEST_CASE("group commit: a failed sync fails every transaction it left in doubt, also one that waited for the same "
          "sync, and none returns as durable") {
    world w;
    auto engine = lmdb_engine_of(w);
    auto const commits = engine->stats().commits;
    syncs::reset();
    syncs::hold(2, syncs::outcome::fails); // the first's data sync passes; its meta sync fails, held
    flushed_write first(*engine, "first");
    REQUIRE(syncs::wait_until_held());
    flushed_write second(*engine, "second"); // commits meanwhile, then waits for the sync under way
    wait_for_commits(*engine, commits + 2);
    syncs::release();
    CHECK(first.finished().find("may not survive power loss") != std::string::npos);
    CHECK(second.finished().find("may not survive power loss") != std::string::npos); // not retried and trusted
    CHECK(syncs::reset() >= 3);
    CHECK(stored(*engine, "first"));
    CHECK(stored(*engine, "second"));

    flushed_write after(*engine, "after"); // the engine goes on once the fault is gone
    CHECK(after.finished() == "durable");
}

TEST_CASE("group commit: a store whose syncs keep failing remembers no more doubts than its writers can fall in") {
    world w;
    auto engine = lmdb_engine_of(w);
    auto doubts = [&] {
        std::lock_guard lock(engine->commit_mutex);
        return engine->doubts.size();
    };
    for (int episode = 0; episode < 20; ++episode) {
        CAPTURE(episode);
        syncs::reset();
        syncs::fail(2); // its meta page's sync
        flushed_write failed(*engine, "failed-" + std::to_string(episode));
        CHECK(failed.finished().find("may not survive power loss") != std::string::npos);
        flushed_write after(*engine, "after-" + std::to_string(episode));
        CHECK(after.finished() == "durable");
    }
    syncs::reset();
    CHECK(doubts() == 0);
}

TEST_CASE("group commit: a failed commit fails the transactions before it whose meta page its sync carried") {
    world w;
    auto engine = lmdb_engine_of(w);
    syncs::reset();
    syncs::hold(2, syncs::outcome::passes); // the first's meta sync, held, then passing too late to be believed
    syncs::fail(3);                         // the second's commit: its data sync
    flushed_write first(*engine, "first");
    REQUIRE(syncs::wait_until_held());
    flushed_write second(*engine, "second");
    CHECK(second.finished().find("Input/output error") != std::string::npos);
    syncs::release();
    CHECK(first.finished().find("may not survive power loss") != std::string::npos);
    syncs::reset();
    CHECK(stored(*engine, "first"));
    CHECK_FALSE(stored(*engine, "second"));

    flushed_write after(*engine, "after");
    CHECK(after.finished() == "durable");
}

TEST_CASE("group commit: a transaction that starts a tool returns only once its commit survives power loss, "
          "meta page included") {
    world w;
    auto engine = lmdb_engine_of(w);
    syncs::reset();
    syncs::observe([&] {
        MDB_envinfo info{};
        ::mdb_env_info(engine->env.get(), &info);
        return static_cast<std::uint64_t>(info.me_last_txnid);
    });
    int threads = 1;
    SUBCASE("alone") {
        auto before = engine->stats();
        CHECK(flushed_writes_left_volatile(*engine, 1, 20) == 0);
        auto after = engine->stats();
        CHECK(after.commits - before.commits == 20);
        CHECK(after.syncs - before.syncs == 40); // nobody behind it: its data, then its meta page
        CHECK(syncs::reset() == 40);
    }
    SUBCASE("with writers behind it, whose commit syncs its meta page") {
        threads = 8;
        auto before = engine->stats();
        CHECK(flushed_writes_left_volatile(*engine, threads, 25) == 0);
        auto after = engine->stats();
        auto commits = after.commits - before.commits, synced = after.syncs - before.syncs;
        CAPTURE(commits);
        CAPTURE(synced);
        CHECK(commits < 200);        // grouped
        CHECK(synced < 2 * commits); // some meta pages went to the disk with the next commit's data
        CHECK(syncs::reset() == static_cast<int>(synced));
    }
    agentrt::store s(engine);
    for (int t = 0; t < threads; ++t) {
        CAPTURE(t);
        CHECK(s.read([&](agentrt::store_reader const& r) { return r.meta("writer-" + std::to_string(t)); }));
    }
}

TEST_CASE("group commit: a transaction that starts a tool and writes nothing returns only once what it read survives "
          "power loss, another process's commit included") {
    world w;
    auto engine = lmdb_engine_of(w);
    auto newest_on_file = [&] {
        MDB_envinfo info{};
        ::mdb_env_info(engine->env.get(), &info);
        return static_cast<std::uint64_t>(info.me_last_txnid);
    };
    pid_t other = ::fork(); // commits, leaving its meta page to a later sync, and exits
    REQUIRE(other >= 0);
    if (other == 0) {
        auto opened = agentrt::engines::open_lmdb(w.store_path, {});
        try {
            (*opened)->write([](agentrt::engine_writer& wr) { wr.put_meta("other", "written"); }, false);
        } catch (...) {
            ::_exit(1);
        }
        ::_exit(0);
    }
    int status = 0;
    REQUIRE(::waitpid(other, &status, 0) == other);
    REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    auto const others_commit = newest_on_file();
    REQUIRE(engine->durable_txnid() < others_commit);

    syncs::reset();
    syncs::observe(newest_on_file);
    std::optional<std::string> read;
    engine->write([&](agentrt::engine_writer& wr) { read = wr.meta("other"); }, true);
    CHECK(read == "written");
    CHECK(engine->durable_txnid() >= others_commit);
    CHECK(syncs::synced_through() >= others_commit);
    CHECK(syncs::reset() == 1);
}

TEST_CASE("group commit: transactions ready together share one commit and one sync, and a transaction that throws "
          "leaves the others' changes intact") {
    world w;
    auto s = w.open();
    held_group g;
    g.run(s);
    for (int i = 0; i < g.writers; ++i) {
        CAPTURE(i);
        auto stored = s.read([&](agentrt::store_reader const& r) { return r.meta("writer-" + std::to_string(i)); });
        if (i % 2 == 1) {
            CHECK(g.outcomes[i] == "writer " + std::to_string(i) + " gave up"); // its own error, in its own thread
            CHECK_FALSE(stored);
        } else {
            CHECK(g.outcomes[i] == "committed");
            CHECK(stored == "written");
        }
    }
    auto commits = g.after.commits - g.before.commits;
    CHECK(commits >= 2); // the first, then the group
    CHECK(commits < 1 + static_cast<std::uint64_t>(g.writers) / 2);
}

TEST_CASE("group commit: with runs on many threads, every tool start is committed before its tool is called, "
          "and each tool runs once") {
    world w;
    auto s = w.open();
    std::atomic<int> started_uncommitted{0};
    w.replace["lookup_order"] = [&](agentrt::arguments const&, agentrt::call_context const& c) -> agentrt::tool_result {
        auto step = s.read([&](agentrt::store_reader const& r) { return r.step(c.run_id, c.step_index); });
        if (!step || step->status != agentrt::step_status::executing)
            ++started_uncommitted;
        return agentrt::tool_output{{{"status", "shipped"}}, "shipped"};
    };
    std::vector<std::thread> threads;
    std::atomic<int> completed{0};
    for (int i = 0; i < 8; ++i)
        threads.emplace_back([&] {
            for (int k = 0; k < 5; ++k) {
                agentrt::testkit::scripted_agent agent(
                    {decision::call("lookup_order", lookup_args), decision::complete("ok")});
                agentrt::driver d(s, w.table, w.policy, agent, w.options());
                auto run = d.start("goal");
                if (run && run->status == agentrt::run_status::completed)
                    ++completed;
            }
        });
    for (auto& t : threads)
        t.join();
    CHECK(completed == 40);
    CHECK(started_uncommitted == 0);
    CHECK(w.calls["lookup_order"] == 40);
    CHECK(agentrt::verify(s).ok());
    CHECK(agentrt::check_invariants(s, {}).ok());
}

TEST_CASE("group commit: a transaction waiting for a commit does its work meanwhile, outside the writer lock") {
    world w;
    auto engine = lmdb_engine_of(w);
    CHECK(write_while_one_is_open(
        *engine, [](agentrt::engine_writer& wr) { wr.put_meta("first", "written"); },
        [](agentrt::engine_writer& wr) { wr.put_meta("second", "written"); }));
    CHECK(stored(*engine, "first"));
    CHECK(stored(*engine, "second"));
}

TEST_CASE("group commit: work done while another commit was under way is done again when a record it read changed "
          "before its own commit") {
    world w;
    auto engine = lmdb_engine_of(w);
    int second_runs = 0;
    write_while_one_is_open(
        *engine, [](agentrt::engine_writer& wr) { wr.put_meta("counter", "1"); },
        [&](agentrt::engine_writer& wr) {
            ++second_runs;
            auto counter = wr.meta("counter");
            wr.put_meta("counter", std::to_string(counter ? std::stoi(*counter) + 1 : 1));
        });
    CHECK(second_runs == 2); // ahead, on the snapshot before the first, then again
    engine->read([](agentrt::store_reader const& r) { CHECK(r.meta("counter") == "2"); });
}

TEST_CASE("group commit: work done while another commit was under way is done again when the records of a run it "
          "read changed before its own commit") {
    world w;
    auto engine = lmdb_engine_of(w);
    agentrt::step_record step;
    step.run_id = "run-1";
    step.index = 1;
    int second_runs = 0;
    write_while_one_is_open(
        *engine, [&](agentrt::engine_writer& wr) { wr.put(step); },
        [&](agentrt::engine_writer& wr) {
            ++second_runs;
            wr.put_meta("steps seen", std::to_string(wr.steps("run-1").size()));
        });
    CHECK(second_runs == 2);
    engine->read([](agentrt::store_reader const& r) { CHECK(r.meta("steps seen") == "1"); });
}

TEST_CASE("group commit: work done while another commit was under way is committed as it was done when nothing it "
          "read changed") {
    world w;
    auto engine = lmdb_engine_of(w);
    engine->write([](agentrt::engine_writer& wr) { wr.put_meta("counter", "1"); }, false);
    int second_runs = 0;
    write_while_one_is_open(
        *engine, [](agentrt::engine_writer& wr) { wr.put_meta("other", "written"); },
        [&](agentrt::engine_writer& wr) {
            ++second_runs;
            wr.put_meta("counter", std::to_string(std::stoi(wr.meta("counter").value()) + 1));
            CHECK(wr.meta("counter") == "2"); // its own write, read back
        });
    CHECK(second_runs == 1);
    engine->read([](agentrt::store_reader const& r) {
        CHECK(r.meta("counter") == "2");
        CHECK(r.meta("other") == "written");
    });
}
