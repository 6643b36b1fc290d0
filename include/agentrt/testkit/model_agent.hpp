// agentrt/testkit/model_agent.hpp — an agent that asks a model, with the simplest faithful render.
//
//     agentrt::testkit::fake_model model({turn::call("lookup_order", R"({"order_id":"ord-1"})"),
//                                         turn::text("shipped")});
//     agentrt::testkit::model_agent agent(model, shop::tools{}.table());
//     agentrt::driver(store, table, policy, agent).start("where is ord-1?");
//
// Each step it renders one request from the recorded data alone: the system text, the goal as the
// user's message, then for every earlier step that decided something its decision (verbatim, as the
// assistant) and what came of it (the observation, or the step's status and error, as the tool); the
// catalogue's tool definitions ride along. No clock, id or counter enters the render, so identical recorded steps
// render byte-identical requests. The call goes through view.call_model, so the runtime limits,
// records and retries it; the reply becomes the decision through agentrt::decision_from.
#pragma once

#include <agentrt/runtime/tool_definitions.hpp>
#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/runtime/agent.hpp>
#include <agentrt/runtime/model.hpp>
#include <agentrt/runtime/records.hpp>

#include <boost/json/array.hpp>

#include <cstdint>
#include <span>
#include <string>

namespace agentrt::testkit {

struct model_agent_options {
    std::string model = "fake-model"; // model_request::model: the price table's key
    std::string system = "Decide the next tool call toward the user's goal, or answer when it is reached.";
    provider shape = provider::anthropic; // how the tool definitions are written
    std::uint32_t max_output_tokens = 1024;
};

class model_agent final : public agent {
public:
    // Keeps a reference to `m` (which must outlive the agent) and a rendering of `tools`.
    model_agent(model& m, tool_table const& tools, model_agent_options options = {});

    // Throws agentrt::exception when the model call fails (the driver then fails the run, unless a
    // model limit already ended it), and std::logic_error for a view without call_model.
    decision decide(agent_view const& view) override;

    // The request for the step after `steps`: a function of its arguments only.
    model_request render(run_record const& run, std::span<step_record const> steps) const;

private:
    model* model_;
    boost::json::array tools_;
    model_agent_options options_;
};

} // namespace agentrt::testkit
