#include <agentrt/runtime/chat_agent.hpp>

#include <agentrt/catalog/error.hpp>
#include <agentrt/runtime/tool_definitions.hpp>

#include <stdexcept>
#include <utility>

namespace agentrt {
namespace {

constexpr std::string_view not_run = "not run: only the first tool call of a reply runs; ask again for this one";

std::string outcome_of(step_record const& step) {
    if (!step.observation.empty())
        return step.observation;
    return "step " + std::string(to_string(step.status)) + ": " + step.error;
}

} // namespace

std::string call_id_of(std::uint64_t index, std::uint64_t further) {
    auto id = "step_" + std::to_string(index);
    if (further != 0)
        id += "_" + std::to_string(further);
    return id;
}

chat_agent::chat_agent(model& m, tool_table const& tools, chat_agent_options options)
    : model_(&m), tools_(agentrt::render(tools, provider::neutral)), options_(std::move(options)) {}

model_request chat_agent::render(run_record const& run, std::span<step_record const> steps) const {
    model_request r;
    r.model = options_.model;
    r.system = options_.system;
    r.tools = tools_;
    r.max_output_tokens = options_.max_output_tokens;
    r.messages.push_back(model_message::user(run.goal));
    for (auto const& step : steps) {
        // A step interrupted while deciding decided nothing and did nothing: leaving it out keeps a
        // crash in a decision from changing the next request. Only a call leaves the run going.
        auto const d = decision::from_text(step.decision);
        if (!d || d->kind != decision_kind::tool_call)
            continue;
        model_message asked{message_role::assistant, {}};
        model_message answered{message_role::user, {}};
        if (!d->summary.empty())
            asked.content.emplace_back(text_block{d->summary});
        asked.content.emplace_back(model_tool_call{call_id_of(step.index), d->tool, d->arguments});
        answered.content.emplace_back(
            tool_result_block{call_id_of(step.index), outcome_of(step), step.status != step_status::done});
        std::uint64_t k = 0;
        for (auto const& c : d->ignored) {
            auto id = call_id_of(step.index, ++k);
            asked.content.emplace_back(model_tool_call{id, c.tool, c.arguments});
            answered.content.emplace_back(tool_result_block{std::move(id), std::string(not_run), true});
        }
        r.messages.push_back(std::move(asked));
        r.messages.push_back(std::move(answered));
    }
    return r;
}

decision chat_agent::decide(agent_view const& view) {
    if (!view.call_model)
        throw std::logic_error("chat_agent: the view of step " + std::to_string(view.step_index) + " of run " +
                               view.run.id +
                               " has no call_model: build views through a driver, a session or "
                               "agentrt::testkit::rendered");
    auto reply = view.call_model(*model_, render(view.run, view.steps));
    if (!reply)
        throw agentrt::exception(reply.error());
    return decision_from(*reply);
}

} // namespace agentrt
