// agentrt/testkit/check_policy.hpp — a policy's conformance table.
//
//     using namespace agentrt::testkit;
//     check_policy(shop_policy{}, shop{}, {
//         {"lookups are free",        "lookup_order", R"({"order_id":"ord-1"})", allowed()},
//         {"texts are not sent",      "send_message", text_args,                 denied("no text")},
//         {"mail asks first",         "send_message", mail_args,                 approval("outbound_mail")},
//         {"a bad id never arrives",  "lookup_order", R"({"order_id":"42"})",    refused()},
//         {"late runs stop",          "send_message", mail_args, aborted("too many"), late_run},
//     });
//
// Each case's arguments go through the tool table's acceptance path first, as the runtime's do. All
// disagreements are reported as one aligned table: case, request, want, got, detail.
#pragma once

#include <agentrt/testkit/report.hpp>

#include <agentrt/catalog/catalog.hpp>
#include <agentrt/testkit/view.hpp>

#include <optional>
#include <string>
#include <vector>

namespace agentrt::testkit {

// What a case wants. Substrings are matched against the reason and against the canonical JSON of
// the capability and presentation; empty ones match anything.
struct wanted {
    std::optional<agentrt::outcome> outcome; // none: the arguments must be refused before the policy
    std::string kind;
    std::string reason_has;
    std::string capability_has;
    std::string presentation_has;
};

wanted allowed();
wanted denied(std::string reason_has = {});
wanted aborted(std::string reason_has = {});
wanted approval(std::string kind, std::string reason_has = {}, std::string capability_has = {},
                std::string presentation_has = {});
wanted refused();

struct policy_case {
    std::string name;
    std::string tool;
    std::string arguments; // JSON text, as a model would send it
    wanted want;
    std::optional<run_state> view = std::nullopt; // an empty run when absent
};

// Reports every disagreement as one table through the current reporter; false when any case
// disagrees or there are no cases.
bool check_policy(evaluator const& policy, tool_table const& table, std::vector<policy_case> const& cases,
                  source_location where = source_location::current());

template <class Policy, class... Tools>
bool check_policy(Policy policy, catalog<Tools...> const& tools, std::vector<policy_case> const& cases,
                  source_location where = source_location::current()) {
    return check_policy(lower_policy(std::move(policy), tools), tools.table(), cases, where);
}

} // namespace agentrt::testkit
