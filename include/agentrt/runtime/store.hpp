// agentrt/runtime/store.hpp — the durable store of runs, steps, approvals and events.
//
//     agentrt::result<agentrt::store> s = agentrt::store::open("/var/lib/app/agentrt");
//     s->write([&](agentrt::store_writer& w) { ... });    // one atomic transaction
//     auto run = s->read([&](agentrt::store_reader const& r) { return r.run("r-1"); });
//
// A store is a storage engine (engine.hpp) with what every engine shares above it: the hash chain
// of events, observers of what committed, and the choice of engine by location. Nothing above this
// header depends on an engine. A store is thread-safe; reader and writer objects belong to the
// transaction that made them.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/runtime/engine.hpp>
#include <agentrt/runtime/records.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace agentrt {

// A writer creates and migrates a store; an operator opens an existing store of the current version
// only, and may still change it (approve, reject, cancel).
enum class store_access : std::uint8_t { writer, operator_only };

// 2: leases carry their epoch. 3: the LMDB engine seals every record with a checksum. A store of an
// older version is migrated by its first writer.
inline constexpr int store_schema_version = 3;

// What only the LMDB engine reads.
struct lmdb_options {
    std::size_t initial_map_bytes = std::size_t{64} << 20;
    std::size_t max_map_bytes = std::size_t{1} << 40;
};

// What only the PostgreSQL engine reads. A store's threads share a pool of connections, each held
// for one transaction; the liveness connection (see docs/runtime.md) is one more.
struct postgresql_options {
    // At most this many at once (mind the server's max_connections across every worker); a thread
    // past them waits for one to come back.
    std::size_t max_connections = 16;
    // How long it waits before its transaction fails with errc::store_failed.
    std::chrono::milliseconds connection_wait{30'000};
    // Each connection prepares the statements of a step once (SQL-level PREPARE), so that the server
    // plans them once rather than at every step. Turn it off behind a pooler that gives one client's
    // transactions to different server sessions (PgBouncer's transaction pooling): a statement
    // prepared on one session is unknown to the next.
    bool prepared_statements = true;
};

struct store_options {
    agentrt::durability durability = durability::power_loss;
    store_access access = store_access::writer;
    lmdb_options lmdb = {};
    postgresql_options postgresql = {};
};

// Where a store lives: "lmdb:PATH", or a plain path (a directory), for the LMDB engine;
// "postgresql://..." or "postgres://..." (a libpq connection URI) for the PostgreSQL engine.
class store_location {
public:
    store_location(std::string text) : text_(std::move(text)) {}
    store_location(std::string_view text) : text_(text) {}
    store_location(char const* text) : text_(text) {}
    store_location(std::filesystem::path const& directory) : text_(directory.string()) {}

    std::string const& text() const noexcept { return text_; }

private:
    std::string text_;
};

using event_observer = std::function<void(event_record const&)>;

// One write transaction of a store: the engine's records, and events chained onto their run.
class store_writer final : public store_reader {
public:
    explicit store_writer(engine_writer& records) noexcept : records_(records) {}

    std::optional<run_record> run(std::string_view id) const override { return records_.run(id); }
    std::vector<run_record> runs_before(std::uint64_t order, std::size_t limit) const override {
        return records_.runs_before(order, limit);
    }
    std::optional<step_record> step(std::string_view run_id, std::uint64_t index) const override {
        return records_.step(run_id, index);
    }
    std::vector<step_record> steps(std::string_view run_id) const override { return records_.steps(run_id); }
    std::vector<approval_record> approvals(std::string_view run_id) const override {
        return records_.approvals(run_id);
    }
    std::vector<event_record> events(std::string_view run_id) const override { return records_.events(run_id); }
    std::vector<model_call_record> model_calls(std::string_view run_id) const override {
        return records_.model_calls(run_id);
    }
    std::optional<std::string> meta(std::string_view key) const override { return records_.meta(key); }
    std::optional<std::string> tool_spec(std::string_view hash) const override { return records_.tool_spec(hash); }

    // A run's first put gives it its creation order. Refuses an empty id or one holding NUL.
    void put(run_record& run);
    void put(step_record const& step) { records_.put(step); }
    void put(approval_record const& approval) { records_.put(approval); }
    void put(model_call_record const& call) { records_.put(call); }
    void put_meta(std::string_view key, std::string_view value) { records_.put_meta(key, value); }
    void put_tool_spec(std::string_view hash, std::string_view spec) { records_.put_tool_spec(hash, spec); }

    // Chains an event onto the run (seq, prev, hash) and updates run.head and run.event_count;
    // the caller puts the run afterwards in the same transaction.
    event_record const& append(run_record& run, event_type type, boost::json::object data, std::int64_t at_ms);

    // Removes a run with its steps, approvals, events and model calls (prune). The caller records what the run
    // chain loses (see prune.hpp); false when there was no such run.
    bool erase_run(std::string_view run_id) { return records_.erase_run(run_id); }

    // The events appended so far, for the observers once the transaction commits.
    std::vector<event_record>& appended() noexcept { return appended_; }

private:
    engine_writer& records_;
    std::vector<event_record> appended_;
};

class store {
public:
    // Opens (a writer creates) the store at `where` with the engine its location names. Refuses
    // files others can write, a newer schema, an older one for an operator, and a second open of
    // one store in one process.
    static result<store> open(store_location const& where, store_options const& options = {});

    // A store over an engine of the caller's (the test kit's decorators). Its observers are its own.
    explicit store(std::shared_ptr<agentrt::engine> engine);

    store(store&&) noexcept;
    store& operator=(store&&) noexcept;
    ~store();

    // Runs `work` in one read transaction.
    template <class F>
    auto read(F&& work) const -> std::invoke_result_t<F&, store_reader const&> {
        return read_by(&agentrt::engine::read, work);
    }

    // Runs `work` in one read transaction of the runs as this thread last saw them, which may be
    // older than what the store holds (engine::read_as_last_seen): for reads a later write checks.
    template <class F>
    auto read_as_last_seen(F&& work) const -> std::invoke_result_t<F&, store_reader const&> {
        return read_by(&agentrt::engine::read_as_last_seen, work);
    }

    // Runs `work` in one write transaction and commits it; an exception from `work` aborts and
    // leaves the store unchanged. `work` may run more than once (an engine may retry a transaction,
    // as LMDB's does when its map is full or a snapshot it did the work on ahead of its commit has
    // changed), so it must only act through the writer. `flush` makes
    // the commit durable before returning under durability::power_loss (the commit before a side
    // effect).
    template <class F>
    auto write(F&& work, bool flush = false) -> std::invoke_result_t<F&, store_writer&> {
        using R = std::invoke_result_t<F&, store_writer&>;
        if constexpr (std::is_void_v<R>) {
            write_erased([&](store_writer& w) { work(w); }, flush);
        } else {
            std::optional<R> out;
            write_erased([&](store_writer& w) { out.emplace(work(w)); }, flush);
            return std::move(*out);
        }
    }

    // Observers see each event after the transaction that wrote it commits, on the writing thread.
    // They should not throw: an exception reaches the writer after the commit, so a write that
    // started a tool looks failed and the call is treated as interrupted rather than run.
    void observe(event_observer observer);

    std::string const& location() const noexcept { return engine_->location(); }
    agentrt::durability durability() const noexcept { return engine_->durability(); }
    store_stats stats() const { return engine_->stats(); }
    result<void> backup(std::filesystem::path const& destination) const { return engine_->backup(destination); }

    // The host and process id this store writes into leases, and whether a lease's holder is alive as far as
    // the engine can tell (used by lease takeover).
    std::string const& host() const noexcept { return engine_->host(); }
    std::int64_t process_id() const noexcept { return engine_->process_id(); }
    bool holder_alive(lease_record const& lease) const { return engine_->holder_alive(lease); }

    std::shared_ptr<agentrt::engine> const& engine() const noexcept { return engine_; }

private:
    struct observers;
    void write_erased(std::function<void(store_writer&)> const& work, bool flush);

    using engine_read = void (agentrt::engine::*)(std::function<void(store_reader const&)> const&) const;
    template <class F>
    auto read_by(engine_read read, F& work) const -> std::invoke_result_t<F&, store_reader const&> {
        using R = std::invoke_result_t<F&, store_reader const&>;
        if constexpr (std::is_void_v<R>) {
            (*engine_.*read)([&](store_reader const& r) { work(r); });
        } else {
            std::optional<R> out;
            (*engine_.*read)([&](store_reader const& r) { out.emplace(work(r)); });
            return std::move(*out);
        }
    }

    std::shared_ptr<agentrt::engine> engine_;
    std::unique_ptr<observers> observers_;
};

} // namespace agentrt
