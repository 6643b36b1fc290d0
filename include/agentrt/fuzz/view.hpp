// agentrt/fuzz/view.hpp — generated views of a run, for properties over policies.
//
//     rc::check([&] {
//         agentrt::fuzz::generated_run run = *agentrt::fuzz::run_gen(table);
//         agentrt::verdict v = policy(entry, args, run.view());
//     });
//
// A generated run has prior steps (tools of the table with valid arguments, no-tool steps, every
// step status, observations), approvals of those steps in every status, and counters consistent
// with the steps. It owns its text; view() hands out a run_view over it.
#pragma once

#include <agentrt/catalog/policy.hpp>
#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/fuzz/options.hpp>

#include <rapidcheck.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace agentrt::fuzz {

struct generated_step {
    std::string tool; // empty for a step that called no tool
    std::string arguments;
    std::string status;
    std::string observation;
};

struct generated_approval {
    std::uint64_t step_index = 0;
    std::string kind;
    std::string status;
};

class generated_run {
public:
    std::string run_id = "run-fuzz";
    std::string goal;
    std::uint64_t failed_streak = 0;
    std::vector<generated_step> steps;
    std::vector<generated_approval> approvals;

    // Valid while this object lives and is not changed; not thread-safe.
    run_view view() const;

private:
    mutable std::vector<step_view> step_views_;
    mutable std::vector<approval_view> approval_views_;
};

std::ostream& operator<<(std::ostream& out, generated_run const& run);

// Runs whose steps call the tools of `table` (with valid arguments) and shrink toward no steps.
rc::Gen<generated_run> run_gen(tool_table const& table, options const& opts = {});

} // namespace agentrt::fuzz
