#include "lease.hpp"

#include "errors.hpp"

#include <agentrt/runtime/clock.hpp>

#include <mutex>
#include <set>
#include <unistd.h>

namespace agentrt::leases {
namespace {
std::mutex live_mutex;
std::set<std::string> live;

void drop_holder(lease_record& lease) {
    auto epoch = lease.epoch;
    lease = {};
    lease.epoch = epoch;
}
} // namespace

void add_live_owner(std::string const& owner) {
    std::lock_guard lock(live_mutex);
    live.insert(owner);
}
void remove_live_owner(std::string const& owner) {
    std::lock_guard lock(live_mutex);
    live.erase(owner);
}
bool live_owner(std::string const& owner) {
    std::lock_guard lock(live_mutex);
    return live.contains(owner);
}

bool holder_alive(store const& s, lease_record const& lease) {
    if (lease.owner.empty())
        return false;
    if (lease.host == s.host() && lease.pid == ::getpid())
        return live_owner(lease.owner);
    return s.holder_alive(lease);
}

std::string new_owner(store const& s) {
    return s.host() + "/" + std::to_string(s.process_id()) + "/" + random_id();
}

lease_record lease_for(store const& s, std::string owner, std::int64_t lease_now, std::chrono::milliseconds span) {
    return {std::move(owner), s.host(), s.process_id(), lease_now + span.count()};
}

bool held_by(lease_record const& lease, std::string_view owner, std::uint64_t epoch) {
    return !lease.owner.empty() && lease.owner == owner && lease.epoch == epoch;
}

std::uint64_t take(run_record& run, lease_record lease, std::int64_t now) {
    lease.epoch = run.lease.epoch + 1;
    run.lease = std::move(lease);
    start_active(run, now);
    return run.lease.epoch;
}

void release(run_record& run, std::int64_t now) {
    pause_active(run, now);
    drop_holder(run.lease);
}

void take_over(store_writer& w, run_record& run, bool holder_was_alive, std::int64_t now) {
    w.append(run, event_type::lease_taken_over, {{"why", holder_was_alive ? "expired" : "holder_dead"}}, now);
    drop_holder(run.lease);
}

result<void> hold(run_record& run, std::string const& owner, std::uint64_t epoch, std::int64_t lease_now,
                  std::chrono::milliseconds span) {
    if (!held_by(run.lease, owner, epoch))
        return err(errc::conflict, "this session no longer holds run " + run.id +
                                       (run.lease.owner.empty() ? std::string(": its lease was released")
                                        : run.lease.owner == owner
                                            ? ": it was taken again (lease epoch " + std::to_string(run.lease.epoch) +
                                                  ", not " + std::to_string(epoch) + ")"
                                            : ": it is now held by " + run.lease.owner));
    if (lease_now >= run.lease.expiry_ms)
        return err(errc::conflict, "the lease on run " + run.id + " lapsed at " + std::to_string(run.lease.expiry_ms) +
                                       " (lease clock now " + std::to_string(lease_now) +
                                       "): no further tool or model call; attach again");
    run.lease.expiry_ms = lease_now + span.count();
    return {};
}

bool renew(store& s, std::string const& run_id, std::string const& owner, std::uint64_t epoch, std::int64_t lease_now,
           std::chrono::milliseconds span) {
    return s.write([&](store_writer& w) {
        auto run = w.run(run_id);
        if (!run || !held_by(run->lease, owner, epoch) || lease_now >= run->lease.expiry_ms)
            return false;
        run->lease.expiry_ms = lease_now + span.count();
        w.put(*run);
        return true;
    });
}

void start_active(run_record& run, std::int64_t now) {
    run.active_since_ms = now;
}

void count_active(run_record& run, std::int64_t now) {
    if (run.active_since_ms != 0 && now > run.active_since_ms)
        run.active_ms += now - run.active_since_ms;
    if (run.active_since_ms != 0)
        run.active_since_ms = now;
}

void pause_active(run_record& run, std::int64_t now) {
    count_active(run, now);
    run.active_since_ms = 0;
}

} // namespace agentrt::leases
