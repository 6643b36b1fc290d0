// agentrt/runtime/limits.hpp — bounds a run is held to, each checked before the work it bounds.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace agentrt {

struct limits {
    std::uint64_t max_steps = 50;
    std::uint64_t max_failed_streak = 3;                  // consecutive failed steps
    std::uint64_t loop_threshold = 3;                     // the same call with the same result this many times in a row
    std::optional<std::chrono::milliseconds> max_elapsed; // since the run was created, by the record clock
    std::optional<std::chrono::milliseconds> max_active;  // running time, approval waits excluded
};

} // namespace agentrt
