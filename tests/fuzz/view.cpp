#include <agentrt/fuzz/view.hpp>

#include <agentrt/catalog/catalog.hpp>
#include <agentrt/fuzz/generate.hpp>

#include "support/test_tools.hpp"

#include <set>
#include <sstream>

namespace {
using namespace test_tools;
namespace fuzz = agentrt::fuzz;
} // namespace

TEST_CASE("generated_views_have_consistent_counters_and_steps_of_the_table") {
    auto table = agentrt::catalog<lookup_order, send_message, wipe_account>{}.table();
    std::set<std::string> tools, statuses;
    std::size_t approvals = 0;
    for (auto const& run : fuzz::sample(fuzz::run_gen(table), 200, 3)) {
        auto view = run.view();
        CHECK(view.steps_taken == view.steps.size());
        std::uint64_t streak = 0;
        for (auto it = view.steps.rbegin(); it != view.steps.rend() && it->status == "failed"; ++it)
            ++streak;
        CHECK(view.failed_streak == streak);
        for (std::size_t i = 0; i < view.steps.size(); ++i) {
            CHECK(view.steps[i].index == i);
            tools.insert(std::string(view.steps[i].tool));
            statuses.insert(std::string(view.steps[i].status));
            if (!view.steps[i].tool.empty())
                CHECK(table.accept(view.steps[i].tool, view.steps[i].arguments));
        }
        for (auto const& a : view.approvals)
            CHECK(a.step_index < view.steps.size());
        approvals += view.approvals.size();
    }
    CHECK(tools == std::set<std::string>{"", "lookup_order", "send_message", "wipe_account"});
    CHECK(statuses == std::set<std::string>{"done", "failed", "interrupted"});
    CHECK(approvals > 0);
}

TEST_CASE("a_generated_run_prints_as_a_readable_counterexample") {
    fuzz::generated_run run;
    run.goal = "tidy up";
    run.steps.push_back({"wipe_account", R"({"account":"a","confirm":true})", "failed", R"({"error":"timeout"})"});
    run.failed_streak = 1;
    run.approvals.push_back({0, "side_effect", "rejected"});
    std::ostringstream out;
    out << run;
    CHECK(out.str() == "run run-fuzz goal \"tidy up\", 1 steps, failed streak 1\n"
                       "  step 0 failed: wipe_account {\"account\":\"a\",\"confirm\":true} -> {\"error\":\"timeout\"}\n"
                       "  approval of step 0: side_effect rejected");
}
