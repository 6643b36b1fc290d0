#include "policy_view.hpp"

#include "errors.hpp"

#include <agentrt/catalog/json_reader.hpp>

#include <cmath>

namespace agentrt::views {

bool usable_json(boost::json::value const& v, std::size_t levels) {
    switch (v.kind()) {
    case boost::json::kind::double_:
        return std::isfinite(v.get_double());
    case boost::json::kind::array:
        if (levels == 0)
            return false;
        for (auto const& e : v.get_array())
            if (!usable_json(e, levels - 1))
                return false;
        return true;
    case boost::json::kind::object:
        if (levels == 0)
            return false;
        for (auto const& e : v.get_object())
            if (!usable_json(e.value(), levels - 1))
                return false;
        return true;
    default:
        return true;
    }
}

void refresh(view_snapshot& snap, store const& s, std::string_view run_id, std::uint64_t before_step,
             bool as_last_seen) {
    if (snap.steps.size() > before_step || (!snap.steps.empty() && snap.steps.front().run_id != run_id)) {
        snap.steps.clear();
        snap.step_views.clear();
    }
    // Run again (an engine's read_as_last_seen may give up part way), it starts from what it held.
    auto const held = snap.steps.size();
    auto read = [&](store_reader const& r) {
        snap.steps.resize(held);
        snap.run = existing_run(r.run(run_id), run_id);
        // Steps before the one being decided are settled: only the new ones are read, so building a
        // view stays flat in run length.
        for (std::uint64_t i = snap.steps.size(); i < before_step; ++i)
            if (auto st = r.step(run_id, i))
                snap.steps.push_back(std::move(*st));
            else
                break;
        snap.approvals = r.approvals(run_id);
    };
    if (as_last_seen)
        s.read_as_last_seen(read);
    else
        s.read(read);
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

void forget_steps_from(view_snapshot& snap, std::size_t first) {
    if (snap.steps.size() > first)
        snap.steps.resize(first);
    if (snap.step_views.size() > first)
        snap.step_views.resize(first);
}

bool still_current(view_snapshot const& snap, run_record const& run) noexcept {
    return run.id == snap.run.id && run.event_count == snap.run.event_count && run.head == snap.run.head;
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
        // Stored in the approval's record, which a reader must parse back: no deeper than arguments.
        auto const levels = read_limits{}.max_depth;
        if (!usable_json(v.capability, levels) || !usable_json(v.presentation, levels))
            e.failure = "policy " + std::string(policy.identity()) +
                        " returned a capability or presentation that is not usable JSON (a non-finite number, "
                        "or nested deeper than " +
                        std::to_string(levels) + " levels)";
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

} // namespace agentrt::views
