#include <agentrt/testkit/scripted_agent.hpp>

#include <stdexcept>
#include <string>

namespace agentrt::testkit {

decision scripted_agent::decide(agent_view const& view) {
    ++calls_;
    if (view.step_index >= script_.size())
        throw std::out_of_range("scripted agent has no decision for step " + std::to_string(view.step_index) +
                                " of run " + view.run.id + ": its script has " + std::to_string(script_.size()) +
                                " decisions");
    return script_[view.step_index];
}

} // namespace agentrt::testkit
