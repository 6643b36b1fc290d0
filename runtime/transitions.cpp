#include "transitions.hpp"

#include "errors.hpp"
#include "lease.hpp"

#include <agentrt/catalog/canonical_json.hpp>

#include <algorithm>

namespace agentrt::transitions {
namespace {

using rs = run_status;
using ss = step_status;

constexpr run_transition run_rows[] = {
    {rs::running, rs::waiting_for_approval, "ask_approval"},
    {rs::running, rs::waiting_for_approval, "ask_about_interruption"},
    {rs::waiting_for_approval, rs::running, "resume_granted"},
    {rs::running, rs::completed, "finish_run"},
    {rs::running, rs::failed, "finish_run"},
    {rs::running, rs::cancelled, "finish_run"},
    {rs::waiting_for_approval, rs::completed, "finish_run"},
    {rs::waiting_for_approval, rs::failed, "finish_run"},
    {rs::waiting_for_approval, rs::cancelled, "finish_run"},
};

constexpr step_transition step_rows[] = {
    {ss::deciding, ss::done, "complete_by_decision"},
    {ss::deciding, ss::executing, "start_tool_call"},
    {ss::deciding, ss::awaiting_approval, "ask_approval"},
    {ss::deciding, ss::failed, "fail_step"},
    {ss::deciding, ss::interrupted, "interrupt_step"},
    {ss::awaiting_approval, ss::executing, "start_tool_call"},
    {ss::awaiting_approval, ss::awaiting_approval, "ask_approval"},
    {ss::awaiting_approval, ss::failed, "fail_step"},
    {ss::awaiting_approval, ss::interrupted, "interrupt_step"},
    {ss::executing, ss::done, "finish_tool_call"},
    {ss::executing, ss::failed, "fail_tool_call"},
    {ss::executing, ss::failed, "time_out_read_only"},
    {ss::executing, ss::failed, "fail_step"},
    {ss::executing, ss::interrupted, "interrupt_step"},
    {ss::interrupted, ss::executing, "start_tool_call"},
    {ss::interrupted, ss::awaiting_approval, "ask_approval"},
    {ss::interrupted, ss::failed, "fail_step"},
    {ss::interrupted, ss::done, "reconcile_completed"},
};

// The compare of each compare-and-set: a transition the machine lacks from this state is refused.
void move(run_record& run, run_status to, std::string_view how) {
    bool known = std::any_of(std::begin(run_rows), std::end(run_rows),
                             [&](auto const& t) { return t.from == run.status && t.to == to && t.how == how; });
    if (!known)
        throw exception(err(errc::conflict, "run " + run.id + " is " + std::string(to_string(run.status)) + ": " +
                                                std::string(how) + " cannot make it " + std::string(to_string(to))));
    run.status = to;
}

void move(step_record& step, step_status to, std::string_view how) {
    bool known = std::any_of(std::begin(step_rows), std::end(step_rows),
                             [&](auto const& t) { return t.from == step.status && t.to == to && t.how == how; });
    if (!known)
        throw exception(err(errc::conflict, "step " + step.id() + " is " + std::string(to_string(step.status)) + ": " +
                                                std::string(how) + " cannot make it " + std::string(to_string(to))));
    step.status = to;
}

approval_record request_approval(store_writer& w, run_record& run, step_record const& step,
                                 boost::json::object const& tool_spec, verdict const& v, std::int64_t now) {
    auto previous = latest_approval(w, run.id, step.index);
    approval_record a;
    a.run_id = run.id;
    a.step_index = step.index;
    a.seq = previous ? previous->seq + 1 : 0;
    a.kind = v.kind;
    a.reason = v.reason;
    a.capability = v.capability;
    a.presentation = v.presentation;
    boost::json::value args = step.arguments.empty() ? boost::json::value(nullptr) : parse_record_text(step.arguments);
    a.request = {{"run", run.id}, {"step", step.index}, {"tool", tool_spec}, {"arguments", std::move(args)}};
    a.hash = approval_hash(a);
    a.requested_ms = now;
    w.put(a);
    w.append(run, event_type::approval_requested,
             {{"step", step.index}, {"seq", a.seq}, {"kind", a.kind}, {"hash", a.hash}, {"reason", a.reason}}, now);
    return a;
}

} // namespace

std::span<run_transition const> run_machine() noexcept {
    return run_rows;
}
std::span<step_transition const> step_machine() noexcept {
    return step_rows;
}

std::string machines_as_markdown() {
    std::string out = "| run from | to | by |\n|---|---|---|\n";
    for (auto const& t : run_rows)
        out += "| " + std::string(to_string(t.from)) + " | " + std::string(to_string(t.to)) + " | `" +
               std::string(t.how) + "` |\n";
    out += "\n| step from | to | by |\n|---|---|---|\n";
    for (auto const& t : step_rows)
        out += "| " + std::string(to_string(t.from)) + " | " + std::string(to_string(t.to)) + " | `" +
               std::string(t.how) + "` |\n";
    return out;
}

void finish_run(store_writer& w, run_record& run, run_status status, std::string_view reason, std::string message,
                std::int64_t now) {
    move(run, status, "finish_run");
    leases::release(run, now);
    run.reason = reason;
    run.message = std::move(message);
    run.updated_ms = now;
    for (auto& a : w.approvals(run.id))
        if (a.status == approval_status::pending) {
            a.status = approval_status::cancelled;
            a.decided_ms = now;
            w.put(a);
        }
    w.append(run, event_type::run_finished,
             {{"status", to_string(status)}, {"reason", reason}, {"message", run.message}}, now);
}

approval_record ask_approval(store_writer& w, run_record& run, step_record& step, boost::json::object const& tool_spec,
                             verdict const& v, std::int64_t now) {
    move(step, step_status::awaiting_approval, "ask_approval");
    w.put(step);
    auto a = request_approval(w, run, step, tool_spec, v, now);
    move(run, run_status::waiting_for_approval, "ask_approval");
    leases::release(run, now);
    return a;
}

approval_record ask_about_interruption(store_writer& w, run_record& run, step_record& step,
                                       boost::json::object const& tool_spec, verdict const& v, std::int64_t now) {
    if (step.status != step_status::interrupted)
        throw exception(err(errc::conflict, "step " + step.id() + " is " + std::string(to_string(step.status)) +
                                                ", not interrupted: there is no interruption to ask about"));
    step.resolution = "approval";
    w.put(step);
    auto a = request_approval(w, run, step, tool_spec, v, now);
    move(run, run_status::waiting_for_approval, "ask_about_interruption");
    leases::release(run, now);
    return a;
}

std::uint64_t resume_granted(store_writer& w, run_record& run, lease_record lease, std::uint64_t step,
                             std::string_view hash, std::int64_t now) {
    move(run, run_status::running, "resume_granted");
    auto epoch = leases::take(run, std::move(lease), now);
    run.updated_ms = now;
    w.append(run, event_type::run_resumed, {{"step", step}, {"approval", hash}}, now);
    return epoch;
}

void complete_by_decision(store_writer&, run_record&, step_record& step, std::string observation, std::int64_t now) {
    move(step, step_status::done, "complete_by_decision");
    step.observation = std::move(observation);
    step.finished_ms = now;
}

void fail_step(store_writer& w, run_record& run, step_record& step, std::string_view reason, std::string error,
               std::int64_t now) {
    move(step, step_status::failed, "fail_step");
    step.error = std::move(error);
    step.finished_ms = now;
    w.append(run, event_type::step_failed, {{"step", step.index}, {"reason", reason}, {"error", step.error}}, now);
}

void start_tool_call(store_writer& w, run_record& run, step_record& step, std::string_view granted_by,
                     std::int64_t now) {
    move(step, step_status::executing, "start_tool_call");
    ++step.attempt;
    boost::json::object data{{"step", step.index}, {"tool", step.tool}, {"attempt", step.attempt}};
    if (!granted_by.empty())
        data["approval"] = granted_by;
    w.append(run, event_type::step_tool_started, std::move(data), now);
}

void finish_tool_call(store_writer& w, run_record& run, step_record& step, std::string observation, std::int64_t now) {
    move(step, step_status::done, "finish_tool_call");
    step.finished_ms = now;
    w.append(run, event_type::step_tool_finished,
             {{"step", step.index}, {"attempt", step.attempt}, {"ok", true}, {"observation", sha256_hex(observation)}},
             now);
    step.observation = std::move(observation);
}

void fail_tool_call(store_writer& w, run_record& run, step_record& step, std::string observation, std::string error,
                    std::int64_t now) {
    move(step, step_status::failed, "fail_tool_call");
    step.observation = std::move(observation);
    step.error = std::move(error);
    step.finished_ms = now;
    w.append(run, event_type::step_tool_finished, {{"step", step.index}, {"attempt", step.attempt}, {"ok", false}},
             now);
    w.append(run, event_type::step_failed, {{"step", step.index}, {"reason", "tool_error"}, {"error", step.error}},
             now);
}

void time_out_read_only(store_writer& w, run_record& run, step_record& step, std::string error, std::int64_t now) {
    move(step, step_status::failed, "time_out_read_only");
    step.error = std::move(error);
    step.finished_ms = now;
    w.append(run, event_type::step_failed, {{"step", step.index}, {"reason", "timeout"}, {"error", step.error}}, now);
}

void interrupt_step(store_writer& w, run_record& run, step_record& step, std::string resolution, std::int64_t now) {
    auto in = to_string(step.status);
    move(step, step_status::interrupted, "interrupt_step");
    step.interrupted_in = in;
    step.resolution = std::move(resolution);
    step.finished_ms = now;
    w.put(step);
    w.append(run, event_type::step_interrupted,
             {{"step", step.index}, {"in", step.interrupted_in}, {"resolution", step.resolution}}, now);
}

void reconcile_completed(store_writer&, run_record&, step_record& step, std::string observation, std::int64_t now) {
    move(step, step_status::done, "reconcile_completed");
    step.observation = std::move(observation);
    (void)now; // the reconciled call's end is the interruption's; the settling is step.reconciled
}

bool harmless_interruption(step_record const& step, tool_table const& tools) {
    if (step.interrupted_in != "executing")
        return true;
    auto const* tool = tools.find(step.tool);
    return tool && tool->effect == side_effect::read_only;
}

std::optional<approval_record> latest_approval(store_reader const& r, std::string_view run_id, std::uint64_t step) {
    std::optional<approval_record> latest;
    for (auto& a : r.approvals(run_id))
        if (a.step_index == step && (!latest || a.seq > latest->seq))
            latest = std::move(a);
    return latest;
}

} // namespace agentrt::transitions
