// The gate's internals shared by gate.cpp (sessions, attach) and step.cpp (the step machine).
#pragma once

#include <agentrt/runtime/gate.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace agentrt {

// One thread that runs a gate's tool and model calls, so a call does not pay for starting a thread. A
// runner whose tool overran its timeout is retired: it finishes that call (recording it late) and ends.
//
// After a call the runner watches for the next one for a short while before it sleeps: waking a
// sleeping thread cost 25-30 us per step on the 2-core VM (a futex wake and, worse, an idle virtual
// CPU to rouse), about a third of a process_crash step. It watches only while the gaps between calls
// are that short: a gate whose agent takes longer to decide (any model call, a power_loss step's
// syncs) spends `watch_for` of CPU once, then sleeps at once.
class tool_runner {
public:
    static constexpr std::chrono::microseconds watch_for{100};

    void submit(std::function<void()> task) {
        bool sleeping = false;
        {
            std::lock_guard lock(mutex_);
            task_ = std::move(task);
            submitted_.store(true, std::memory_order_release);
            sleeping = sleeping_;
        }
        if (sleeping)
            wake_.notify_one(); // after unlocking: the woken runner does not block on the mutex at once
    }
    void retire() {
        std::lock_guard lock(mutex_);
        retired_ = true;
        wake_.notify_one();
    }
    // Retired, and done with its last call: destroying it joins at once.
    bool ended() const noexcept { return ended_.load(std::memory_order_acquire); }

private:
    void watch(std::stop_token const& stop) const {
        auto const until = std::chrono::steady_clock::now() + watch_for;
        for (unsigned i = 1; !submitted_.load(std::memory_order_acquire) && !stop.stop_requested(); ++i) {
            if (i % 64 == 0 && std::chrono::steady_clock::now() >= until)
                return;
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
    }

    void loop(std::stop_token stop) {
        bool watching = true;
        for (;;) {
            auto const idle_since = std::chrono::steady_clock::now();
            if (watching)
                watch(stop);
            std::unique_lock lock(mutex_);
            sleeping_ = true; // under the mutex: a submit sees it, or the wait sees the task
            wake_.wait(lock, stop, [&] { return task_ || retired_; });
            sleeping_ = false;
            if (!task_) {
                ended_.store(true, std::memory_order_release);
                return; // retired or stopped, and idle
            }
            // Watch after this call only if this gap was short enough to be caught by watching.
            watching = std::chrono::steady_clock::now() - idle_since < watch_for;
            auto task = std::move(task_);
            task_ = nullptr;
            submitted_.store(false, std::memory_order_relaxed);
            lock.unlock();
            task();
        }
    }

    std::mutex mutex_;
    std::condition_variable_any wake_;
    std::function<void()> task_;
    bool retired_ = false;
    bool sleeping_ = false;
    std::atomic<bool> submitted_{false};
    std::atomic<bool> ended_{false};
    std::jthread thread_{[this](std::stop_token stop) { loop(stop); }}; // last: starts after the rest exists
};

// A tool's spec as the store keeps it: canonical JSON and its hash.
struct tool_spec_text {
    std::string hash;
    std::string canonical;
};

struct gate::impl {
    std::unique_ptr<tool_runner> runner;
    std::mutex late_mutex;
    std::vector<std::unique_ptr<tool_runner>> late; // runners whose tool overran its timeout, until they end
    // By tool index, computed on first use: the table is immutable, and the canonical spec (its whole
    // schema) was a measured twentieth of a step's CPU when rebuilt for every call.
    std::vector<std::optional<tool_spec_text>> specs;

    tool_spec_text const& spec_of(tool_table const& tools, tool_entry const& tool);
};

namespace gate_detail {

// Settles an interrupted side-effecting step: the reconcile hook's answer, or an approval of kind
// interrupted_side_effect. The session holds the run's lease.
result<void> settle(gate& g, session& s, step_record step);

// Opens the run's next step, or ends the run at a limit (limit.exceeded, loop.detected).
std::optional<std::uint64_t> open_next(store_writer& w, run_record& run, limits const& l, std::int64_t now);

// Waits on `finished` (its mutex held by `lock`) until `done()` or `deadline`, renewing the session's
// lease every third of lease_duration meanwhile (the first time within half of `lease_left`, what was
// left of it when the work started), so that work longer than the lease is not taken for a stuck
// holder; a renewal that fails, or throws, ends the renewals. True when done before the deadline.
bool wait_renewing(gate& g, session& s, std::unique_lock<std::mutex>& lock, std::condition_variable& finished,
                   std::function<bool()> const& done, std::chrono::steady_clock::time_point deadline,
                   std::chrono::milliseconds lease_left);

// The request as the approval hashes it, for a step under today's tool spec.
std::string requested_hash(step_record const& step, boost::json::object const& spec, verdict const& v);

} // namespace gate_detail
} // namespace agentrt
