// The gate's internals shared by gate.cpp (sessions, attach) and step.cpp (the step machine).
#pragma once

#include <agentrt/runtime/gate.hpp>

#include <mutex>
#include <thread>
#include <vector>

namespace agentrt {

struct gate::impl {
    std::mutex late_mutex;
    std::vector<std::jthread> late; // tools that overran their timeout, still running
};

namespace gate_detail {

// Checks that `owner` still holds `run` under the lease clock, and renews the lease.
result<void> hold(run_record& run, std::string const& owner, std::int64_t lease_now, std::chrono::milliseconds span);

// Settles an interrupted side-effecting step: the reconcile hook's answer, or an approval of kind
// interrupted_side_effect. The session holds the run's lease.
result<void> settle(gate& g, session& s, step_record step);

// Opens the run's next step, or ends the run at a limit (limit.exceeded, loop.detected).
std::optional<std::uint64_t> open_next(store_writer& w, run_record& run, limits const& l, std::int64_t now);

// The request as the approval hashes it, for a step under today's tool spec.
std::string requested_hash(step_record const& step, boost::json::object const& spec, verdict const& v);

} // namespace gate_detail
} // namespace agentrt
