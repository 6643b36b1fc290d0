// agentrt/runtime/engine.hpp — what a storage engine provides the store.
//
//     class my_engine : public agentrt::engine { ... };
//     agentrt::store s(std::make_shared<my_engine>(...));
//
// The store reaches its records through this interface only, as SQLite's pager reaches files
// through a VFS: an engine keeps records (runs, steps, approvals, events, model calls, tool specs,
// meta) and gives one read snapshot or one write transaction at a time to a piece of work. Hash
// chaining, observers and every rule of the state machine live above it, so an engine keeps no
// rule of its own beyond these promises, which the store contract suite pins for every engine
// (testkit/store_contract.hpp):
//  - a write commits everything its work wrote, or nothing when the work throws or the commit fails;
//  - a read sees one committed state from beginning to end;
//  - a run's steps, approvals, events and model calls read back in order of their keys;
//  - a flushed write is durable at the engine's durability level before write() returns;
//  - a lease holder's liveness, as far as the engine can tell.
// LMDB is the embedded engine (runtime/engines/lmdb); test kit decorators (crash points, injected
// faults) wrap any engine.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/runtime/records.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt {

// What a committed record survives (docs/runtime.md).
//  power_loss:    the machine losing power. Every commit syncs its data, and the commit that starts a
//                 tool is flushed completely before the tool is called.
//  process_crash: the process dying, not the machine. No syncs; much faster.
enum class durability : std::uint8_t { power_loss, process_crash };

struct store_stats {
    std::uint64_t commits = 0;
    std::uint64_t syncs = 0;     // data syncs of commits plus forced flushes
    std::uint64_t map_grows = 0; // times the engine grew its storage (LMDB: its map)
    std::size_t map_bytes = 0;   // storage reserved (LMDB: the map size)
};

// One committed state, read in one snapshot. Thread: the transaction's.
class store_reader {
public:
    virtual ~store_reader() = default;
    virtual std::optional<run_record> run(std::string_view id) const = 0;
    // Newest first: up to `limit` runs created before the run of creation order `before_order`
    // (every run when it is 0).
    virtual std::vector<run_record> runs_before(std::uint64_t before_order, std::size_t limit) const = 0;
    virtual std::optional<step_record> step(std::string_view run_id, std::uint64_t index) const = 0;
    virtual std::vector<step_record> steps(std::string_view run_id) const = 0;
    virtual std::vector<approval_record> approvals(std::string_view run_id) const = 0;
    virtual std::vector<event_record> events(std::string_view run_id) const = 0;
    virtual std::vector<model_call_record> model_calls(std::string_view run_id) const = 0;
    virtual std::optional<std::string> meta(std::string_view key) const = 0;
    virtual std::optional<std::string> tool_spec(std::string_view hash) const = 0;

    // Newest first: up to `limit` runs created before the run `before` (from the newest when empty;
    // none when `before` names no run).
    std::vector<run_record> runs(std::string_view before, std::size_t limit) const;
};

// One write transaction. Puts replace the record under the same key.
class engine_writer : public virtual store_reader {
public:
    // A run's first put gives it the next creation order (run.order).
    virtual void put(run_record& run) = 0;
    virtual void put(step_record const& step) = 0;
    virtual void put(approval_record const& approval) = 0;
    virtual void put(model_call_record const& call) = 0;
    virtual void put(event_record const& event) = 0;
    virtual void put_meta(std::string_view key, std::string_view value) = 0;
    virtual void put_tool_spec(std::string_view hash, std::string_view spec) = 0;
    // Removes a run with its steps, approvals, events and model calls; false when there was none.
    virtual bool erase_run(std::string_view run_id) = 0;
};

class engine {
public:
    virtual ~engine() = default;

    // Where the store lives, as store::open was given it ("lmdb:/var/lib/app/agentrt").
    virtual std::string const& location() const noexcept = 0;
    virtual agentrt::durability durability() const noexcept = 0;

    // Runs `work` in one read snapshot.
    virtual void read(std::function<void(store_reader const&)> const& work) const = 0;

    // As read, but the snapshot may be the runs as this thread last read or wrote them, which a
    // later write of the thread checks before it commits (the view a policy decides on): an engine
    // whose reads cost a round trip answers from what it saw. `work` may run more than once.
    virtual void read_as_last_seen(std::function<void(store_reader const&)> const& work) const { read(work); }

    // Runs `work` in one write transaction and commits it; an exception from `work` aborts it and
    // leaves the store unchanged. `work` may run more than once (the engine retries a transaction it
    // could not commit for a reason of its own, such as a full map, or one it did ahead on a snapshot
    // that changed before its commit). `flush`: the commit is durable
    // at the engine's durability level before write returns (the commit before a side effect).
    // Storage failures throw agentrt::exception with errc::store_failed.
    virtual void write(std::function<void(engine_writer&)> const& work, bool flush) = 0;

    // The host and process id this engine writes into leases, and whether the process that wrote a
    // lease is alive as far as this engine can tell (true when it cannot tell: the lease's expiry
    // still frees the run).
    virtual std::string const& host() const noexcept = 0;
    virtual std::int64_t process_id() const noexcept = 0;
    virtual bool holder_alive(lease_record const& lease) const = 0;

    // A compact, consistent copy of the store (as of one read snapshot) into the new, owner-only
    // directory `destination`; writers may go on meanwhile.
    virtual result<void> backup(std::filesystem::path const& destination) const = 0;

    virtual store_stats stats() const = 0;
};

} // namespace agentrt
