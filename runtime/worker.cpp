#include <agentrt/runtime/worker.hpp>

#include <agentrt/runtime/reads.hpp>

namespace agentrt {

std::vector<worker_outcome> worker::run_once() {
    std::vector<worker_outcome> out;
    auto& g = driver_.gate();
    for (auto const& id : ready_runs(g.storage(), g.options().clocks.lease()))
        out.push_back({id, driver_.resume(id)});
    return out;
}

} // namespace agentrt
