// agentrt/runtime/agent.hpp — what decides each step, from the recorded steps alone.
//
//     agentrt::testkit::scripted_agent agent({agentrt::decision::call("lookup_order", R"({"order_id":"ord-1"})"),
//                                    agentrt::decision::complete("shipped")});
//
// An agent keeps no state between steps: it sees copies of the run and its recorded steps, so the
// audit log and the agent's view are the same data, and nothing it does changes the store.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/runtime/decision.hpp>
#include <agentrt/runtime/model.hpp>
#include <agentrt/runtime/records.hpp>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace agentrt {

struct agent_view {
    run_record const& run;
    std::span<step_record const> steps; // the steps before the one being decided
    std::uint64_t step_index = 0;       // the step being decided
    // Calls a model through the session, so the call is limited and recorded.
    std::function<result<model_response>(model&, model_request const&)> call_model;
};

class agent {
public:
    virtual ~agent() = default;
    // May throw: the run then fails internal_error with the message.
    virtual decision decide(agent_view const& view) = 0;
};

} // namespace agentrt
