#include <agentrt/testkit/view.hpp>

namespace agentrt::testkit {

run_state::view_of::view_of(run_state const& state) {
    steps_.reserve(state.steps.size());
    for (auto const& s : state.steps)
        steps_.push_back(step_view{s.index, s.tool, s.arguments, s.status, s.observation});
    approvals_.reserve(state.approvals.size());
    for (auto const& a : state.approvals)
        approvals_.push_back(approval_view{a.step_index, a.kind, a.status});
    view_ = run_view{state.run_id, state.goal, state.steps_taken, state.failed_streak, steps_, approvals_};
}

} // namespace agentrt::testkit
