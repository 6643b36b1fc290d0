// agentrt/runtime/chat_agent.hpp — the agent that asks a model, rendering the conversation from the record.
//
//     agentrt::anthropic_model model(agentrt::anthropic_options{});
//     agentrt::chat_agent agent(model, shop::tools{}.table(), {.model = "claude-sonnet-4-0"});
//     agentrt::driver(store, table, policy, agent).start("where is ord-1?");
//
// Each step renders one request from the recorded steps alone: the system text; the goal as the
// user's first message; for every earlier step that decided a tool call, the assistant's turn (the
// text the model sent with it and the call, with the id `step_<index>`, then any further calls of
// the same reply as `step_<index>_<k>`) and the user's turn of tool results: the observation, or
// what became of the step (denied, refused, failed, interrupted) flagged as an error, and "not run"
// for each further call. No clock, counter or provider-given id enters the render, so identical
// recorded steps render byte-identical requests. The call goes through view.call_model, so the
// runtime limits, records and retries it; the reply becomes the decision through decision_from.
#pragma once

#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/runtime/agent.hpp>
#include <agentrt/runtime/model.hpp>
#include <agentrt/runtime/records.hpp>

#include <boost/json/array.hpp>

#include <cstdint>
#include <span>
#include <string>

namespace agentrt {

struct chat_agent_options {
    std::string model = "fake-model"; // model_request::model: the provider's model and the price table's key
    std::string system = "Decide the next tool call toward the user's goal, or answer when it is reached.";
    std::uint32_t max_output_tokens = 1024;
};

class chat_agent final : public agent {
public:
    // Keeps a reference to `m` (which must outlive the agent) and the tool definitions of `tools`.
    chat_agent(model& m, tool_table const& tools, chat_agent_options options = {});

    // Throws agentrt::exception when the model call fails (the driver then fails the run, unless a
    // model limit already ended it), and std::logic_error for a view without call_model.
    decision decide(agent_view const& view) override;

    // The request for the step after `steps`: a function of its arguments only.
    model_request render(run_record const& run, std::span<step_record const> steps) const;

    chat_agent_options const& options() const noexcept { return options_; }

private:
    model* model_;
    boost::json::array tools_;
    chat_agent_options options_;
};

// The id the render gives step `index`'s call, and its k-th further call (k from 1).
std::string call_id_of(std::uint64_t index, std::uint64_t further = 0);

} // namespace agentrt
