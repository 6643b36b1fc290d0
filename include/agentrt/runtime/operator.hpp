// agentrt/runtime/operator.hpp — what an operator does to runs: approve, reject, cancel.
//
//     auto pending = agentrt::pending_approvals(store);             // reads.hpp
//     agentrt::approve(store, pending[0].run_id, pending[0].step_index, pending[0].hash, {.who = "ana"});
//
// Approving and rejecting take the hash the operator was shown, and refuse when the stored
// approval differs from it, is not the step's latest, or no longer matches its own hash (a row
// altered behind the runtime's back). The check and the change are one transaction. None of these
// needs the run's lease.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/runtime/clock.hpp>
#include <agentrt/runtime/store.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt {

struct operator_options {
    std::string who = "operator";
    clock_function clock = system_clock_ms;                // the record clock
    std::optional<std::chrono::milliseconds> approval_ttl; // approving an approval older than this is refused
    // Why, in the operator's words: recorded in the approval.decided event when not empty.
    std::string note{};
};

// The approval stays granted until a driver resumes the run (which re-asks the policy). Refused,
// changing nothing, when the shown hash is not the latest approval's, the run no longer waits, or the
// approval was requested longer than approval_ttl ago (it stays pending: rejecting it ends the run).
result<approval_record> approve(store& s, std::string_view run_id, std::uint64_t step_index,
                                std::string_view shown_hash, operator_options const& options = {});
// The step fails and the run fails approval_rejected.
result<approval_record> reject(store& s, std::string_view run_id, std::uint64_t step_index, std::string_view shown_hash,
                               operator_options const& options = {});
// Cancels any run that has not ended, held or not. A tool still running gets its outcome appended late.
result<run_record> cancel(store& s, std::string_view run_id, std::string reason = "cancelled by the operator",
                          operator_options const& options = {});

} // namespace agentrt
