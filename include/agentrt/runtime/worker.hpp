// agentrt/runtime/worker.hpp — resumes the runs of a store that are ready to go on.
//
//     agentrt::worker w(store, table, policy, agent);
//     for (;;) { (void)w.run_once(); std::this_thread::sleep_for(1s); }
//
// Ready: waiting on an approval that was granted, or running under a lease whose holder is dead or
// expired. An agent keeps no state between steps, so one agent serves every run. A worker is used
// from one thread; run one worker per thread to drive runs in parallel over one store.
#pragma once

#include <agentrt/runtime/driver.hpp>

#include <string>
#include <vector>

namespace agentrt {

struct worker_outcome {
    std::string run_id;
    result<run_record> run; // as the worker left it, or why it could not resume it
};

class worker {
public:
    worker(store& s, tool_table const& tools, evaluator const& policy, agent& a, gate_options options = {})
        : driver_(s, tools, policy, a, std::move(options)) {}

    // Resumes every run that is ready now, one after another; the store's error when it cannot
    // find them (a run it cannot resume is an outcome of its own).
    result<std::vector<worker_outcome>> run_once();

private:
    driver driver_;
};

} // namespace agentrt
