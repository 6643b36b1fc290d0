// agentrt/runtime/clock.hpp — the injectable clocks and id source of the runtime.
//
//     agentrt::manual_clock t{1'700'000'000'000};
//     options.clocks = {t, t};              // record clock, lease clock
//     options.ids = agentrt::counting_ids("run-");
//     t.advance(std::chrono::seconds(31));   // a lease of 30 s has now expired
//
// The record clock stamps records and events and is read once per transaction, before it starts, so
// two runs of a scenario with the same deterministic clock and ids record the same logical store.
// The lease clock alone decides lease expiry, so tests can expire a lease without moving records.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace agentrt {

// Milliseconds since the Unix epoch.
using clock_function = std::function<std::int64_t()>;
using id_source = std::function<std::string()>;

std::int64_t system_clock_ms();
// 32 random hex digits.
std::string random_id();
// 12 hex digits of now_ms, then 20 random ones (80 bits): ids made in a later millisecond sort later,
// so the records of the runs live at one time sit together in every tree keyed by run id.
std::string time_ordered_id(std::int64_t now_ms);
// time_ordered_id(system_clock_ms()); the runtime's default run id.
std::string time_ordered_id();

struct clocks {
    clock_function record = system_clock_ms;
    clock_function lease = system_clock_ms;
};

// A clock that moves only when told; copies share one time.
class manual_clock {
public:
    explicit manual_clock(std::int64_t start_ms = 0) : now_(std::make_shared<std::atomic<std::int64_t>>(start_ms)) {}
    std::int64_t operator()() const { return now_->load(); }
    void advance(std::chrono::milliseconds by) { *now_ += by.count(); }
    void set(std::int64_t ms) { *now_ = ms; }

private:
    std::shared_ptr<std::atomic<std::int64_t>> now_;
};

// prefix + 1, prefix + 2, ...; copies share one counter.
class counting_ids {
public:
    explicit counting_ids(std::string prefix)
        : prefix_(std::move(prefix)), next_(std::make_shared<std::atomic<int>>(1)) {}
    std::string operator()() const { return prefix_ + std::to_string((*next_)++); }

private:
    std::string prefix_;
    std::shared_ptr<std::atomic<int>> next_;
};

} // namespace agentrt
