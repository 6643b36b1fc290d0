#include "failing_syncs.hpp"

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <dlfcn.h>
#include <mutex>

namespace runtime_test::syncs {
namespace {

struct armed_syncs {
    std::mutex mutex;
    std::condition_variable changed;
    int seen = 0;
    int held = 0, failing = 0; // numbers of the syncs armed, 0 for none
    outcome after_hold = outcome::passes;
    bool reached = false, released = false;
    std::function<std::uint64_t()> newest_on_file;
    std::uint64_t synced_through = 0;
};

armed_syncs& armed() {
    static armed_syncs a;
    return a;
}

// Whether this sync fails, after waiting for release() when it is the held one.
bool strikes(std::unique_lock<std::mutex>& lock) {
    auto& a = armed();
    int const number = ++a.seen;
    if (number == a.failing)
        return true;
    if (number != a.held)
        return false;
    a.reached = true;
    a.changed.notify_all();
    a.changed.wait(lock, [&] { return a.released; });
    return a.after_hold == outcome::fails;
}

template <class Sync>
int interposed(char const* name, int fd) {
    static auto const real = reinterpret_cast<Sync>(::dlsym(RTLD_NEXT, name));
    auto& a = armed();
    std::unique_lock lock(a.mutex);
    std::uint64_t const newest = a.newest_on_file ? a.newest_on_file() : 0;
    if (strikes(lock)) {
        errno = EIO;
        return -1;
    }
    lock.unlock();
    int const result = real(fd);
    lock.lock();
    if (result == 0 && newest > a.synced_through)
        a.synced_through = newest;
    return result;
}

} // namespace

void hold(int nth, outcome then) {
    auto& a = armed();
    std::lock_guard lock(a.mutex);
    a.held = a.seen + nth;
    a.after_hold = then;
    a.reached = a.released = false;
}

void fail(int nth) {
    auto& a = armed();
    std::lock_guard lock(a.mutex);
    a.failing = a.seen + nth;
}

bool wait_until_held(int seconds) {
    auto& a = armed();
    std::unique_lock lock(a.mutex);
    return a.changed.wait_for(lock, std::chrono::seconds(seconds), [&] { return a.reached; });
}

void release() {
    auto& a = armed();
    std::lock_guard lock(a.mutex);
    a.released = true;
    a.changed.notify_all();
}

int reset() {
    auto& a = armed();
    std::lock_guard lock(a.mutex);
    int const seen = a.seen;
    a.seen = a.held = a.failing = 0;
    a.reached = false;
    a.newest_on_file = nullptr;
    a.synced_through = 0;
    a.released = true;
    a.changed.notify_all();
    return seen;
}

void observe(std::function<std::uint64_t()> newest_on_file) {
    auto& a = armed();
    std::lock_guard lock(a.mutex);
    a.newest_on_file = std::move(newest_on_file);
}

std::uint64_t synced_through() {
    auto& a = armed();
    std::lock_guard lock(a.mutex);
    return a.synced_through;
}

} // namespace runtime_test::syncs

extern "C" int fdatasync(int fd) {
    return runtime_test::syncs::interposed<int (*)(int)>("fdatasync", fd);
}

extern "C" int fsync(int fd) {
    return runtime_test::syncs::interposed<int (*)(int)>("fsync", fd);
}
