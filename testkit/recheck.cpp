#include <agentrt/testkit/recheck.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/runtime/reads.hpp>
#include <agentrt/testkit/report.hpp>

#include <algorithm>

namespace agentrt::testkit {

run_records records_of(scenario_result const& r) {
    return {r.run, r.steps, r.approvals, r.events};
}

result<run_records> records_of(store const& s, std::string_view run_id) {
    auto details = read_run(s, run_id);
    if (!details)
        return details.error();
    auto events = read_events(s, run_id);
    if (!events)
        return events.error();
    return run_records{details->run, details->steps, details->approvals, std::move(events).value()};
}

namespace {

std::uint64_t number(boost::json::object const& data, char const* key) {
    auto const* v = data.if_contains(key);
    if (v && v->is_int64())
        return std::uint64_t(v->get_int64());
    if (v && v->is_uint64())
        return v->get_uint64();
    return 0;
}

std::string text(boost::json::object const& data, char const* key) {
    auto const* v = data.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// Whether the step asked an operator for exactly the approval `v` asks for: the same kind,
// capability and presentation, so the same hash for the same request.
bool asked_for(run_records const& records, std::uint64_t step, verdict const& v) {
    return std::any_of(records.approvals.begin(), records.approvals.end(), [&](approval_record const& a) {
        return a.step_index == step && a.kind == v.kind &&
               canonical_json(a.capability) == canonical_json(v.capability) &&
               canonical_json(a.presentation) == canonical_json(v.presentation);
    });
}

} // namespace

recheck_report recheck_run(run_records const& records, tool_table const& table, evaluator const& policy) {
    recheck_report report;
    for (auto const& e : records.events) {
        if (!e.is(event_type::step_policy))
            continue;
        std::uint64_t index = number(e.data, "step");
        std::string where = "step " + std::to_string(index);
        auto step = std::find_if(records.steps.begin(), records.steps.end(),
                                 [&](step_record const& s) { return s.index == index; });
        if (step == records.steps.end()) {
            report.not_rechecked.push_back(where + ": the step is not in the records");
            continue;
        }
        auto accepted = table.accept(step->tool, step->arguments);
        if (!accepted) {
            report.not_rechecked.push_back(where +
                                           ": its arguments no longer pass the table: " + accepted.error().message);
            continue;
        }

        // The view as the runtime built it: the steps before this one, the approvals it had seen.
        std::vector<step_view> steps;
        for (auto const& s : records.steps)
            if (s.index < index && steps.size() < number(e.data, "steps_seen"))
                steps.push_back({s.index, s.tool, s.arguments, to_string(s.status), s.observation});
        std::vector<approval_view> approvals;
        for (auto const& a : records.approvals)
            if (approvals.size() < number(e.data, "approvals_seen"))
                approvals.push_back({a.step_index, a.kind, to_string(a.status)});
        run_view view{records.run.id, records.run.goal, index + 1, step->policy ? step->policy->failed_streak : 0,
                      steps,          approvals};

        verdict now;
        try {
            now = policy(table.at(accepted->index), accepted->args, view);
        } catch (std::exception const& x) {
            report.differences.push_back(where + ": the policy now throws: " + x.what());
            report.differing.push_back(index);
            ++report.rechecked;
            continue;
        }
        ++report.rechecked;
        std::string recorded = text(e.data, "outcome");
        std::string const which = where + (e.data.contains("reevaluation") ? " (re-evaluation)" : "");
        std::string const decided_now = std::string(to_string(now.outcome)) + (now.kind.empty() ? "" : " " + now.kind) +
                                        (now.reason.empty() ? "" : " (" + now.reason + ")");
        if (recorded != to_string(now.outcome)) {
            report.differences.push_back(which + ": recorded " + recorded + ", now " + decided_now);
            report.differing.push_back(index);
        } else if (now.outcome == outcome::require_approval && !asked_for(records, index, now)) {
            report.differences.push_back(which + ": now " + decided_now +
                                         ", an approval (kind, capability or presentation) the step never asked for");
            report.differing.push_back(index);
        }
    }
    std::sort(report.differing.begin(), report.differing.end());
    report.differing.erase(std::unique(report.differing.begin(), report.differing.end()), report.differing.end());
    return report;
}

namespace {

std::string listed(std::string title, std::vector<std::string> const& lines) {
    for (auto const& l : lines)
        title += "\n  " + l;
    return title;
}

} // namespace

bool recheck(run_records const& records, tool_table const& table, evaluator const& policy, source_location where) {
    auto r = recheck_run(records, table, policy);
    bool ok = true;
    if (r.rechecked == 0) {
        current_reporter().fail(where, "recheck: run " + records.run.id + " has no policy evaluation to re-check");
        ok = false;
    }
    if (!r.differences.empty()) {
        current_reporter().fail(where, listed("recheck: policy " + std::string(policy.identity()) + " decides run " +
                                                  records.run.id + " differently:",
                                              r.differences));
        ok = false;
    }
    if (!r.not_rechecked.empty()) {
        current_reporter().fail(where, listed("recheck: records that cannot be re-checked (use recheck_partial "
                                              "to tolerate them):",
                                              r.not_rechecked));
        ok = false;
    }
    return ok;
}

bool recheck_differs(run_records const& records, tool_table const& table, evaluator const& policy,
                     std::vector<std::uint64_t> steps, source_location where) {
    auto r = recheck_run(records, table, policy);
    std::sort(steps.begin(), steps.end());
    if (r.rechecked == 0) {
        current_reporter().fail(where,
                                "recheck_differs: run " + records.run.id + " has no policy evaluation to re-check");
        return false;
    }
    if (r.differing == steps)
        return true;
    std::string wanted;
    for (auto s : steps)
        wanted += (wanted.empty() ? "" : ", ") + std::to_string(s);
    current_reporter().fail(where,
                            listed("recheck_differs: wanted exactly steps [" + wanted + "] to differ; found:",
                                   r.differences.empty() ? std::vector<std::string>{"no difference"} : r.differences));
    return false;
}

bool recheck_partial(run_records const& records, tool_table const& table, evaluator const& policy,
                     source_location where) {
    auto r = recheck_run(records, table, policy);
    if (r.rechecked == 0) {
        current_reporter().fail(where, "recheck_partial: run " + records.run.id +
                                           " has no policy evaluation that could be re-checked");
        return false;
    }
    if (r.differences.empty())
        return true;
    current_reporter().fail(where, listed("recheck_partial: policy " + std::string(policy.identity()) +
                                              " decides run " + records.run.id + " differently:",
                                          r.differences));
    return false;
}

} // namespace agentrt::testkit
