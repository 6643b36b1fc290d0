// A consumer's doctest suite over the installed test kit: a policy table and a crash explored.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "ping.hpp"
#include <agentrt/testkit/scripted_agent.hpp>

#include <agentrt/testkit/check_policy.hpp>
#include <agentrt/testkit/doctest.hpp>
#include <agentrt/testkit/scenario.hpp>

#include <doctest/doctest.h>

using pings = agentrt::catalog<ping>;

struct few_pings {
    static constexpr std::string_view identity = "few-pings/1";
    agentrt::verdict operator()(ping_args const& a, agentrt::run_view const&) const {
        return a.times.get() <= 3 ? agentrt::allow() : agentrt::deny("too many pings");
    }
};

TEST_CASE("the installed test kit checks a policy table") {
    using namespace agentrt::testkit;
    check_policy(few_pings{}, pings{},
                 {{"a few", "ping", R"({"times":2})", allowed()},
                  {"too many", "ping", R"({"times":9})", denied("too many")},
                  {"none", "ping", R"({"times":0})", refused()}});
}

TEST_CASE("the installed test kit explores a scenario") {
    agentrt::testkit::scenario s;
    s.tools = [] { return pings{}.table(); };
    s.policy = [] { return agentrt::lower_policy(few_pings{}, pings{}); };
    s.agent = [] {
        return std::make_unique<agentrt::testkit::scripted_agent>(std::vector<agentrt::decision>{
            agentrt::decision::call("ping", R"({"times":2})"), agentrt::decision::complete("pinged")});
    };
    CHECK(agentrt::testkit::explore(s).crashes_tried > 0);
}
