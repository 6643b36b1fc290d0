// The LMDB engine's environment, shared by its files. Internal to runtime/engines/lmdb.
#pragma once

#include "errors.hpp"
#include "lmdb.hpp"
#include "record_cache.hpp"

#include <agentrt/runtime/engine.hpp>
#include <agentrt/runtime/store.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace agentrt::lmdb_detail {

namespace fs = std::filesystem;

// A transaction's work done ahead against the newest snapshot, while another group commits: what it
// read there, to be read again under the writer lock, and what it wrote, applied there when every
// record it read is unchanged (lmdb_engine::write).
struct speculation {
    struct point {
        MDB_dbi dbi;
        std::string key;
        std::optional<std::string> value; // none: absent
    };
    struct range {
        MDB_dbi dbi;
        std::string prefix;
        std::vector<std::pair<std::string, std::string>> records;
    };
    struct write {
        MDB_dbi dbi;
        std::string key;
        std::optional<std::string> value; // none: erased
    };
    std::vector<point> points;
    std::vector<range> ranges;
    std::deque<write> writes; // a value read back is a view into its write: a deque keeps it in place
    // The work did what a snapshot cannot check: listed the runs, listed records of a database it
    // had written, or deleted a run.
    bool abandoned = false;
};

// A transaction waiting to be committed with the others that are ready (lmdb_engine::write).
struct pending_write {
    std::function<void(engine_writer&)> const* work;
    bool flush;                         // power_loss only: its meta page must be synced before it returns
    speculation const* ahead = nullptr; // its work done ahead, if it was
    std::exception_ptr failure{};
    bool done = false;       // committed, or failed
    std::uint64_t txnid = 0; // the newest commit it made or read, once its group committed
};

// What a group's commit did: the transaction id it committed (0 when nothing), the newest commit
// its transaction saw when it began (another process's, perhaps), and the error of a commit that
// failed, which may have failed a sync.
struct group_outcome {
    std::uint64_t txnid = 0;
    std::uint64_t seen = 0;
    std::optional<error> commit_failure{};
};

// Commits that a failed sync may have cost their power-loss durability: every commit in (after,
// through]. Linux reports a failed writeback to one fsync of a file only, and the next returns 0
// though the pages are lost, so neither a later sync nor one that ran beside the failed one can
// confirm them.
struct sync_doubt {
    std::uint64_t after = 0, through = 0;
    error cause;
};

// How many times this process was forked, as its child counts them.
std::uint64_t fork_count();
error store_error(std::string message);
error damaged_store(std::string message);

class lmdb_engine final : public engine {
public:
    ~lmdb_engine() override;

    std::string const& location() const noexcept override { return where; }
    agentrt::durability durability() const noexcept override { return options.durability; }
    void read(std::function<void(store_reader const&)> const& work) const override;
    void write(std::function<void(engine_writer&)> const& work, bool flush) override;
    void lead_commit(std::unique_lock<std::mutex>& lock);
    void sync_meta(std::unique_lock<std::mutex>& lock);
    group_outcome commit_alone(pending_write const& p);
    group_outcome commit_group(std::vector<pending_write*> const& group);
    // Under commit_mutex: commits after `after` up to `through` are in doubt for `cause`.
    void doubt(std::uint64_t after, std::uint64_t through, error cause);
    // Under commit_mutex: the doubt that `txnid`, a flushed commit, falls in.
    sync_doubt const* doubt_of(std::uint64_t txnid) const noexcept;
    // Under commit_mutex, with no writer inside `write`: drops the doubts no writer can fall in.
    void forget_past_doubts();
    void grow_map(); // doubles the map up to its maximum; storage_full at the maximum
    // commit_error for a failed commit; counts the commit and its sync. `wrote`: the transaction
    // has anything to commit.
    std::uint64_t commit(lmdb::txn& t, bool wrote);
    std::string const& host() const noexcept override;
    std::int64_t process_id() const noexcept override { return ::getpid(); }
    bool holder_alive(lease_record const& lease) const override;
    result<void> backup(fs::path const& destination) const override;
    store_stats stats() const override {
        std::shared_lock lock(grow);
        return {commits.load(), syncs.load(), grows.load(), map_bytes};
    }

    // Every commit up to this transaction id, of this process or another, survives power loss, meta
    // page included.
    std::uint64_t durable_txnid() {
        std::lock_guard lock(commit_mutex);
        return durable_through;
    }

    void refuse_in_forked_child() const {
        if (fork_count() != opened_after_forks)
            throw exception(err(errc::refused, "store " + path.string() +
                                                   " was opened before this process was forked; LMDB allows a "
                                                   "store only in the process that opened it: open it again here"));
    }

    fs::path path;
    std::string where;
    store_options options;
    lmdb::env env;
    mutable lmdb::reader_pool readers{env.get()}; // after env: its transactions end before the environment
    MDB_dbi runs = 0, run_order = 0, steps = 0, approvals = 0, events = 0, tool_specs = 0, model_calls = 0, meta = 0;
    mutable std::shared_mutex grow; // a map may only grow while this process has no transaction open
    std::atomic<std::uint64_t> commits{0}, syncs{0}, grows{0};
    mutable std::size_t map_bytes = 0;          // under `grow`
    mutable record_cache<run_record> run_cache; // thread-safe; see record_cache.hpp
    mutable record_cache<step_record> step_cache;
    // Group commit: the transactions of this process's threads that are ready while one commits are
    // committed together by the next, in one LMDB transaction and one sync.
    std::mutex commit_mutex;
    std::condition_variable committed;
    std::vector<pending_write*> ready; // under commit_mutex
    bool committing = false;           // under commit_mutex
    bool syncing = false;              // under commit_mutex: a meta sync is under way
    std::uint64_t durable_through = 0; // under commit_mutex: every commit up to it, of any process, survives power loss
    std::uint64_t last_commit = 0;     // under commit_mutex: the newest commit of this process
    std::uint64_t failed_syncs = 0;    // under commit_mutex: syncs and commits that failed so far
    error last_failure;                // under commit_mutex: why the latest of them failed
    std::vector<sync_doubt> doubts;    // under commit_mutex; ordered, disjoint
    std::size_t writing = 0;           // under commit_mutex: threads inside `write`
    int owner_fd = -1;
    std::string registered;
    std::uint64_t opened_after_forks = fork_count();
};

// The newest commit the calling thread's last write made or read, 0 when it failed: what the
// engine's tests compare with durable_txnid().
std::uint64_t last_write_txnid_of_this_thread() noexcept;

// Adopts the map size another process grew to. The exclusive lock: no transaction of this process
// may be open while the map moves.
void adopt_grown_map(lmdb_engine const& s);

// The error of a page LMDB found damaged, naming the store and what to do.
error damaged_page_error(lmdb_engine const& s, lmdb::damaged_page const& e);

} // namespace agentrt::lmdb_detail
