// The state machines of a run and of a step: the only code that changes their status. Internal.
//
// Each function is one transition: it checks that the record is in a state the transition leaves
// (a broken expectation throws agentrt::exception with errc::conflict, which aborts the write it is
// in, so the loser changes nothing), sets the new status and what goes with it, and appends the
// event that explains it. The caller has already compared what it read (lease, step status, attempt)
// inside the same transaction, and puts the records afterwards. The tables below are the machines
// as data; docs/runtime.md shows them, kept in step by tests/runtime/transitions.cpp.
#pragma once

#include <agentrt/catalog/policy.hpp>
#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>

#include <boost/json/object.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace agentrt::transitions {

struct run_transition {
    run_status from, to;
    std::string_view how; // the function below that makes it
};
struct step_transition {
    step_status from, to;
    std::string_view how;
};
std::span<run_transition const> run_machine() noexcept;
std::span<step_transition const> step_machine() noexcept;
// Both machines as Markdown tables (from | to | by), as docs/runtime.md shows them.
std::string machines_as_markdown();

// --- run ---

// running | waiting_for_approval -> completed | failed | cancelled: the lease is released and every
// pending approval cancelled; run.finished.
void finish_run(store_writer& w, run_record& run, run_status status, std::string_view reason, std::string message,
                std::int64_t now);

// running -> waiting_for_approval, with the step's next approval (the latest, the only one that can
// grant): the lease is released and active time pauses; approval.requested. The step moves to
// awaiting_approval (deciding, re-asked, or an interrupted side effect asked again).
approval_record ask_approval(store_writer& w, run_record& run, step_record& step, boost::json::object const& tool_spec,
                             verdict const& v, std::int64_t now);

// running -> waiting_for_approval on whether an interrupted side effect may run once more: the step
// stays interrupted, settled by the approval (resolution "approval").
approval_record ask_about_interruption(store_writer& w, run_record& run, step_record& step,
                                       boost::json::object const& tool_spec, verdict const& v, std::int64_t now);

// waiting_for_approval -> running under `lease`, for the granted approval `hash` of `step`; run.resumed.
std::uint64_t resume_granted(store_writer& w, run_record& run, lease_record lease, std::uint64_t step,
                             std::string_view hash, std::int64_t now);

// --- step ---

// deciding -> done: the agent completed the goal (the run's end is finish_run).
void complete_by_decision(store_writer& w, run_record& run, step_record& step, std::string observation,
                          std::int64_t now);

// deciding | awaiting_approval | executing | interrupted -> failed; step.failed with the reason and error.
void fail_step(store_writer& w, run_record& run, step_record& step, std::string_view reason, std::string error,
               std::int64_t now);

// deciding | awaiting_approval -> executing: one more attempt; step.tool_started (naming the approval
// that granted it, when one did). Its commit must be durable before the tool is called.
void start_tool_call(store_writer& w, run_record& run, step_record& step, std::string_view granted_by,
                     std::int64_t now);

// executing -> done with the tool's result; step.tool_finished.
void finish_tool_call(store_writer& w, run_record& run, step_record& step, std::string observation, std::int64_t now);

// executing -> failed: the tool reported an error; step.tool_finished and step.failed.
void fail_tool_call(store_writer& w, run_record& run, step_record& step, std::string observation, std::string error,
                    std::int64_t now);

// executing -> failed: a read-only tool overran its timeout (it has no effect to lose); step.failed.
void time_out_read_only(store_writer& w, run_record& run, step_record& step, std::string error, std::int64_t now);

// deciding | awaiting_approval | executing -> interrupted (a takeover, a cancel, an overrun side
// effect), with how it was settled ("" while unsettled); step.interrupted.
void interrupt_step(store_writer& w, run_record& run, step_record& step, std::string resolution, std::int64_t now);

// interrupted -> done: the reconcile hook says the interrupted call completed, with its result.
void reconcile_completed(store_writer& w, run_record& run, step_record& step, std::string observation,
                         std::int64_t now);

// --- reads the machines decide by ---

// Whether an interrupted step can simply be left behind (deciding, or a read-only tool).
bool harmless_interruption(step_record const& step, tool_table const& tools);

std::optional<approval_record> latest_approval(store_reader const& r, std::string_view run_id, std::uint64_t step);

} // namespace agentrt::transitions
