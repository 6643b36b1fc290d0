#include "engine.hpp"

#include <agentrt/catalog/canonical_json.hpp>

#include <boost/json/parse.hpp>

#include <mutex>
#include <set>
#include <unistd.h>

namespace agentrt::engine {
namespace {
std::mutex live_mutex;
std::set<std::string> live;
} // namespace

std::string const& host_name() {
    static std::string const name = [] {
        char buffer[256] = {};
        ::gethostname(buffer, sizeof buffer - 1);
        return std::string(buffer);
    }();
    return name;
}

void add_live_owner(std::string const& owner) {
    std::lock_guard lock(live_mutex);
    live.insert(owner);
}
void remove_live_owner(std::string const& owner) {
    std::lock_guard lock(live_mutex);
    live.erase(owner);
}
bool live_owner(std::string const& owner) {
    std::lock_guard lock(live_mutex);
    return live.contains(owner);
}

bool holder_alive(store const& s, lease_record const& lease) {
    if (lease.owner.empty())
        return false;
    if (lease.host != host_name())
        return true; // another host's process cannot be seen from here: only expiry frees it
    if (lease.pid == ::getpid())
        return live_owner(lease.owner);
    return s.process_alive(lease.pid);
}

bool usable_json(boost::json::value const& v) {
    switch (v.kind()) {
    case boost::json::kind::double_:
        return std::isfinite(v.get_double());
    case boost::json::kind::array:
        for (auto const& e : v.get_array())
            if (!usable_json(e))
                return false;
        return true;
    case boost::json::kind::object:
        for (auto const& e : v.get_object())
            if (!usable_json(e.value()))
                return false;
        return true;
    default:
        return true;
    }
}

void start_active(run_record& run, std::int64_t now) {
    run.active_since_ms = now;
}

void count_active(run_record& run, std::int64_t now) {
    if (run.active_since_ms != 0 && now > run.active_since_ms)
        run.active_ms += now - run.active_since_ms;
    if (run.active_since_ms != 0)
        run.active_since_ms = now;
}

void pause_active(run_record& run, std::int64_t now) {
    count_active(run, now);
    run.active_since_ms = 0;
}

void finish_run(store_writer& w, run_record& run, run_status status, std::string_view reason, std::string message,
                std::int64_t now) {
    pause_active(run, now);
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
    w.append(run, "run.finished", {{"status", to_string(status)}, {"reason", reason}, {"message", run.message}}, now);
}

void interrupt_step(store_writer& w, run_record& run, step_record& step, std::string resolution, std::int64_t now) {
    step.interrupted_in = step.status == step_status::executing ? "executing" : "deciding";
    if (step.status == step_status::awaiting_approval)
        step.interrupted_in = "awaiting_approval";
    step.status = step_status::interrupted;
    step.resolution = std::move(resolution);
    step.finished_ms = now;
    w.put(step);
    w.append(run, "step.interrupted",
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
    w.append(run, "approval.requested",
             {{"step", step.index}, {"seq", a.seq}, {"kind", a.kind}, {"hash", a.hash}, {"reason", a.reason}}, now);
    return a;
}

void refresh(view_snapshot& snap, store const& s, std::string_view run_id, std::uint64_t before_step) {
    if (snap.steps.size() > before_step || (!snap.steps.empty() && snap.steps.front().run_id != run_id)) {
        snap.steps.clear();
        snap.step_views.clear();
    }
    s.read([&](store_reader const& r) {
        snap.run = r.run(run_id).value();
        // Steps before the one being decided are settled: only the new ones are read, so building a
        // view stays flat in run length.
        for (std::uint64_t i = snap.steps.size(); i < before_step; ++i)
            if (auto st = r.step(run_id, i))
                snap.steps.push_back(std::move(*st));
            else
                break;
        snap.approvals = r.approvals(run_id);
    });
    // Only the new steps get views, so that building a view stays flat in run length too.
    for (std::size_t i = snap.step_views.size(); i < snap.steps.size(); ++i) {
        auto const& st = snap.steps[i];
        snap.step_views.push_back({st.index, st.tool, st.arguments, to_string(st.status), st.observation});
    }
    snap.approval_views.clear();
    for (auto const& a : snap.approvals)
        snap.approval_views.push_back({a.step_index, a.kind, to_string(a.status)});
    snap.view = run_view{snap.run.id,     snap.run.goal,      snap.run.next_step, snap.run.failed_streak,
                         snap.step_views, snap.approval_views};
}

std::unique_ptr<view_snapshot> snapshot(store const& s, std::string_view run_id, std::uint64_t before_step) {
    auto snap = std::make_unique<view_snapshot>();
    refresh(*snap, s, run_id, before_step);
    return snap;
}

evaluation evaluate(evaluator const& policy, tool_entry const& tool, arguments const& args, run_view const& view) {
    evaluation e;
    try {
        verdict v = policy(tool, args, view);
        if (!usable_json(v.capability) || !usable_json(v.presentation))
            e.failure = "policy " + std::string(policy.identity()) +
                        " returned a capability or presentation "
                        "that is not usable JSON (a non-finite number)";
        else
            e.answer = std::move(v);
    } catch (std::exception const& x) {
        e.failure = "policy " + std::string(policy.identity()) + " threw: " + x.what();
    } catch (...) {
        e.failure = "policy " + std::string(policy.identity()) + " threw a non-standard exception";
    }
    return e;
}

policy_record policy_of(evaluator const& policy, verdict const& v, view_snapshot const& snap) {
    return {std::string(policy.identity()),
            std::string(to_string(v.outcome)),
            v.reason,
            snap.steps.size(),
            snap.approvals.size(),
            snap.run.failed_streak};
}

} // namespace agentrt::engine
