// A world for runtime tests: a temporary store directory, the test catalogue with call counters,
// a policy the test sets, a manual clock and counting ids.
#pragma once

#include <agentrt/catalog/catalog.hpp>
#include <agentrt/runtime.hpp>
#include <agentrt/testkit/engine_decorator.hpp>

#include "engines/lmdb/seal.hpp"
#include "support/doctest_result.hpp"
#include "support/test_tools.hpp"

#include <lmdb.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace runtime_test {

namespace fs = std::filesystem;

inline constexpr char const* lookup_args = R"({"order_id":"ord-1"})";
inline constexpr char const* send_args =
    R"({"to":{"kind":"email","address":"a@b.c"},"cc":[],"subject":"hi","counters":{}})";
inline constexpr char const* wipe_args = R"({"account":"acme","confirm":true})";

struct temp_dir {
    fs::path path;
    temp_dir() {
        std::string pattern = (fs::temp_directory_path() / "agentrt-runtime-XXXXXX").string();
        path = ::mkdtemp(pattern.data());
    }
    ~temp_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    temp_dir(temp_dir const&) = delete;
    temp_dir& operator=(temp_dir const&) = delete;
};

using policy_function =
    std::function<agentrt::verdict(agentrt::tool_entry const&, agentrt::arguments const&, agentrt::run_view const&)>;
using tool_function = std::function<agentrt::tool_result(agentrt::arguments const&, agentrt::call_context const&)>;

struct world {
    temp_dir dir;
    fs::path store_path = dir.path / "store";
    agentrt::manual_clock clock{1'700'000'000'000};
    agentrt::counting_ids ids{"run-"}; // shared by every gate of the world
    std::mutex calls_mutex;            // tools may run on several threads
    std::map<std::string, int> calls;
    std::map<std::string, tool_function> replace; // a tool's body, instead of the catalogue's
    policy_function decide = [](auto const&, auto const&, auto const&) { return agentrt::allow(); };
    agentrt::tool_table table;
    agentrt::evaluator policy{"test-policy/1", [this](agentrt::tool_entry const& t, agentrt::arguments const& a,
                                                      agentrt::run_view const& v) { return decide(t, a, v); }};

    world() {
        using namespace test_tools;
        agentrt::catalog<lookup_order, send_message, wipe_account> catalogue;
        agentrt::tool_table original_table = catalogue.table();
        std::vector<agentrt::tool_entry> entries(original_table.entries().begin(), original_table.entries().end());
        for (auto& e : entries) {
            auto original = e.call;
            e.call = [this, name = e.name, original](agentrt::arguments const& a, agentrt::call_context const& c) {
                {
                    std::lock_guard lock(calls_mutex);
                    ++calls[name];
                }
                if (auto it = replace.find(name); it != replace.end())
                    return it->second(a, c);
                return original(a, c);
            };
        }
        table = agentrt::tool_table(std::move(entries));
    }

    // Every tool of the table under `timeout`, so that calls run on the gate's runner thread and can overrun.
    void time_out_tools_after(std::chrono::milliseconds timeout) {
        std::vector<agentrt::tool_entry> entries(table.entries().begin(), table.entries().end());
        for (auto& e : entries)
            e.timeout = timeout;
        table = agentrt::tool_table(std::move(entries));
    }

    agentrt::gate_options options() const {
        agentrt::gate_options o;
        o.clocks = {clock, clock};
        o.ids = ids;
        return o;
    }

    agentrt::store open(agentrt::store_options o = {}) const {
        auto s = agentrt::store::open(store_path, o);
        REQUIRE_MESSAGE(s, (s ? std::string() : s.error().to_string()));
        return std::move(*s);
    }
};

// Fails every read while armed, as a store whose reader slots are taken or whose server is away.
class failing_reads final : public agentrt::testkit::engine_decorator {
public:
    using engine_decorator::engine_decorator;
    std::atomic<bool> armed{false};
    void read(std::function<void(agentrt::store_reader const&)> const& work) const override {
        if (armed)
            throw agentrt::exception(agentrt::error{agentrt::errc::store_failed, "injected read fault", {}});
        engine_decorator::read(work);
    }
};

inline std::vector<std::string> event_types(agentrt::store const& s, std::string const& run_id) {
    std::vector<std::string> out;
    for (auto const& e : agentrt::read_events(s, run_id).value())
        out.push_back(e.type);
    return out;
}

// Work that takes 250 ms of the lease clock, for a lease of 90 ms: in steps shorter than the lease, each
// time waiting (in real time, up to 2 s) for run-1's lease to be renewed past the clock's new reading.
inline constexpr std::chrono::milliseconds short_lease{90};
inline void work_longer_than_the_lease(world& w, agentrt::store const& s) {
    for (int i = 0; i < 5; ++i) {
        w.clock.advance(std::chrono::milliseconds(50));
        auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        while (agentrt::read_run(s, "run-1").value().run.lease.expiry_ms < w.clock() + 60 &&
               std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

// run-1's lease is still the holder's, unexpired: another gate's attach is refused.
inline void check_lease_kept(world& w, agentrt::store& s, agentrt::session const& holder,
                             agentrt::gate_options const& options) {
    auto run = agentrt::read_run(s, "run-1").value().run;
    CHECK(run.lease.owner == holder.owner());
    CHECK(run.lease.expiry_ms > w.clock());
    agentrt::gate other(s, w.table, w.policy, options);
    auto refused = other.attach("run-1");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == agentrt::errc::lease_held);
}

// A policy's first look at a step of run "decide on the run as it is" denies it, and meanwhile
// `other` (another worker's store of the same place, or the same store) amends the run's goal with
// an event: the decision written must come from a second look, at the amended run, which allows.
inline void check_policy_decides_again_on_a_changed_run(agentrt::store& s, agentrt::store& other) {
    world w;
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("decide on the run as it is").value();
    (void)session.open_step().value();
    std::vector<std::string> goals_seen;
    w.decide = [&](auto const&, auto const&, agentrt::run_view const& view) {
        goals_seen.emplace_back(view.goal);
        if (goals_seen.size() > 1)
            return agentrt::allow();
        other.write([&](agentrt::store_writer& writer) {
            auto run = writer.run(session.run_id()).value();
            run.goal += " (amended)";
            writer.append(run, agentrt::event_type::model_completed, {{"amended", true}}, w.clock());
            writer.put(run);
        });
        return agentrt::deny("decided before the goal was amended");
    };
    auto proposed = session.propose(agentrt::decision::call("lookup_order", lookup_args));
    REQUIRE_MESSAGE(proposed, proposed.error().to_string());
    CHECK(proposed->status == agentrt::step_status::executing);
    CHECK(goals_seen == std::vector<std::string>{"decide on the run as it is", "decide on the run as it is (amended)"});
    CHECK(session.execute().value().status == agentrt::step_status::done);
    CHECK(w.calls["lookup_order"] == 1);
    auto invariants = agentrt::check_invariants(s, {.allow_in_progress = true}); // the next step is open
    CHECK_MESSAGE(invariants.ok(), (invariants.ok() ? "" : invariants.problems.front()));
}

// Direct LMDB access behind the runtime's back, for tampering tests (the store must be closed).
struct raw_lmdb {
    MDB_env* env = nullptr;
    MDB_txn* txn = nullptr;
    explicit raw_lmdb(fs::path const& path) {
        REQUIRE(mdb_env_create(&env) == 0);
        REQUIRE(mdb_env_set_maxdbs(env, 16) == 0);
        REQUIRE(mdb_env_open(env, path.c_str(), 0, 0600) == 0);
        REQUIRE(mdb_txn_begin(env, nullptr, 0, &txn) == 0);
    }
    ~raw_lmdb() {
        if (txn)
            mdb_txn_abort(txn);
        mdb_env_close(env);
    }
    MDB_dbi db(char const* name) {
        MDB_dbi dbi = 0;
        REQUIRE(mdb_dbi_open(txn, name, 0, &dbi) == 0);
        return dbi;
    }
    // The text of a record (its checksum stripped, seal.hpp), or the bare value.
    std::string get(char const* name, std::string const& key) {
        auto stored = get_stored(name, key);
        if (is_bare(name, key))
            return stored;
        auto text = agentrt::lmdb_detail::unseal(key, stored);
        REQUIRE(text);
        return std::string(*text);
    }
    std::string get_stored(char const* name, std::string const& key) {
        MDB_val k{key.size(), const_cast<char*>(key.data())}, v{};
        REQUIRE(mdb_get(txn, db(name), &k, &v) == 0);
        return {static_cast<char const*>(v.mv_data), v.mv_size};
    }
    // Writes a record as the engine does, sealed with its checksum: a forger who knows the format.
    void put(char const* name, std::string const& key, std::string const& value) {
        put_stored(name, key, is_bare(name, key) ? value : agentrt::lmdb_detail::seal(key, value));
    }
    void put_stored(char const* name, std::string const& key, std::string const& value) {
        MDB_val k{key.size(), const_cast<char*>(key.data())}, v{value.size(), const_cast<char*>(value.data())};
        REQUIRE(mdb_put(txn, db(name), &k, &v, 0) == 0);
    }
    static bool is_bare(char const* name, std::string const& key) {
        return std::string_view(name) == "meta" && key == agentrt::lmdb_detail::bare_meta_key;
    }
    void del(char const* name, std::string const& key) {
        MDB_val k{key.size(), const_cast<char*>(key.data())};
        REQUIRE(mdb_del(txn, db(name), &k, nullptr) == 0);
    }
    void commit() {
        REQUIRE(mdb_txn_commit(txn) == 0);
        txn = nullptr;
    }
};

} // namespace runtime_test
