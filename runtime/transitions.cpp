#include "transitions.hpp"

#include "lease.hpp"

#include <boost/json/parse.hpp>

namespace agentrt::transitions {

void finish_run(store_writer& w, run_record& run, run_status status, std::string_view reason, std::string message,
                std::int64_t now) {
    leases::pause_active(run, now);
    run.status = status;
    run.reason = reason;
    run.message = std::move(message);
    run.lease = {};
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

void interrupt_step(store_writer& w, run_record& run, step_record& step, std::string resolution, std::int64_t now) {
    step.interrupted_in = step.status == step_status::executing ? "executing" : "deciding";
    if (step.status == step_status::awaiting_approval)
        step.interrupted_in = "awaiting_approval";
    step.status = step_status::interrupted;
    step.resolution = std::move(resolution);
    step.finished_ms = now;
    w.put(step);
    w.append(run, event_type::step_interrupted,
             {{"step", step.index}, {"in", step.interrupted_in}, {"resolution", step.resolution}}, now);
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
    boost::json::value args = step.arguments.empty() ? boost::json::value(nullptr) : boost::json::parse(step.arguments);
    a.request = {{"run", run.id}, {"step", step.index}, {"tool", tool_spec}, {"arguments", std::move(args)}};
    a.hash = approval_hash(a);
    a.requested_ms = now;
    w.put(a);
    w.append(run, event_type::approval_requested,
             {{"step", step.index}, {"seq", a.seq}, {"kind", a.kind}, {"hash", a.hash}, {"reason", a.reason}}, now);
    return a;
}

} // namespace agentrt::transitions
