// agentrt/testkit/recheck.hpp — re-decide a recorded run under a policy.
//
//     auto r = run_scenario(shop);                                     // or records read from a store
//     recheck(records_of(r), shop_table, agentrt::lower_policy(shop_policy_v2{}, shop_tools{}));
//     recheck_differs(records_of(r), table, stricter, {1});             // exactly step 1 changes
//
// Every policy evaluation of the run (each step.policy event, re-evaluations on resume included) is
// decided again with the arguments as recorded, validated against the table, and the view the
// runtime handed the policy, rebuilt from the record (the steps and approvals it had seen).
#pragma once

#include <agentrt/testkit/report.hpp>

#include <agentrt/catalog/policy.hpp>
#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>
#include <agentrt/testkit/scenario.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace agentrt::testkit {

struct run_records {
    run_record run;
    std::vector<step_record> steps;
    std::vector<approval_record> approvals;
    std::vector<event_record> events;
};

run_records records_of(scenario_result const& r);
result<run_records> records_of(store const& s, std::string_view run_id);

struct recheck_report {
    std::size_t rechecked = 0;
    std::vector<std::string> differences;   // "step 1: recorded allow, now require_approval external_mail"
    std::vector<std::uint64_t> differing;   // the steps of the differences
    std::vector<std::string> not_rechecked; // records that cannot be re-checked, and why
};

recheck_report recheck_run(run_records const& records, tool_table const& table, evaluator const& policy);

// Fails on any difference, on a record it cannot re-check, and when nothing was re-checked.
bool recheck(run_records const& records, tool_table const& table, evaluator const& policy,
             source_location where = source_location::current());
// Fails unless exactly `steps` decide differently; and when nothing was re-checked.
bool recheck_differs(run_records const& records, tool_table const& table, evaluator const& policy,
                     std::vector<std::uint64_t> steps, source_location where = source_location::current());
// Fails on any difference, and when nothing could be re-checked; tolerates records that cannot be.
bool recheck_partial(run_records const& records, tool_table const& table, evaluator const& policy,
                     source_location where = source_location::current());

} // namespace agentrt::testkit
