#include <agentrt/runtime/check.hpp>

#include <map>

namespace agentrt {
namespace {

void check_run(store_reader const& r, run_record const& run, check_options const& options,
               std::vector<std::string>& problems) {
    auto name = [&](std::uint64_t step) { return "step " + run.id + "/" + std::to_string(step); };
    std::map<std::uint64_t, int> starts, closes;
    // A step interrupted again after a grant asks again for the same request, so two approvals of a
    // step may share a hash: each approved one grants one start.
    std::map<std::pair<std::uint64_t, std::string>, int> starts_per_approval;
    for (auto const& e : r.events(run.id)) {
        auto const* step = e.data.if_contains("step");
        if (!step || !step->is_number())
            continue;
        auto index = step->to_number<std::uint64_t>();
        if (e.is(event_type::step_tool_started)) {
            // Only a step's first start may go without an approval, even when an approval granted
            // that first start: any later one is a tool run again on its own.
            auto const* a = e.data.if_contains("approval");
            bool granted = a && a->is_string();
            if (!granted && starts[index] > 0)
                problems.push_back(name(index) + " started its tool again (start " + std::to_string(starts[index] + 1) +
                                   ") without an approval");
            ++starts[index];
            if (granted)
                ++starts_per_approval[{index, std::string(a->get_string())}];
        } else if (e.is(event_type::step_tool_finished)) {
            if (auto const* late = e.data.if_contains("late"); !late || !late->is_bool() || !late->get_bool())
                ++closes[index];
        } else if (e.is(event_type::step_interrupted) ||
                   (e.is(event_type::step_failed) && starts[index] > closes[index])) {
            ++closes[index];
        }
    }
    for (auto const& [index, n] : starts) {
        bool open = closes[index] < n;
        auto step = r.step(run.id, index);
        bool in_progress =
            options.allow_in_progress && step && step->status == step_status::executing && !run.lease.owner.empty();
        if (open && !in_progress)
            problems.push_back(name(index) + " started its tool and no finish or interruption closes it");
    }
    if (!starts_per_approval.empty()) {
        std::map<std::pair<std::uint64_t, std::string>, int> approved;
        // A grant that expired when its run resumed is still one the operator approved, and may have
        // started the call the policy then allowed outright.
        for (auto const& a : r.approvals(run.id))
            if (a.status == approval_status::approved || (a.status == approval_status::expired && a.used))
                ++approved[{a.step_index, a.hash}];
        for (auto const& [key, n] : starts_per_approval)
            if (n > approved[key])
                problems.push_back("approval " + key.second + " of " + name(key.first) + " granted " +
                                   std::to_string(n) + " starts but was approved " + std::to_string(approved[key]) +
                                   " times");
    }
    for (auto const& step : r.steps(run.id)) {
        bool live = step.status == step_status::deciding || step.status == step_status::executing;
        if (live && !(options.allow_in_progress && run.status == run_status::running && !run.lease.owner.empty()))
            problems.push_back(name(step.index) + " is left " + std::string(to_string(step.status)));
    }
    if (!run.lease.owner.empty() && (run.status != run_status::running || !options.allow_in_progress))
        problems.push_back("run " + run.id + " (" + std::string(to_string(run.status)) + ") has its lease held by " +
                           run.lease.owner);
    if (is_terminal(run.status) && run.reason.empty())
        problems.push_back("run " + run.id + " ended without a reason");
    if (run.status == run_status::waiting_for_approval) {
        bool waits = false;
        for (auto const& a : r.approvals(run.id))
            waits = waits || a.status == approval_status::pending || (a.status == approval_status::approved && !a.used);
        if (!waits)
            problems.push_back("run " + run.id + " waits for approval but no approval is pending or granted");
    }
}

} // namespace

check_report check_invariants(store const& s, check_options const& options) {
    return s.read([&](store_reader const& r) {
        check_report report;
        std::vector<run_record> runs;
        if (options.run.empty()) {
            runs = r.runs({}, SIZE_MAX);
        } else if (auto one = r.run(options.run)) {
            runs.push_back(std::move(*one));
        } else {
            report.problems.push_back("no run " + options.run + " in the store");
        }
        for (auto const& run : runs) {
            ++report.runs_checked;
            check_run(r, run, options, report.problems);
            if (options.progress)
                options.progress(report.runs_checked, runs.size());
        }
        return report;
    });
}

} // namespace agentrt
