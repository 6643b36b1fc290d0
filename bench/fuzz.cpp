// Fuzz throughput: valid arguments, near misses and `never` checks per second, beside RapidCheck's
// raw generation of a plain struct with the same members and no constraints (the limit: RapidCheck
// builds a shrink tree per value, so that cost is measured first).
#include <agentrt/catalog/catalog.hpp>
#include <agentrt/fuzz.hpp>

#include "support/test_tools.hpp"

#include <benchmark/benchmark.h>
#include <boost/json/serialize.hpp>

#include <map>

namespace {

using namespace test_tools;

// send_args' members without keywords, variant as its email alternative.
struct plain_send {
    std::string kind, address;
    std::vector<std::string> cc;
    std::string subject;
    int urgency = 0;
    std::map<std::string, int> counters;
    bool enabled = false;
};

rc::Gen<plain_send> plain_gen() {
    return rc::gen::build<plain_send>(rc::gen::set(&plain_send::kind), rc::gen::set(&plain_send::address),
                                      rc::gen::set(&plain_send::cc), rc::gen::set(&plain_send::subject),
                                      rc::gen::set(&plain_send::urgency), rc::gen::set(&plain_send::counters),
                                      rc::gen::set(&plain_send::enabled));
}

template <class T>
void run(benchmark::State& state, rc::Gen<T> const& gen) {
    rc::Random random(1);
    int size = 0;
    for (auto _ : state) {
        auto value = gen(random.split(), size).value();
        benchmark::DoNotOptimize(value);
        size = (size + 1) % 101;
    }
    state.SetItemsProcessed(state.iterations());
}

void raw_rapidcheck_plain_struct(benchmark::State& state) {
    run(state, plain_gen());
}

void valid_arguments_serialised(benchmark::State& state) {
    auto gen = rc::gen::map(agentrt::fuzz::valid_json(agentrt::type_info_of<send_args>()),
                            [](boost::json::value const& v) { return boost::json::serialize(v); });
    run(state, gen);
}

void near_misses(benchmark::State& state) {
    run(state, agentrt::fuzz::near_miss_gen(agentrt::type_info_of<send_args>()));
}

struct by_class {
    static constexpr std::string_view identity = "bench.by_class/1";
    agentrt::verdict operator()(agentrt::untyped_request const& r, agentrt::run_view const& v) const {
        return agentrt::class_table{}(r, v);
    }
};

void never_checks(benchmark::State& state) {
    using tools = agentrt::catalog<lookup_order, send_message, wipe_account>;
    tools catalogue;
    auto table = catalogue.table();
    auto policy = agentrt::lower_policy(by_class{}, catalogue);
    auto args = agentrt::fuzz::valid_json(agentrt::type_info_of<wipe_args>());
    auto views = agentrt::fuzz::run_gen(table);
    rc::Random random(2);
    int size = 0;
    for (auto _ : state) {
        auto document = args(random.split(), size).value();
        auto run = views(random.split(), size).value();
        auto accepted = table.accept("wipe_account", document);
        auto verdict = policy(table.at(accepted->index), accepted->args, run.view());
        benchmark::DoNotOptimize(verdict);
        size = (size + 1) % 101;
    }
    state.SetItemsProcessed(state.iterations());
}

} // namespace

BENCHMARK(raw_rapidcheck_plain_struct);
BENCHMARK(valid_arguments_serialised);
BENCHMARK(near_misses);
BENCHMARK(never_checks);
BENCHMARK_MAIN();
