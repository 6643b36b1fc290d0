// The shop scenario the crash harness tests share: a lookup, a mailed refund, then the end.
#pragma once

#include <agentrt/catalog/catalog.hpp>
#include <agentrt/testkit/scenario.hpp>

#include "support/test_tools.hpp"

#include <memory>
#include <string>
#include <vector>

namespace shop_test {

using namespace agentrt::testkit;
using namespace test_tools;

using shop = agentrt::catalog<lookup_order, send_message>;

// Allows everything: the send is a side effect the policy lets through without an approval.
struct trusting_policy {
    static constexpr std::string_view identity = "trusting/1";
    agentrt::verdict operator()(agentrt::untyped_request const&, agentrt::run_view const&) const {
        return agentrt::allow();
    }
};

// Asks the operator before every message; lookups go through.
struct asking_policy {
    static constexpr std::string_view identity = "asking/1";
    agentrt::verdict operator()(lookup_args const&, agentrt::run_view const&) const { return agentrt::allow(); }
    agentrt::verdict operator()(send_args const&, agentrt::run_view const&) const {
        return agentrt::require_approval("outbound_mail", "mail leaves the shop");
    }
};

inline std::string const mail = R"({"to":{"kind":"email","address":"a@b.c"},"cc":[],"subject":"refund","counters":{}})";

inline scenario shop_scenario(crash_mode mode = crash_mode::simulated) {
    scenario s;
    s.mode = mode;
    s.tools = [] { return shop{}.table(); };
    s.policy = [] { return agentrt::lower_policy(trusting_policy{}, shop{}); };
    s.agent = [] {
        return std::make_unique<agentrt::testkit::scripted_agent>(std::vector<agentrt::decision>{
            agentrt::decision::call("lookup_order", R"({"order_id":"ord-7"})"),
            agentrt::decision::call("send_message", mail), agentrt::decision::complete("refund mailed")});
    };
    s.goal = "mail the refund of order 7";
    return s;
}

// The shop scenario, pausing for the operator's approval before the send (step 1); the scenario's
// operator approves, and the run resumes on the grant.
inline scenario asking_scenario(crash_mode mode = crash_mode::simulated) {
    auto s = shop_scenario(mode);
    s.policy = [] { return agentrt::lower_policy(asking_policy{}, shop{}); };
    return s;
}

inline std::string problems_of(scenario_result const& r) {
    std::string out;
    for (auto const& p : r.problems)
        out += p + "\n";
    return out;
}

} // namespace shop_test
