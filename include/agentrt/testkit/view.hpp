// agentrt/testkit/view.hpp — a run as a policy sees it, written down for a test.
//
//     agentrt::testkit::run_state late{.steps_taken = 12, .failed_streak = 2};
//     late.steps.push_back({.index = 0, .tool = "lookup_order", .status = "done"});
//     policy(tool, args, late.view());
#pragma once

#include <agentrt/catalog/policy.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace agentrt::testkit {

struct step_state {
    std::uint64_t index = 0;
    std::string tool;
    std::string arguments;
    std::string status = "done";
    std::string observation;
};

struct approval_state {
    std::uint64_t step_index = 0;
    std::string kind;
    std::string status = "pending";
};

struct run_state {
    std::string run_id = "run-under-test";
    std::string goal;
    std::uint64_t steps_taken = 0;
    std::uint64_t failed_streak = 0;
    std::vector<step_state> steps;
    std::vector<approval_state> approvals;

    // A view over this state: valid while the state lives and is not changed.
    class view_of;
    view_of view() const;
};

class run_state::view_of {
public:
    explicit view_of(run_state const& state);
    operator run_view const&() const noexcept { return view_; } // NOLINT: used where a run_view is
    run_view const& get() const noexcept { return view_; }

private:
    std::vector<step_view> steps_;
    std::vector<approval_view> approvals_;
    run_view view_;
};

inline run_state::view_of run_state::view() const {
    return view_of(*this);
}

} // namespace agentrt::testkit
