#include <agentrt/testkit/renders.hpp>

#include <agentrt/testkit/fake_model.hpp>
#include <agentrt/testkit/report.hpp>

#include <exception>
#include <optional>
#include <ostream>

namespace agentrt::testkit {

std::ostream& operator<<(std::ostream& out, rendered_request const& r) {
    return out << (r.text.empty() ? std::string("(no model request)") : r.text);
}

rendered_request rendered(agent& a, step_input const& input, source_location where) {
    std::optional<rendered_request> first;
    auto record = [&first](model&, model_request const& request) -> result<model_response> {
        if (!first)
            first = rendered_request{request, canonical_request(request)};
        return model_response{};
    };
    auto const which = "step " + std::to_string(input.step_index) + " of run " + input.run.id;
    try {
        (void)a.decide(agent_view{input.run, input.steps, input.step_index, record});
    } catch (std::exception const& x) {
        // What the agent makes of the empty reply is not the question; what it asked is.
        if (!first) {
            current_reporter().fail(where, "rendered: the agent threw before making a model call, deciding " + which +
                                               ": " + x.what());
            return {};
        }
    }
    if (!first) {
        current_reporter().fail(where, "rendered: the agent made no model call deciding " + which +
                                           ", so there is no request to compare (a scripted_agent renders nothing)");
        return {};
    }
    return std::move(*first);
}

} // namespace agentrt::testkit
