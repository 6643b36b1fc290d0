#include <agentrt/testkit/model_agent.hpp>

#include <agentrt/catalog/error.hpp>

#include <stdexcept>
#include <utility>

namespace agentrt::testkit {

model_agent::model_agent(model& m, tool_table const& tools, model_agent_options options)
    : model_(&m), tools_(agentrt::render(tools, options.shape)), options_(std::move(options)) {}

model_request model_agent::render(run_record const& run, std::span<step_record const> steps) const {
    model_request r;
    r.model = options_.model;
    r.system = options_.system;
    r.tools = tools_;
    r.max_output_tokens = options_.max_output_tokens;
    r.messages.push_back({"user", run.goal});
    for (auto const& step : steps) {
        // A step interrupted while deciding decided nothing and did nothing: leaving it out keeps a
        // crash in a decision from changing the next request.
        if (step.decision.empty())
            continue;
        r.messages.push_back({"assistant", step.decision});
        if (!step.observation.empty())
            r.messages.push_back({"tool", step.observation});
        else if (!step.error.empty())
            r.messages.push_back({"tool", "step " + std::string(to_string(step.status)) + ": " + step.error});
    }
    return r;
}

decision model_agent::decide(agent_view const& view) {
    if (!view.call_model)
        throw std::logic_error("model_agent: the view of step " + std::to_string(view.step_index) + " of run " +
                               view.run.id +
                               " has no call_model: build views through a driver, a session or "
                               "agentrt::testkit::rendered");
    auto reply = view.call_model(*model_, render(view.run, view.steps));
    if (!reply)
        throw agentrt::exception(reply.error());
    return decision_from(*reply);
}

} // namespace agentrt::testkit
