// agentrt/fuzz/check.hpp — fuzz checks over a tool table, and `never` over a policy.
//
//     agentrt::fuzz::check_report r = agentrt::fuzz::fuzz_check(catalogue.table());
//     if (!r) std::cerr << r.message;                      // the shrunk counterexample
//
//     auto n = agentrt::fuzz::never(agentrt::lower_policy(my_policy{}, catalogue), catalogue.table(),
//                                   agentrt::side_effect::destructive, agentrt::outcome::allow);
//
// fuzz_check: for every tool, every generated valid argument text is accepted by the table and,
// unless the tool is checked for acceptance only, reaches the tool, which returns within its
// timeout without throwing (a tool error is allowed); every near miss and boundary case is refused
// by the table, so it never reaches the tool. A check that generated nothing for a tool fails.
//
// never: no valid request to any tool of the class, in any generated view of a run, gets the
// outcome. A class without a tool fails (the property would hold of nothing); declare a stand-in.
// Both run RapidCheck properties from options::seed, so the same seed checks the same cases.
#pragma once

#include <agentrt/catalog/policy.hpp>
#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/fuzz/options.hpp>

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace agentrt::fuzz {

struct tool_counts {
    std::string tool;
    std::size_t accepted = 0;    // valid texts the table accepted
    std::size_t called = 0;      // of those, calls that returned
    std::size_t tool_errors = 0; // of those, calls that returned a tool error
    std::size_t refused = 0;     // near misses and boundary cases the table refused
};

struct check_report {
    bool passed = false;
    std::string message; // the failure with its shrunk counterexample, or a summary
    std::vector<tool_counts> tools;

    explicit operator bool() const noexcept { return passed; }
};

struct fuzz_check_options {
    options generation = {};
    std::set<std::string> acceptance_only = {}; // tools checked for acceptance, never called
};

check_report fuzz_check(tool_table const& table, fuzz_check_options const& opts = {});

struct never_options {
    options generation = {};
    std::vector<tool_entry> stand_ins = {}; // tools added for the check, e.g. to give a class a member
};

check_report never(evaluator const& policy, tool_table const& table, side_effect effect, outcome forbidden,
                   never_options const& opts = {});

} // namespace agentrt::fuzz
