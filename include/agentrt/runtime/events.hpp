// agentrt/runtime/events.hpp — what an event records, by name.
//
//     if (e.is(agentrt::event_type::step_tool_started)) ...
//     agentrt::to_string(agentrt::event_type::step_tool_started) == "step.tool_started"
//
// Events explain state changes (docs/runtime.md lists what each one carries); they are never read
// back to decide anything. Each type is spelled once, here: its stored name is the enumerator's
// with the first '_' as '.'.
#pragma once

#include <boost/describe/enum.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace agentrt {

enum class event_type : std::uint8_t {
    run_created,
    run_started,
    run_resumed,
    run_finished,
    step_started,
    step_decided,
    step_policy,
    step_tool_started,
    step_tool_finished,
    step_failed,
    step_interrupted,
    step_reconciled,
    approval_requested,
    approval_decided,
    approval_expired,
    lease_taken_over,
    limit_exceeded,
    loop_detected,
    model_dispatched,
    model_completed,
    model_failed,
};
BOOST_DESCRIBE_ENUM(event_type, run_created, run_started, run_resumed, run_finished, step_started, step_decided,
                    step_policy, step_tool_started, step_tool_finished, step_failed, step_interrupted, step_reconciled,
                    approval_requested, approval_decided, approval_expired, lease_taken_over, limit_exceeded,
                    loop_detected, model_dispatched, model_completed, model_failed)

// "step.tool_started"
std::string_view to_string(event_type t) noexcept;
// The type a stored name spells; nullopt for a name no event type has.
std::optional<event_type> event_type_named(std::string_view name) noexcept;

} // namespace agentrt
