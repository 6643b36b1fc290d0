// Leases: who may advance a run, and whether its holder is still alive. Internal.
//
// A lease is taken with the move to running, renewed while its holder works and released by a
// compare-and-set on the owner. A holder is alive while its session lives in this process, or, in
// another process, while its engine says so (LMDB: the process's lock on owners.lock); a holder that
// is alive but stuck loses the run at its lease's expiry.
#pragma once

#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>

#include <string>
#include <utility>

namespace agentrt::leases {

std::string const& host_name();

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

// Active time: a stretch starts when a session takes the run and ends when the run pauses or ends.
void start_active(run_record& run, std::int64_t now);
void count_active(run_record& run, std::int64_t now); // adds the stretch so far, keeps counting
void pause_active(run_record& run, std::int64_t now); // adds the stretch and stops counting

} // namespace agentrt::leases
