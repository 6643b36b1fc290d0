// Durable steps per second, beside the physical limit (raw LMDB transactions of the same count, size
// and sync setting) and what a user would pick instead (SQLite in WAL mode, synchronous=FULL).
//
//     cmake --build --preset release --target agentrt_runtime_bench
//     ./build/release/bench/agentrt_runtime_bench --benchmark_counters_tabular=true
#include <agentrt/catalog/catalog.hpp>
#include <agentrt/runtime.hpp>

#include "support/test_tools.hpp"

#include <benchmark/benchmark.h>
#include <lmdb.h>
#include <sqlite3.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

struct temp_dir {
    fs::path path;
    temp_dir() {
        std::string pattern = (fs::temp_directory_path() / "agentrt-bench-XXXXXX").string();
        path = ::mkdtemp(pattern.data());
    }
    ~temp_dir() { fs::remove_all(path); }
};

agentrt::tool_table observing_table(std::size_t observation_bytes) {
    agentrt::catalog<test_tools::lookup_order> catalogue;
    auto original = catalogue.table();
    std::vector<agentrt::tool_entry> entries(original.entries().begin(), original.entries().end());
    entries[0].call = [text = std::string(observation_bytes, 'x')](auto const&, auto const&) -> agentrt::tool_result {
        return agentrt::tool_output{{{"data", text}}, "ok"};
    };
    return agentrt::tool_table(std::move(entries));
}

agentrt::durability level(std::int64_t arg) {
    return arg ? agentrt::durability::process_crash : agentrt::durability::power_loss;
}

void report(benchmark::State& state, std::uint64_t steps, std::uint64_t syncs) {
    state.counters["steps/s"] = benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
    state.counters["ns/step"] = benchmark::Counter(static_cast<double>(steps) * 1e-9,
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["syncs/step"] = static_cast<double>(syncs) / static_cast<double>(steps ? steps : 1);
}

// args: steps per run, observation bytes, durability (0 power_loss, 1 process_crash)
void durable_steps(benchmark::State& state) {
    auto const run_length = static_cast<std::uint64_t>(state.range(0));
    temp_dir dir;
    auto table = observing_table(static_cast<std::size_t>(state.range(1)));
    agentrt::evaluator allow("allow", [](auto const&, auto const&, auto const&) { return agentrt::allow(); });
    auto store = agentrt::store::open(dir.path / "store", {.durability = level(state.range(2)),
                                                           .lmdb = {.initial_map_bytes = std::size_t{1} << 30}})
                     .value();
    agentrt::gate_options options;
    options.limits.max_steps = run_length + 1;
    options.limits.loop_threshold = 0;
    agentrt::gate gate(store, table, allow, options);
    std::uint64_t steps = 0, syncs = 0;
    for (auto _ : state) {
        auto session = gate.begin("benchmark").value();
        (void)session.open_step().value();
        auto before = store.stats().syncs;
        for (std::uint64_t i = 0; i < run_length; ++i) {
            (void)session.propose(agentrt::decision::call("lookup_order", R"({"order_id":"ord-1"})")).value();
            (void)session.execute().value();
            (void)session.open_step().value();
        }
        syncs += store.stats().syncs - before;
        (void)session.propose(agentrt::decision::complete("done")).value();
        steps += run_length;
    }
    report(state, steps, syncs);
}

void check(int rc, char const* what) {
    if (rc != 0)
        throw std::runtime_error(std::string(what) + ": " + mdb_strerror(rc));
}

// The same two commits per step, of the same sizes, with the same environment flags as the store at
// that level, straight to LMDB.
void raw_lmdb(benchmark::State& state) {
    auto const run_length = static_cast<std::uint64_t>(state.range(0));
    bool power_loss = state.range(2) == 0;
    temp_dir dir;
    MDB_env* env = nullptr;
    check(mdb_env_create(&env), "create");
    check(mdb_env_set_mapsize(env, std::size_t{1} << 30), "mapsize");
    check(mdb_env_open(env, dir.path.c_str(), power_loss ? MDB_NOMETASYNC : MDB_NOSYNC, 0600), "open");
    MDB_dbi dbi = 0;
    std::string start(1200, 's'), finish(static_cast<std::size_t>(state.range(1)) + 900, 'f');
    std::uint64_t key = 0, steps = 0, syncs = 0;
    auto commit = [&](std::string const& value) {
        MDB_txn* txn = nullptr;
        check(mdb_txn_begin(env, nullptr, 0, &txn), "begin");
        if (!dbi)
            check(mdb_dbi_open(txn, nullptr, 0, &dbi), "dbi");
        ++key;
        MDB_val k{sizeof key, &key}, v{value.size(), const_cast<char*>(value.data())};
        check(mdb_put(txn, dbi, &k, &v, 0), "put");
        check(mdb_txn_commit(txn), "commit");
        syncs += power_loss;
    };
    for (auto _ : state) {
        for (std::uint64_t i = 0; i < run_length; ++i) {
            commit(start);
            if (power_loss) {
                check(mdb_env_sync(env, 1), "sync");
                ++syncs;
            }
            commit(finish);
        }
        steps += run_length;
    }
    mdb_env_close(env);
    report(state, steps, syncs);
}

void exec(sqlite3* db, char const* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
        std::string text = message ? message : "?";
        sqlite3_free(message);
        throw std::runtime_error(text);
    }
}

// The SQLite peer: a connection to a WAL database with synchronous=FULL that records a step as
// four transactions (step started, decided, tool started, tool finished), each a row update and an
// event insert.
class sqlite_peer_connection {
public:
    explicit sqlite_peer_connection(std::string const& path) {
        if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK)
            throw std::runtime_error("sqlite open " + path);
        sqlite3_busy_timeout(db_, 10'000);
        exec(db_, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                  "CREATE TABLE IF NOT EXISTS steps(id INTEGER PRIMARY KEY, status TEXT, body BLOB);"
                  "CREATE TABLE IF NOT EXISTS events(id INTEGER PRIMARY KEY AUTOINCREMENT, step INTEGER, body BLOB);");
        prepare("INSERT OR REPLACE INTO steps(id, status, body) VALUES(?, ?, ?)", update_);
        prepare("INSERT INTO events(step, body) VALUES(?, ?)", insert_);
    }
    sqlite_peer_connection(sqlite_peer_connection const&) = delete;
    sqlite_peer_connection& operator=(sqlite_peer_connection const&) = delete;
    ~sqlite_peer_connection() {
        sqlite3_finalize(update_);
        sqlite3_finalize(insert_);
        sqlite3_close(db_);
    }

    void step(std::uint64_t id, std::string const& observation) {
        transaction(id, small_);
        transaction(id, small_);
        transaction(id, small_);
        transaction(id, observation);
    }

private:
    void prepare(char const* sql, sqlite3_stmt*& statement) {
        if (sqlite3_prepare_v2(db_, sql, -1, &statement, nullptr) != SQLITE_OK)
            throw std::runtime_error(sqlite3_errmsg(db_));
    }
    void run(sqlite3_stmt* statement) {
        int const rc = sqlite3_step(statement);
        sqlite3_reset(statement);
        if (rc != SQLITE_DONE)
            throw std::runtime_error(sqlite3_errmsg(db_));
    }
    // BEGIN IMMEDIATE takes the write lock at once, so concurrent connections wait on busy_timeout
    // instead of failing their upgrade.
    void transaction(std::uint64_t id, std::string const& body) {
        exec(db_, "BEGIN IMMEDIATE");
        sqlite3_bind_int64(update_, 1, static_cast<sqlite3_int64>(id));
        sqlite3_bind_text(update_, 2, "status", -1, SQLITE_STATIC);
        sqlite3_bind_blob(update_, 3, body.data(), static_cast<int>(body.size()), SQLITE_STATIC);
        run(update_);
        sqlite3_bind_int64(insert_, 1, static_cast<sqlite3_int64>(id));
        sqlite3_bind_blob(insert_, 2, small_.data(), static_cast<int>(small_.size()), SQLITE_STATIC);
        run(insert_);
        exec(db_, "COMMIT");
    }

    sqlite3* db_ = nullptr;
    sqlite3_stmt* update_ = nullptr;
    sqlite3_stmt* insert_ = nullptr;
    std::string small_ = std::string(300, 's');
};

void sqlite_peer(benchmark::State& state) {
    auto const run_length = static_cast<std::uint64_t>(state.range(0));
    temp_dir dir;
    sqlite_peer_connection peer((dir.path / "peer.db").string());
    std::string observation(static_cast<std::size_t>(state.range(1)) + 200, 'f');
    std::uint64_t id = 0, steps = 0;
    for (auto _ : state) {
        for (std::uint64_t i = 0; i < run_length; ++i)
            peer.step(id++, observation);
        steps += run_length;
    }
    report(state, steps, 0);
}

// The SQLite peer at the concurrency of concurrent_runs: one connection per thread to one
// database, each thread 4 runs of 10 steps.
void sqlite_peer_concurrent(benchmark::State& state) {
    auto const threads = static_cast<int>(state.range(0));
    temp_dir dir;
    auto const path = (dir.path / "peer.db").string();
    sqlite_peer_connection{path}; // creates the tables before the threads race to
    constexpr std::uint64_t run_length = 10, runs_per_thread = 4;
    std::atomic<std::uint64_t> next_id{0};
    std::uint64_t steps = 0;
    for (auto _ : state) {
        std::vector<std::thread> running;
        for (int t = 0; t < threads; ++t)
            running.emplace_back([&] {
                sqlite_peer_connection peer(path);
                std::string const observation(264, 'f');
                for (std::uint64_t i = 0; i < runs_per_thread * run_length; ++i)
                    peer.step(next_id++, observation);
            });
        for (auto& t : running)
            t.join();
        steps += threads * runs_per_thread * run_length;
    }
    report(state, steps, 0);
}

// A new, empty store for the concurrency benchmarks: an LMDB directory, or, when AGENTRT_BENCH_POSTGRES
// names a server's database (tests/support/postgres-server start DIR prints one), a schema of it.
std::optional<std::string> bench_location(bool postgresql, temp_dir const& dir, int n) {
    if (!postgresql)
        return (dir.path / ("store-" + std::to_string(n))).string();
    char const* base = std::getenv("AGENTRT_BENCH_POSTGRES");
    if (!base || !*base)
        return std::nullopt;
    std::string schema = "bench_" + std::to_string(::getpid()) + "_" + std::to_string(n);
    std::string command = "psql -q '" + std::string(base) + "' -c 'CREATE SCHEMA " + schema + "'";
    if (std::system(command.c_str()) != 0)
        throw std::runtime_error("cannot create schema " + schema);
    return std::string(base) + "&options=-csearch_path%3D" + schema;
}

// args: engine (0 LMDB, 1 PostgreSQL, 2 PostgreSQL with postgresql_options::prepared_statements off,
// the baseline of prepared statements), concurrent runs (one thread each), durability. Each thread
// drives runs of 10 steps through its own gate over the one store.
void concurrent_runs(benchmark::State& state) {
    bool const postgresql = state.range(0) >= 1;
    auto const threads = static_cast<int>(state.range(1));
    temp_dir dir;
    static int stores = 0;
    auto where = bench_location(postgresql, dir, ++stores);
    if (!where) {
        state.SkipWithError("set AGENTRT_BENCH_POSTGRES to a PostgreSQL database URI");
        return;
    }
    auto table = observing_table(64);
    agentrt::evaluator allow("allow", [](auto const&, auto const&, auto const&) { return agentrt::allow(); });
    agentrt::store_options options{.durability = level(state.range(2)),
                                   .lmdb = {.initial_map_bytes = std::size_t{1} << 30}};
    options.postgresql.prepared_statements = state.range(0) != 2;
    auto store = agentrt::store::open(*where, options).value();
    constexpr std::uint64_t run_length = 10, runs_per_thread = 4;
    std::uint64_t steps = 0;
    auto const before = store.stats();
    for (auto _ : state) {
        std::vector<std::thread> running;
        for (int t = 0; t < threads; ++t)
            running.emplace_back([&] {
                agentrt::gate_options options;
                options.limits.max_steps = run_length + 1;
                options.limits.loop_threshold = 0;
                agentrt::gate gate(store, table, allow, options);
                for (std::uint64_t r = 0; r < runs_per_thread; ++r) {
                    auto session = gate.begin("benchmark").value();
                    (void)session.open_step().value();
                    for (std::uint64_t i = 0; i < run_length; ++i) {
                        (void)session.propose(agentrt::decision::call("lookup_order", R"({"order_id":"ord-1"})"))
                            .value();
                        (void)session.execute().value();
                        (void)session.open_step().value();
                    }
                    (void)session.propose(agentrt::decision::complete("done")).value();
                }
            });
        for (auto& t : running)
            t.join();
        steps += threads * runs_per_thread * run_length;
    }
    auto const after = store.stats();
    report(state, steps, after.syncs - before.syncs);
    // The engine's commits: under a step's write transactions when group commit gathered several.
    state.counters["commits/step"] =
        static_cast<double>(after.commits - before.commits) / static_cast<double>(steps ? steps : 1);
}

// Open a store, take over a run whose holder died mid-tool (read-only: left behind), first step.
void resume_after_crash(benchmark::State& state) {
    temp_dir dir;
    auto table = observing_table(64);
    agentrt::evaluator allow("allow", [](auto const&, auto const&, auto const&) { return agentrt::allow(); });
    int n = 0;
    for (auto _ : state) {
        state.PauseTiming();
        auto path = dir.path / ("store-" + std::to_string(n++));
        {
            auto store = agentrt::store::open(path, {.durability = agentrt::durability::process_crash}).value();
            agentrt::gate gate(store, table, allow);
            auto crashed = gate.begin("crash", "r").value();
            (void)crashed.open_step().value();
            (void)crashed.propose(agentrt::decision::call("lookup_order", R"({"order_id":"ord-1"})")).value();
            crashed.abandon();
        }
        state.ResumeTiming();
        auto store = agentrt::store::open(path, {.durability = agentrt::durability::process_crash}).value();
        agentrt::gate gate(store, table, allow);
        auto session = gate.attach("r").value();
        (void)session.open_step().value();
        (void)session.propose(agentrt::decision::call("lookup_order", R"({"order_id":"ord-2"})")).value();
        (void)session.execute().value();
    }
}

void shapes(benchmark::internal::Benchmark* b) {
    for (std::int64_t durability : {0, 1})
        for (std::int64_t observation : {64, 8192})
            for (std::int64_t run_length : {10, 100, 1000})
                b->Args({run_length, observation, durability});
    b->ArgNames({"steps", "obs", "crash_only"})->Unit(benchmark::kMillisecond)->MinTime(0.3);
}

} // namespace

BENCHMARK(durable_steps)->Apply(shapes)->UseRealTime();
BENCHMARK(raw_lmdb)->Apply(shapes)->UseRealTime();
BENCHMARK(sqlite_peer)
    ->ArgsProduct({{10, 100}, {64, 8192}, {0}})
    ->ArgNames({"steps", "obs", "crash_only"})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3)
    ->UseRealTime();
BENCHMARK(concurrent_runs)
    ->ArgsProduct({{0, 1, 2}, {1, 4, 16}, {0, 1}})
    ->ArgNames({"engine", "runs", "crash_only"})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5)
    ->UseRealTime();
BENCHMARK(sqlite_peer_concurrent)
    ->Arg(1)
    ->Arg(4)
    ->Arg(16)
    ->ArgName("runs")
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5)
    ->UseRealTime();
BENCHMARK(resume_after_crash)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_MAIN();
