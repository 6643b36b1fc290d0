// agentrt/testkit/scripted_agent.hpp — an agent that answers from a script, for tests.
//
//     agentrt::testkit::scripted_agent agent({agentrt::decision::call("lookup_order", R"({"order_id":"ord-1"})"),
//                                             agentrt::decision::complete("the order has shipped")});
#pragma once

#include <agentrt/runtime/agent.hpp>
#include <agentrt/runtime/decision.hpp>

#include <cstddef>
#include <utility>
#include <vector>

namespace agentrt::testkit {

// Returns decision N for step N; past its script it throws, naming the step and the script length.
class scripted_agent final : public agent {
public:
    explicit scripted_agent(std::vector<decision> script) : script_(std::move(script)) {}
    decision decide(agent_view const& view) override;
    std::size_t calls() const noexcept { return calls_; }

private:
    std::vector<decision> script_;
    std::size_t calls_ = 0;
};

} // namespace agentrt::testkit
