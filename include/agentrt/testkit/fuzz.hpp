// agentrt/testkit/fuzz.hpp — fuzz_check and never, reporting through the test kit's reporter.
//
//     agentrt::testkit::fuzz_check(shop::tools{}.table());
//     agentrt::testkit::never(shop::policy{}, shop::tools{}, agentrt::side_effect::destructive,
//                             agentrt::outcome::allow);
//
// The checks are agentrt::fuzz's (docs/fuzz.md); here a failure (with its shrunk counterexample)
// fails the test at the caller's line, and a passing check prints its summary line.
#pragma once

#include <agentrt/testkit/report.hpp>

#include <agentrt/catalog/catalog.hpp>
#include <agentrt/fuzz/check.hpp>

namespace agentrt::testkit {

bool fuzz_check(tool_table const& table, fuzz::fuzz_check_options const& options = {},
                source_location where = source_location::current());

bool never(evaluator const& policy, tool_table const& table, side_effect effect, outcome forbidden,
           fuzz::never_options const& options = {}, source_location where = source_location::current());

template <class Policy, class... Tools>
bool never(Policy policy, catalog<Tools...> const& tools, side_effect effect, outcome forbidden,
           fuzz::never_options const& options = {}, source_location where = source_location::current()) {
    return never(lower_policy(std::move(policy), tools), tools.table(), effect, forbidden, options, where);
}

} // namespace agentrt::testkit
