// What a policy is handed: a snapshot of the run as a read-only view, and its answer. Internal.
#pragma once

#include <agentrt/catalog/policy.hpp>
#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>

#include <boost/json/value.hpp>

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::views {

// Finite numbers only (NaN and infinities have no JSON spelling and cannot be hashed), and arrays
// and objects nested no more than `levels` deep.
bool usable_json(boost::json::value const& v, std::size_t levels = std::size_t(-1));

// A snapshot of a run as a policy sees it; the view points into the snapshot.
struct view_snapshot {
    run_record run;
    std::deque<step_record> steps; // a deque: appending moves no record, so the views stay valid
    std::vector<approval_record> approvals;
    std::vector<step_view> step_views;
    std::vector<approval_view> approval_views;
    run_view view;
};
// Brings a snapshot up to date, reading only the steps it does not hold yet. `as_last_seen`: from
// the run as this thread last saw it (store::read_as_last_seen), for a decision whose write checks
// that the run is still the one the snapshot holds.
void refresh(view_snapshot& snap, store const& s, std::string_view run_id, std::uint64_t before_step,
             bool as_last_seen = false);
// Drops the steps from index `first` on, so that the next refresh reads them again.
void forget_steps_from(view_snapshot& snap, std::size_t first);
// Whether `run`, as a write reads it, is the run the snapshot was taken of: no event since.
bool still_current(view_snapshot const& snap, run_record const& run) noexcept;
std::unique_ptr<view_snapshot> snapshot(store const& s, std::string_view run_id, std::uint64_t before_step);

// The policy's answer, or why it has none (it threw, or its capability or presentation is unusable).
struct evaluation {
    std::optional<verdict> answer;
    std::string failure;
};
evaluation evaluate(evaluator const& policy, tool_entry const& tool, arguments const& args, run_view const& view);

policy_record policy_of(evaluator const& policy, verdict const& v, view_snapshot const& snap);

} // namespace agentrt::views
