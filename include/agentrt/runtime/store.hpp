// agentrt/runtime/store.hpp — the durable store of runs, steps, approvals and events.
//
//     agentrt::result<agentrt::store> s = agentrt::store::open("/var/lib/app/agentrt");
//     s->write([&](agentrt::store_writer& w) { ... });    // one atomic transaction
//     auto run = s->read([&](agentrt::store_reader const& r) { return r.run("r-1"); });
//
// One LMDB environment per store (a directory holding data.mdb and lock.mdb, both 0600). Nothing
// above this header depends on LMDB: a store on another engine offers the same reader and writer.
// A store is thread-safe; reader and writer objects belong to the transaction that made them.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/runtime/records.hpp>

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

// What a committed record survives (docs/runtime.md).
//  power_loss:    the machine losing power. Every commit syncs its data pages, and the commit that
//                 starts a tool is flushed completely before the tool is called.
//  process_crash: the process dying, not the machine. No syncs; much faster.
enum class durability : std::uint8_t { power_loss, process_crash };

// A writer creates and migrates a store; an operator opens an existing store of the current version
// only, and may still change it (approve, reject, cancel).
enum class store_access : std::uint8_t { writer, operator_only };

inline constexpr int store_schema_version = 1;

struct store_options {
    agentrt::durability durability = durability::power_loss;
    store_access access = store_access::writer;
    std::size_t initial_map_bytes = std::size_t{64} << 20;
    std::size_t max_map_bytes = std::size_t{1} << 40;
};

struct store_stats {
    std::uint64_t commits = 0;
    std::uint64_t syncs = 0; // data syncs of commits plus forced flushes
    std::uint64_t map_grows = 0;
    std::size_t map_bytes = 0;
};

class store_reader {
public:
    virtual ~store_reader() = default;
    virtual std::optional<run_record> run(std::string_view id) const = 0;
    // Newest first: up to `limit` runs created before the run `before` (all when empty).
    virtual std::vector<run_record> runs(std::string_view before, std::size_t limit) const = 0;
    virtual std::optional<step_record> step(std::string_view run_id, std::uint64_t index) const = 0;
    virtual std::vector<step_record> steps(std::string_view run_id) const = 0;
    virtual std::vector<approval_record> approvals(std::string_view run_id) const = 0;
    virtual std::vector<event_record> events(std::string_view run_id) const = 0;
    virtual std::vector<model_call_record> model_calls(std::string_view run_id) const = 0;
    virtual std::optional<std::string> meta(std::string_view key) const = 0;
    virtual std::optional<std::string> tool_spec(std::string_view hash) const = 0;
};

class store_writer : public virtual store_reader {
public:
    // A run's first put gives it its creation order.
    virtual void put(run_record& run) = 0;
    virtual void put(step_record const& step) = 0;
    virtual void put(approval_record const& approval) = 0;
    virtual void put(model_call_record const& call) = 0;
    virtual void put_meta(std::string_view key, std::string_view value) = 0;
    virtual void put_tool_spec(std::string_view hash, std::string_view spec) = 0;
    // Chains an event onto the run (seq, prev, hash) and updates run.head and run.event_count;
    // the caller puts the run afterwards in the same transaction.
    virtual event_record const& append(run_record& run, std::string_view type, boost::json::object data,
                                       std::int64_t at_ms) = 0;
    // Removes a run with its steps, approvals, events and model calls (prune). The caller records what the run
    // chain loses (see prune.hpp); false when there was no such run.
    virtual bool erase_run(std::string_view run_id) = 0;
};

using event_observer = std::function<void(event_record const&)>;

// Thrown by every write through a store handle whose simulated process has crashed, so the stack of
// the dead process unwinds without writing anything more. Deliberately not a std::exception: no
// error handling of the runtime, or of a consumer that catches std::exception, can swallow it.
struct simulated_process_crashed {};

class store {
public:
    // Opens (a writer creates) the store directory at `path`. Refuses files others can write, a
    // newer schema, an older one for an operator, and a second open of one store in one process.
    static result<store> open(std::filesystem::path const& path, store_options const& options = {});

    store(store&&) noexcept;
    store& operator=(store&&) noexcept;
    ~store();

    // Runs `work` in one read transaction.
    template <class F>
    auto read(F&& work) const -> std::invoke_result_t<F&, store_reader const&> {
        using R = std::invoke_result_t<F&, store_reader const&>;
        if constexpr (std::is_void_v<R>) {
            read_erased([&](store_reader const& r) { work(r); });
        } else {
            std::optional<R> out;
            read_erased([&](store_reader const& r) { out.emplace(work(r)); });
            return std::move(*out);
        }
    }

    // Runs `work` in one write transaction and commits it; an exception from `work` aborts and
    // leaves the store unchanged. `work` may run more than once (a full map is grown and the
    // transaction retried), so it must only act through the writer. `flush` makes the commit
    // durable before returning under durability::power_loss (the commit before a side effect).
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

    std::filesystem::path const& path() const noexcept;
    agentrt::durability durability() const noexcept;
    store_stats stats() const;

    // Writes a compact, consistent copy of the store (as of one read transaction) into the directory
    // `destination`, which is created owner-only (0700, data.mdb 0600) and must not hold a store yet.
    // Writers may go on meanwhile.
    result<void> backup(std::filesystem::path const& destination) const;

    // Whether the process that holds a lease on this host is alive (an open-file-description lock
    // its store holds dies with it; a simulated process lives until it crashes or its handle is
    // gone). Used by lease takeover.
    bool process_alive(std::int64_t pid) const;

    // The process id this handle writes into leases: getpid(), or a simulated process's own.
    std::int64_t process_id() const noexcept;

    // For the test kit's simulated crashes: another handle on this store standing for another
    // process of this machine (LMDB allows one environment per process, so the simulated processes
    // of a test share this one). Its observers are its own.
    store simulated_process() const;

    // Kills this handle's simulated process as far as the store can tell: no commit through it
    // reaches the file any more, from any thread (each write throws simulated_process_crashed), the
    // leases its sessions hold stay held, and their holder counts as dead at once, as the kernel's
    // lock release would tell of a real process. Refused for a handle that is not simulated.
    void simulate_crash();
    bool crashed() const noexcept;

    struct impl;
    struct handle;

private:
    store(std::shared_ptr<impl> environment, std::shared_ptr<handle> h);
    void read_erased(std::function<void(store_reader const&)> const& work) const;
    void write_erased(std::function<void(store_writer&)> const& work, bool flush);

    std::shared_ptr<impl> impl_;
    std::shared_ptr<handle> handle_;
};

} // namespace agentrt
