// How long the crash harness takes to explore a 10-step scenario at every point of every step, in
// simulated mode (store handles cut off in this process) and process mode (a forked child per
// process, SIGKILL at the point). The baselines, measured in the same run, are the uncrashed scenario
// in each mode.
#include <agentrt/catalog/catalog.hpp>
#include <agentrt/testkit/report.hpp>
#include <agentrt/testkit/scenario.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

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

agentrt::testkit::scenario ten_steps(agentrt::testkit::crash_mode mode) {
    agentrt::testkit::scenario s;
    s.mode = mode;
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
        return std::make_unique<agentrt::testkit::scripted_agent>(script);
    };
    return s;
}

// A reporter that keeps the test log quiet: the benchmark's output is its table.
struct quiet_reporter final : agentrt::testkit::reporter {
    void fail(agentrt::testkit::source_location const&, std::string_view message) override {
        std::fprintf(stderr, "%.*s\n", int(message.size()), message.data());
    }
    void log(std::string_view) override {}
};

agentrt::testkit::crash_mode mode_of(benchmark::State const& state) {
    return state.range(0) == 0 ? agentrt::testkit::crash_mode::simulated : agentrt::testkit::crash_mode::process;
}

void uncrashed_scenario(benchmark::State& state) {
    auto s = ten_steps(mode_of(state));
    for (auto _ : state)
        if (!agentrt::testkit::run_scenario(s).ok())
            state.SkipWithError("the scenario fails");
}
BENCHMARK(uncrashed_scenario)->ArgName("process_mode")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(5);

void explore_ten_steps(benchmark::State& state) {
    auto s = ten_steps(mode_of(state));
    quiet_reporter quiet;
    agentrt::testkit::scoped_reporter installed(quiet);
    agentrt::testkit::explore_summary summary;
    for (auto _ : state)
        summary = agentrt::testkit::explore(s);
    state.counters["crashes"] = double(summary.crashes_tried);
    state.counters["failures"] = double(summary.failures);
}
BENCHMARK(explore_ten_steps)->ArgName("process_mode")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(2);

} // namespace

BENCHMARK_MAIN();
