// agentrt/runtime/check.hpp — the runtime's invariants, checked over a store (docs/runtime.md:
// "What a crash can and cannot do to a run").
//
//     agentrt::check_report report = agentrt::check_invariants(store);
//     for (auto const& problem : report.problems) std::cerr << problem << '\n';
//
// The test kit and the `agentrt check` command use this one checker. It reads only the store; it
// cannot know how often a tool was really reached (the test kit counts that itself).
#pragma once

#include <agentrt/runtime/store.hpp>

#include <functional>
#include <string>
#include <vector>

namespace agentrt {

struct check_options {
    // Runs may still be in progress: steps executing or deciding under a held lease are not problems.
    bool allow_in_progress = false;
    // Only this run, when not empty (a run that does not exist is reported as a problem).
    std::string run{};
    // Called after each run with how many were checked and how many there are (a progress display).
    // It runs inside the check's read transaction: it must not write to the store.
    std::function<void(std::size_t checked, std::size_t total)> progress{};
};

struct check_report {
    std::vector<std::string> problems; // one sentence each, naming the run and step
    std::size_t runs_checked = 0;
    bool ok() const noexcept { return problems.empty(); }
};

// - no step started its tool more often than once plus the approvals that granted it a new start;
// - no approval granted more than one start;
// - every tool start is closed by a finish or an interruption;
// - nothing is left deciding or executing, and no lease is held on a run that is not running;
// - a waiting run has a step waiting on its latest approval; a terminal run has a reason.
check_report check_invariants(store const& s, check_options const& options = {});

} // namespace agentrt
