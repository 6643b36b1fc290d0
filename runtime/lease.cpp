#include "lease.hpp"

#include <mutex>
#include <set>
#include <unistd.h>

namespace agentrt::leases {
namespace {
std::mutex live_mutex;
std::set<std::string> live;
} // namespace

std::string const& host_name() {
    static std::string const name = [] {
        char buffer[256] = {};
        ::gethostname(buffer, sizeof buffer - 1);
        return std::string(buffer);
    }();
    return name;
}

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
    if (lease.host == host_name() && lease.pid == ::getpid())
        return live_owner(lease.owner);
    return s.holder_alive(lease);
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
