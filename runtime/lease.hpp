// Leases: who may advance a run, and whether its holder is still alive. Internal.
//
// A lease is taken with the move to running, renewed while its holder works and released by a
// compare-and-set on its owner and epoch. A holder is alive while its session lives in this process, or, in
// another process, while its engine says so (LMDB: the process's lock on owners.lock); a holder that
// is alive but stuck loses the run at its lease's expiry.
#pragma once

#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>

#include <chrono>
#include <string>
#include <utility>

namespace agentrt::leases {

// Sessions of this process that are alive: a lease of this process whose owner is not here was
// left by a session that ended without releasing (as a crash leaves it).
void add_live_owner(std::string const& owner);
void remove_live_owner(std::string const& owner);
bool live_owner(std::string const& owner);

// An owner marked live before its lease is committed, so that no other thread of this process can
// read the new lease and take its holder for dead; unmarked again unless a session took it over.
class live_claim {
public:
    explicit live_claim(std::string owner) : owner_(std::move(owner)) { add_live_owner(owner_); }
    ~live_claim() {
        if (!kept_)
            remove_live_owner(owner_);
    }
    live_claim(live_claim const&) = delete;
    live_claim& operator=(live_claim const&) = delete;
    void keep() noexcept { kept_ = true; } // a session now owns the mark

private:
    std::string owner_;
    bool kept_ = false;
};

// Whether the holder of `lease` is still alive, as far as this process and the store can tell.
bool holder_alive(store const& s, lease_record const& lease);

// A holder's name, unique to one session ("host/pid/random").
std::string new_owner(store const& s);
lease_record lease_for(store const& s, std::string owner, std::int64_t lease_now, std::chrono::milliseconds span);

// Whether `lease` is the holding of `owner` at `epoch`: the fencing compare of every write under a
// lease. The epoch tells a session's holdings apart (it may release a run and take it again) and is
// the whole compare an engine needs, such as a database's `WHERE lease_epoch = $1`.
bool held_by(lease_record const& lease, std::string_view owner, std::uint64_t epoch);

// The run's lease passes to `lease`, one epoch on from the run's last, and a stretch of active time
// starts; the new epoch.
std::uint64_t take(run_record& run, lease_record lease, std::int64_t now);
// Nobody holds the run (its epoch stays); its active time pauses.
void release(run_record& run, std::int64_t now);
// The lease of a holder that died, or whose lease expired, is taken from it; lease.taken_over.
void take_over(store_writer& w, run_record& run, bool holder_was_alive, std::int64_t now);

// Checks that `owner` still holds `run` at `epoch` under the lease clock (the compare of every write
// under a lease) and extends the lease; a typed error otherwise.
result<void> hold(run_record& run, std::string const& owner, std::uint64_t epoch, std::int64_t lease_now,
                  std::chrono::milliseconds span);
// Extends a lease its owner still holds, in a write of its own; false once it is lost or lapsed.
bool renew(store& s, std::string const& run_id, std::string const& owner, std::uint64_t epoch, std::int64_t lease_now,
           std::chrono::milliseconds span);

// Active time: a stretch starts when a session takes the run and ends when the run pauses or ends.
void start_active(run_record& run, std::int64_t now);
void count_active(run_record& run, std::int64_t now); // adds the stretch so far, keeps counting
void pause_active(run_record& run, std::int64_t now); // adds the stretch and stops counting

} // namespace agentrt::leases
