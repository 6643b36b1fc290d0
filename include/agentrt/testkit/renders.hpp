// agentrt/testkit/renders.hpp — the model request an agent makes for a step, without a store.
//
//     agentrt::testkit::step_input input{run, steps, steps.size()};
//     CHECK(rendered(agent, input) == rendered(agent, input));      // same steps, same bytes
//     CHECK(rendered(agent, input).request.messages.size() == 3);
//
// rendered() hands the agent a view of the input whose call_model records the request and answers
// with an empty text reply; the agent's own model is never called and nothing is stored. It reports a
// failure (and returns an empty rendering) when the agent made no model call, since an agent that
// renders nothing cannot be checked for render equivalence.
#pragma once

#include <agentrt/testkit/report.hpp>

#include <agentrt/runtime/agent.hpp>
#include <agentrt/runtime/model.hpp>
#include <agentrt/runtime/records.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace agentrt::testkit {

// What an agent is handed to decide one step: the run, the steps before it, and its index
// (steps.size() unless steps were left out).
struct step_input {
    run_record run;
    std::vector<step_record> steps;
    std::uint64_t step_index = 0;
};

struct rendered_request {
    model_request request;
    std::string text; // canonical_request(request); empty when the agent made no model call

    // Renders are the same when their canonical bytes are.
    friend bool operator==(rendered_request const& a, rendered_request const& b) noexcept { return a.text == b.text; }
};

// Writes the canonical text, so a failed comparison shows the bytes.
std::ostream& operator<<(std::ostream& out, rendered_request const& r);

// The first model request `a` makes deciding `input` (an agent that calls the model several times
// for one step is rendered by its first call).
rendered_request rendered(agent& a, step_input const& input, source_location where = source_location::current());

} // namespace agentrt::testkit
