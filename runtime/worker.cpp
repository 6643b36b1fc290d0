#include <agentrt/runtime/worker.hpp>

#include <agentrt/runtime/reads.hpp>

namespace agentrt {

result<std::vector<worker_outcome>> worker::run_once() try {
    std::vector<worker_outcome> out;
    auto& g = driver_.gate();
    for (auto const& id : ready_runs(g.storage(), g.options().clocks.lease()))
        out.push_back({id, driver_.resume(id)});
    return out;
} catch (exception const& e) { // a failing store: the worker's loop goes on, and tries again
    return e.error();
}

} // namespace agentrt
