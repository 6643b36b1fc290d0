#include <agentrt/runtime/store.hpp>

#include "engines/lmdb/keys.hpp"
#include "fixture.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <sstream>
#include <vector>

using namespace runtime_test;

namespace {
agentrt::run_record sample_run(std::string id) {
    agentrt::run_record run;
    run.id = std::move(id);
    run.goal = "a goal";
    return run;
}
// The promises about transactions hold at both durability levels (their LMDB flags differ).
constexpr agentrt::durability both_levels[] = {agentrt::durability::power_loss, agentrt::durability::process_crash};
char const* name_of(agentrt::durability level) {
    return level == agentrt::durability::power_loss ? "power_loss" : "process_crash";
}

unsigned mode_of(fs::path const& p) {
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return st.st_mode & 0777;
}
} // namespace

TEST_CASE("a store location names its engine: lmdb:PATH or a plain path") {
    world w;
    {
        auto s = agentrt::store::open("lmdb:" + w.store_path.string());
        REQUIRE(s);
        CHECK(s->location() == "lmdb:" + w.store_path.string());
        s->write([](agentrt::store_writer& wr) { wr.put_meta("written", "through lmdb:"); });
    }
    auto s = agentrt::store::open(w.store_path);
    REQUIRE(s);
    CHECK(s->location() == "lmdb:" + w.store_path.string());
    CHECK(s->read([](agentrt::store_reader const& r) { return r.meta("written"); }) == "through lmdb:");
}

TEST_CASE("a store location naming an engine this agentrt lacks is refused by its name, creating nothing") {
    world w;
    auto s = agentrt::store::open("nosuch://db.example/agentrt");
    REQUIRE_FALSE(s);
    CHECK(s.error().code == agentrt::errc::store_failed);
    CHECK(s.error().message == "store location nosuch://db.example/agentrt names the engine 'nosuch', which this "
                               "agentrt does not have (it has: lmdb, postgresql)");
    CHECK_FALSE(fs::exists("nosuch:"));
}

TEST_CASE("a store is created owner-only") {
    world w;
    auto s = w.open();
    CHECK(mode_of(w.store_path / "data.mdb") == 0600);
    CHECK(mode_of(w.store_path / "lock.mdb") == 0600);
    CHECK(mode_of(w.store_path / "owners.lock") == 0600);
}

TEST_CASE("a store file others can write is refused with the command that fixes it") {
    for (char const* name : {"data.mdb", "lock.mdb", "owners.lock"}) {
        CAPTURE(name);
        world w;
        { auto s = w.open(); }
        auto file = (w.store_path / name).string();
        ::chmod(file.c_str(), 0664);
        auto s = agentrt::store::open(w.store_path);
        REQUIRE_FALSE(s);
        CHECK(s.error().code == agentrt::errc::store_failed);
        CHECK(s.error().message ==
              "store file " + file + " is writable by group or others (mode 664); make it owner-only with: chmod 600 " +
                  file);
    }
}

TEST_CASE("a store directory others can write is refused with the command that fixes it") {
    for (unsigned mode : {0777u, 0770u, 0707u, 0720u, 0702u}) {
        CAPTURE(mode);
        world w;
        { auto s = w.open(); }
        ::chmod(w.store_path.c_str(), mode);
        auto s = agentrt::store::open(w.store_path);
        REQUIRE_FALSE(s);
        CHECK(s.error().code == agentrt::errc::store_failed);
        char shown[8];
        std::snprintf(shown, sizeof shown, "%03o", mode);
        CHECK(s.error().message == "store directory " + w.store_path.string() +
                                       " is writable by group or others (mode " + shown +
                                       "); make it owner-only with: chmod 700 " + w.store_path.string());
        CHECK(mode_of(w.store_path) == mode); // refused, not repaired behind the operator's back
    }
}

TEST_CASE("a store file or directory another user owns is refused") {
    if (::geteuid() != 0) {
        MESSAGE("not run: giving a file to another user needs root, and this test runs as uid " << ::geteuid());
        return;
    }
    for (char const* name : {"", "data.mdb", "lock.mdb", "owners.lock"}) {
        CAPTURE(name);
        world w;
        { auto s = w.open(); }
        auto target = std::string(name).empty() ? w.store_path : w.store_path / name;
        REQUIRE(::chown(target.c_str(), 65534, 65534) == 0);
        auto s = agentrt::store::open(w.store_path);
        REQUIRE_FALSE(s);
        CHECK(s.error().message.find(target.string() + " belongs to uid 65534, not to this user (uid 0)") !=
              std::string::npos);
        REQUIRE(::chown(target.c_str(), 0, 0) == 0);
        CHECK(agentrt::store::open(w.store_path));
    }
}

TEST_CASE("a store whose schema version is not a number is refused as damaged") {
    world w;
    { auto s = w.open(); }
    {
        raw_lmdb raw(w.store_path);
        raw.put("meta", "schema_version", "two");
        raw.commit();
    }
    auto s = agentrt::store::open(w.store_path);
    REQUIRE_FALSE(s);
    CHECK(s.error().code == agentrt::errc::store_damaged);
    CHECK(s.error().message == "store " + w.store_path.string() +
                                   " is damaged: its schema version is 'two', not a number: restore it from a backup");
}

TEST_CASE("a damaged lock file of a store another process has open is refused, naming the file and what to do") {
    world w;
    {
        auto s = w.open();
        s.write([](agentrt::store_writer& wr) {
            auto run = sample_run("kept");
            wr.append(run, agentrt::event_type::run_created, {}, 100);
            wr.put(run);
        });
    }
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    pid_t holder = ::fork();
    REQUIRE(holder >= 0);
    if (holder == 0) { // holds the store open, touching nothing, until it is killed
        auto s = agentrt::store::open(w.store_path);
        char byte = s ? 'y' : 'n';
        (void)::write(ready[1], &byte, 1);
        ::pause();
        ::_exit(0);
    }
    char byte = 0;
    REQUIRE(::read(ready[0], &byte, 1) == 1);
    REQUIRE(byte == 'y');
    auto const lock = w.store_path / "lock.mdb";
    auto const size = fs::file_size(lock);

    fs::resize_file(lock, 100); // the reader table cut short
    auto cut = agentrt::store::open(w.store_path);
    REQUIRE_FALSE(cut);
    CHECK(cut.error().code == agentrt::errc::store_damaged);
    CHECK(cut.error().message == "store " + w.store_path.string() + " is damaged: " + lock.string() +
                                     ", LMDB's lock file, which process " + std::to_string(holder) +
                                     " has open, is 100 bytes, cut short: stop every process that uses the store, "
                                     "then remove " +
                                     lock.string() + " (it holds no records: LMDB makes it again)");

    fs::resize_file(lock, 0);
    fs::resize_file(lock, size); // zeros where LMDB's header was
    auto overwritten = agentrt::store::open(w.store_path);
    REQUIRE_FALSE(overwritten);
    CHECK(overwritten.error().message.find("does not begin as LMDB's lock file does") != std::string::npos);

    ::kill(holder, SIGKILL);
    int status = 0;
    REQUIRE(::waitpid(holder, &status, 0) == holder);
    ::close(ready[0]);
    ::close(ready[1]);
    auto reopened = agentrt::store::open(w.store_path); // the first to open it again: LMDB rebuilds the lock file
    REQUIRE(reopened);
    CHECK(reopened->read([](agentrt::store_reader const& r) { return r.runs({}, 10).size(); }) == 1);
}

TEST_CASE("an operator never creates a store") {
    world w;
    auto s = agentrt::store::open(w.store_path, {.access = agentrt::store_access::operator_only});
    REQUIRE_FALSE(s);
    CHECK(s.error().message == "no store at " + w.store_path.string() + " (an operator never creates one)");
    CHECK_FALSE(fs::exists(w.store_path));
}

TEST_CASE("a store of a newer schema is refused by name") {
    world w;
    { auto s = w.open(); }
    {
        raw_lmdb raw(w.store_path);
        raw.put("meta", "schema_version", "4");
        raw.commit();
    }
    auto s = agentrt::store::open(w.store_path);
    REQUIRE_FALSE(s);
    CHECK(s.error().message == "store " + w.store_path.string() +
                                   " has schema version 4, newer than this library's 3: open it with a newer agentrt");
}

TEST_CASE("a writer migrates an older store and an operator refuses to") {
    world w;
    { auto s = w.open(); }
    {
        raw_lmdb raw(w.store_path);
        raw.put("meta", "schema_version", "0");
        raw.commit();
    }
    auto op = agentrt::store::open(w.store_path, {.access = agentrt::store_access::operator_only});
    REQUIRE_FALSE(op);
    CHECK(op.error().message.find("an operator never migrates") != std::string::npos);
    { auto s = w.open(); }
    raw_lmdb raw(w.store_path);
    CHECK(raw.get("meta", "schema_version") == "3");
}

TEST_CASE("a store cannot be opened twice in one process") {
    world w;
    auto first = w.open();
    auto second = agentrt::store::open(w.store_path);
    REQUIRE_FALSE(second);
    CHECK(second.error().code == agentrt::errc::refused);
}

TEST_CASE("an exception inside a transaction leaves the store unchanged") {
    for (auto level : both_levels) {
        INFO("durability ", name_of(level));
        world w;
        auto s = w.open({.durability = level});
        s.write([](agentrt::store_writer& wr) {
            auto run = sample_run("kept");
            wr.append(run, agentrt::event_type::run_created, {}, 1);
            wr.put(run);
        });
        CHECK_THROWS_WITH_AS(s.write([](agentrt::store_writer& wr) {
            auto run = sample_run("lost");
            wr.append(run, agentrt::event_type::run_created, {}, 2);
            wr.put(run);
            auto kept = wr.run("kept").value();
            kept.goal = "changed";
            wr.put(kept);
            throw std::runtime_error("boom");
        }),
                             "boom", std::runtime_error);
        s.read([](agentrt::store_reader const& r) {
            CHECK_FALSE(r.run("lost"));
            CHECK(r.run("kept")->goal == "a goal");
            CHECK(r.events("lost").empty());
            CHECK(r.runs({}, 10).size() == 1);
        });
        CHECK(agentrt::verify(s).ok());
    }
}

TEST_CASE("a full map grows and nothing is lost") {
    for (auto level : both_levels) {
        INFO("durability ", name_of(level));
        world w;
        auto s = w.open(
            {.durability = level, .lmdb = {.initial_map_bytes = 64 << 10, .max_map_bytes = std::size_t{1} << 30}});
        std::string big(4000, 'x');
        for (int i = 0; i < 300; ++i)
            s.write([&](agentrt::store_writer& wr) {
                auto run = sample_run("run-" + std::to_string(i));
                run.goal = big;
                wr.append(run, agentrt::event_type::run_created, {{"goal", big}}, i);
                wr.put(run);
            });
        CHECK(s.stats().map_grows > 0);
        CHECK(s.stats().map_bytes > std::size_t{64} << 10);
        s.read([](agentrt::store_reader const& r) { CHECK(r.runs({}, 1000).size() == 300); });
        CHECK(agentrt::verify(s).ok());
    }
}

namespace {

// A forked process opens the store with a 64 KiB map and writes 100 runs of 4 KB goals, growing the map.
void grow_the_map_in_another_process(world const& w) {
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        auto other = agentrt::store::open(w.store_path, {.lmdb = {.initial_map_bytes = 64 << 10}});
        if (!other)
            ::_exit(2);
        std::string big(4000, 'x');
        for (int i = 0; i < 100; ++i)
            other->write([&](agentrt::store_writer& wr) {
                auto run = sample_run("run-" + std::to_string(i));
                run.goal = big;
                wr.append(run, agentrt::event_type::run_created, {}, i);
                wr.put(run);
            });
        ::_exit(other->stats().map_grows > 0 ? 0 : 3);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
}

} // namespace

TEST_CASE("a map another process grew is adopted by this process's next read and write") {
    world w;
    auto s = w.open({.lmdb = {.initial_map_bytes = 64 << 10}});
    auto count_runs = [&] { return s.read([](agentrt::store_reader const& r) { return r.runs({}, 1000).size(); }); };
    CHECK(count_runs() == 0);           // this process now keeps a read transaction for its next read
    grow_the_map_in_another_process(w); // 100 runs of 4 KB goals
    CHECK(count_runs() == 100);
    s.write([](agentrt::store_writer& wr) {
        auto run = sample_run("after");
        wr.append(run, agentrt::event_type::run_created, {}, 100);
        wr.put(run);
    });
    CHECK(count_runs() == 101);
    CHECK(agentrt::verify(s).ok());
}

TEST_CASE("a backup adopts a map another process grew") {
    world w;
    auto s = w.open({.lmdb = {.initial_map_bytes = 64 << 10}});
    grow_the_map_in_another_process(w); // 100 runs of 4 KB goals
    auto copy = w.dir.path / "copy";
    auto backed_up = s.backup(copy);
    REQUIRE_MESSAGE(backed_up, (backed_up ? std::string() : backed_up.error().to_string()));
    auto restored = agentrt::store::open(copy);
    REQUIRE(restored);
    CHECK(restored->read([](agentrt::store_reader const& r) { return r.runs({}, 1000).size(); }) == 100);
}

TEST_CASE("a full map at its maximum fails the transaction as storage_full with a clear error and loses nothing") {
    for (auto level : both_levels) {
        INFO("durability ", name_of(level));
        world w;
        auto s = w.open({.durability = level, .lmdb = {.initial_map_bytes = 64 << 10, .max_map_bytes = 64 << 10}});
        std::string big(4000, 'x');
        int written = 0;
        try {
            for (; written < 1000; ++written)
                s.write([&](agentrt::store_writer& wr) {
                    auto run = sample_run("run-" + std::to_string(written));
                    run.goal = big;
                    wr.put(run);
                });
            FAIL("the map never filled");
        } catch (agentrt::exception const& e) {
            CHECK(e.error().code == agentrt::errc::storage_full);
            CHECK(e.error().message.find("is full at its maximum map size") != std::string::npos);
        }
        s.read([&](agentrt::store_reader const& r) { CHECK(r.runs({}, 1000).size() == std::size_t(written)); });
    }
}

TEST_CASE("observers see each event after its transaction commits") {
    world w;
    auto s = w.open();
    std::vector<std::string> seen;
    s.observe([&](agentrt::event_record const& e) {
        // After the commit: the event is readable in a new transaction.
        auto stored = s.read([&](agentrt::store_reader const& r) { return r.events(e.run_id).size(); });
        seen.push_back(e.type + "@" + std::to_string(stored));
    });
    CHECK_THROWS(s.write([](agentrt::store_writer& wr) {
        auto run = sample_run("aborted");
        wr.append(run, agentrt::event_type::run_created, {}, 1);
        throw std::runtime_error("abort");
    }));
    s.write([](agentrt::store_writer& wr) {
        auto run = sample_run("r");
        wr.append(run, agentrt::event_type::run_created, {}, 1);
        wr.append(run, agentrt::event_type::run_started, {}, 1);
        wr.put(run);
    });
    CHECK(seen == std::vector<std::string>{"run.created@2", "run.started@2"});
}

TEST_CASE("power_loss syncs every commit and flushes before a side effect, process_crash never syncs") {
    world w;
    {
        auto s = w.open();
        s.write([](agentrt::store_writer& wr) { wr.put_meta("a", "1"); });
        s.write([](agentrt::store_writer& wr) { wr.put_meta("b", "1"); }, true);
        CHECK(s.stats().commits == 2);
        CHECK(s.stats().syncs == 3);
    }
    auto s = w.open({.durability = agentrt::durability::process_crash});
    s.write([](agentrt::store_writer& wr) { wr.put_meta("c", "1"); }, true);
    CHECK(s.stats().syncs == 0);
}

TEST_CASE("a record another process changed is read as it now is, whatever durability each opened it with") {
    // Each pair of levels, the two processes at different ones included.
    for (auto level : both_levels)
        for (auto other_level : both_levels) {
            INFO("this process ", name_of(level), ", the other ", name_of(other_level));
            world w;
            auto s = w.open({.durability = level});
            auto write_goal = [](agentrt::store& st, std::string goal) {
                st.write([&](agentrt::store_writer& wr) {
                    auto run = wr.run("r").value_or(sample_run("r"));
                    run.goal = goal;
                    agentrt::step_record step;
                    step.run_id = "r";
                    step.observation = goal;
                    wr.put(step);
                    wr.put(run);
                });
            };
            write_goal(s, "before");
            auto read_goals = [&] {
                return s.read([](agentrt::store_reader const& r) {
                    return r.run("r")->goal + "/" + r.step("r", 0)->observation;
                });
            };
            CHECK(read_goals() == "before/before"); // now remembered by this process
            pid_t child = ::fork();
            REQUIRE(child >= 0);
            if (child == 0) {
                auto other = agentrt::store::open(w.store_path, {.durability = other_level});
                if (!other)
                    ::_exit(2);
                write_goal(*other, "after");
                ::_exit(0);
            }
            int status = 0;
            REQUIRE(::waitpid(child, &status, 0) == child);
            REQUIRE(WIFEXITED(status));
            REQUIRE(WEXITSTATUS(status) == 0);
            CHECK(read_goals() == "after/after");
        }
}

TEST_CASE("a record is read back in the process that wrote it exactly as a fresh open reads it") {
    // Text that is not UTF-8 (a decision is kept verbatim) included: the records this process
    // remembers must read exactly as the file does.
    std::vector<std::string> decisions{"plain", "caf\xc3\xa9", "not UTF-8: \xff"};
    auto read_all = [&](agentrt::store& st) {
        std::vector<std::string> seen;
        for (std::uint64_t i = 0; i < decisions.size(); ++i) {
            try {
                seen.push_back(st.read([&](agentrt::store_reader const& r) { return r.step("r", i)->decision; }));
            } catch (std::exception const&) {
                seen.push_back("(refused)");
            }
        }
        return seen;
    };
    world w;
    std::vector<std::string> in_writer;
    {
        auto s = w.open();
        for (std::uint64_t i = 0; i < decisions.size(); ++i)
            s.write([&](agentrt::store_writer& wr) {
                agentrt::step_record step;
                step.run_id = "r";
                step.index = i;
                step.decision = decisions[i];
                wr.put(step);
            });
        in_writer = read_all(s);
    }
    auto s = w.open();
    CHECK(in_writer == read_all(s));
    CHECK(in_writer[1] == "caf\xc3\xa9");
    CHECK(in_writer[2] == "not UTF-8: \xff");
}

TEST_CASE("process_crash survives the death of the process") {
    world w;
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        auto s = agentrt::store::open(w.store_path, {.durability = agentrt::durability::process_crash});
        if (!s)
            ::_exit(2);
        s->write([](agentrt::store_writer& wr) {
            auto run = sample_run("survivor");
            wr.append(run, agentrt::event_type::run_created, {}, 1);
            wr.put(run);
        });
        ::_exit(0); // no close, no sync
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    auto s = w.open();
    s.read([](agentrt::store_reader const& r) { CHECK(r.run("survivor")); });
    CHECK(agentrt::verify(s).ok());
}

TEST_CASE("a store opened before a fork is refused in the child, which opens its own") {
    world w;
    auto s = w.open();
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        int code = 1; // no refusal
        try {
            (void)s.read([](agentrt::store_reader const& r) { return r.meta("schema_version"); });
        } catch (agentrt::exception const& e) {
            bool named = e.error().code == agentrt::errc::refused &&
                         e.error().message.find("opened before this process was forked") != std::string::npos;
            code = named ? 0 : 2;
        }
        if (code == 0) {
            auto copied = s.backup(w.dir.path / "copy-in-child");
            code = !copied && copied.error().code == agentrt::errc::refused ? 0 : 4;
        }
        if (code == 0) {
            auto own = agentrt::store::open(w.store_path);
            code = own && own->read([](agentrt::store_reader const& r) { return r.meta("schema_version"); }) ? 0 : 3;
        }
        ::_exit(code);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(s.read([](agentrt::store_reader const& r) { return r.meta("schema_version"); })); // the parent goes on
}

TEST_CASE("events are never read back to decide: a run whose events are gone resumes as it would with them") {
    // The same crash in two stores; one then loses every event of its run behind the runtime's back.
    auto resume = [](bool drop_events) {
        world w;
        {
            auto s = w.open();
            agentrt::gate g(s, w.table, w.policy, w.options());
            auto crashed = g.begin("goal").value();
            (void)crashed.open_step().value();
            (void)crashed.propose(agentrt::decision::call("lookup_order", lookup_args)).value();
            (void)crashed.execute().value();
            (void)crashed.open_step().value();
            (void)crashed.propose(agentrt::decision::call("send_message", send_args)).value();
            crashed.abandon(); // mid-send
        }
        if (drop_events) {
            raw_lmdb raw(w.store_path);
            MDB_cursor* c = nullptr;
            REQUIRE(mdb_cursor_open(raw.txn, raw.db("events"), &c) == 0);
            MDB_val k{}, v{};
            while (mdb_cursor_get(c, &k, &v, MDB_NEXT) == 0)
                REQUIRE(mdb_cursor_del(c, 0) == 0);
            mdb_cursor_close(c);
            raw.commit();
        }
        auto s = w.open();
        REQUIRE((agentrt::read_events(s, "run-1").value().empty() == drop_events));
        agentrt::gate g(s, w.table, w.policy, w.options());
        auto waiting = g.attach("run-1").value();
        std::string outcome = std::string(to_string(waiting.run().status));
        for (auto const& step : agentrt::read_run(s, "run-1").value().steps)
            outcome += " " + std::string(to_string(step.status)) + "/" + step.resolution;
        for (auto const& a : agentrt::pending_approvals(s))
            outcome += " " + a.kind + ":" + a.hash;
        outcome += " calls=" + std::to_string(w.calls["send_message"]);
        return outcome;
    };
    auto with_events = resume(false);
    CHECK(with_events.find("interrupted_side_effect") != std::string::npos);
    CHECK(resume(true) == with_events);
}

TEST_CASE("reader slots left by a dead process are cleared when a store is opened") {
    world w;
    auto s = w.open(); // held open throughout: otherwise the next opener resets the reader table anyway
    auto in_child = [](auto&& body) {
        pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0)
            ::_exit(body());
        return child;
    };
    auto exit_status = [](pid_t child) {
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    };
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    pid_t reader = in_child([&] {
        auto own = agentrt::store::open(w.store_path);
        if (!own)
            return 2;
        own->read([&](agentrt::store_reader const&) {
            char one = 1;
            (void)::write(ready[1], &one, 1);
            for (;;)
                ::pause(); // killed while reading
        });
        return 3;
    });
    char one = 0;
    REQUIRE(::read(ready[0], &one, 1) == 1);
    ::kill(reader, SIGKILL);
    (void)exit_status(reader);
    ::close(ready[0]);
    ::close(ready[1]);
    // How many reader slots the dead reader still holds, as another process sees the table.
    auto slots_of_dead_reader = [&] {
        return exit_status(in_child([&] {
            MDB_env* env = nullptr;
            if (mdb_env_create(&env) != 0 || mdb_env_set_maxdbs(env, 16) != 0 ||
                mdb_env_open(env, w.store_path.c_str(), MDB_RDONLY, 0600) != 0)
                return 99;
            std::string listing;
            mdb_reader_list(
                env,
                [](char const* line, void* out) {
                    *static_cast<std::string*>(out) += line;
                    return 0;
                },
                &listing);
            std::istringstream words(listing);
            int n = 0;
            for (std::string word; words >> word;)
                n += word == std::to_string(reader);
            return n;
        }));
    };
    REQUIRE(slots_of_dead_reader() == 1);
    CHECK(exit_status(in_child([&] { return agentrt::store::open(w.store_path) ? 0 : 1; })) == 0);
    CHECK(slots_of_dead_reader() == 0);
}
