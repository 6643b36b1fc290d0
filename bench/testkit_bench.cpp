// How long the crash harness takes to explore a 10-step scenario at every point of every step
// (process mode: a forked child per process, SIGKILL at the point). The baseline, measured in the
// same run, is the uncrashed scenario in one child process.
#include <agentrt/catalog/catalog.hpp>
#include <agentrt/testkit/scenario.hpp>

#include "support/test_tools.hpp"

#include <benchmark/benchmark.h>

#include <cstdio>

namespace {

using shop = agentrt::catalog<test_tools::lookup_order, test_tools::send_message>;

struct trusting {
    static constexpr std::string_view identity = "trusting/1";
    agentrt::verdict operator()(agentrt::untyped_request const&, agentrt::run_view const&) const {
        return agentrt::allow();
    }
};

agentrt::testkit::scenario ten_steps() {
    agentrt::testkit::scenario s;
    s.tools = [] { return shop{}.table(); };
    s.policy = [] { return agentrt::lower_policy(trusting{}, shop{}); };
    s.agent = [] {
        std::vector<agentrt::decision> script;
        for (int i = 0; i < 9; ++i)
            script.push_back(
                i % 2 == 0
                    ? agentrt::decision::call("lookup_order", R"({"order_id":"ord-)" + std::to_string(i) + R"("})")
                    : agentrt::decision::call("send_message", R"({"to":{"kind":"email","address":"a@b.c"},)"
                                                              R"("cc":[],"subject":"s)" +
                                                                  std::to_string(i) + R"(","counters":{}})"));
        script.push_back(agentrt::decision::complete("done"));
        return std::make_unique<agentrt::scripted_agent>(script);
    };
    return s;
}

void uncrashed_scenario(benchmark::State& state) {
    auto s = ten_steps();
    for (auto _ : state)
        if (!agentrt::testkit::run_scenario(s).ok())
            state.SkipWithError("the scenario fails");
}
BENCHMARK(uncrashed_scenario)->Unit(benchmark::kMillisecond)->Iterations(5);

void explore_ten_steps_process_mode(benchmark::State& state) {
    auto s = ten_steps();
    agentrt::testkit::explore_summary summary;
    for (auto _ : state)
        summary = agentrt::testkit::explore(s);
    state.counters["crashes"] = double(summary.crashes_tried);
    state.counters["failures"] = double(summary.failures);
}
BENCHMARK(explore_ten_steps_process_mode)->Unit(benchmark::kMillisecond)->Iterations(2);

} // namespace

BENCHMARK_MAIN();
