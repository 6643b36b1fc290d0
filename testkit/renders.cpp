#include <agentrt/testkit/renders.hpp>

#include <agentrt/testkit/fake_model.hpp>
#include <agentrt/testkit/report.hpp>
#include <agentrt/testkit/scenario.hpp>

#include "scenario_internal.hpp"

#include <exception>
#include <map>
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

namespace {

// Where two renders of one step first differ, with a little of each side.
std::string first_difference(std::string const& a, std::string const& b) {
    std::size_t at = 0;
    while (at < a.size() && at < b.size() && a[at] == b[at])
        ++at;
    auto excerpt = [&](std::string const& text) {
        std::size_t from = at < 40 ? 0 : at - 40;
        return "..." + text.substr(from, 80) + (text.size() > from + 80 ? "..." : "");
    };
    return "they differ at byte " + std::to_string(at) + "\n    first:  " + excerpt(a) + "\n    second: " + excerpt(b);
}

} // namespace

bool same_renders(std::function<scenario()> const& make, std::vector<crash> const& crashes, source_location where) {
    auto fail = [&](std::string const& message) {
        current_reporter().fail(where, "same_renders: " + message);
        return false;
    };
    auto first = run_scenario(make());
    if (!first.ok())
        return fail("the scenario fails without crashes: " + describe(first, {}));
    auto second = run_scenario(make(), crashes);
    if (!second.ok())
        return fail("the scenario fails with its crashes: " + describe(second, crashes));
    if (first.renders.empty())
        return fail("the agent rendered no model request, so nothing was compared");

    // The request first rendered from each input in the uncrashed run; every other rendering from
    // the same input, in either run, must be the same bytes.
    std::map<std::string, agent_render const*> reference;
    for (auto const& r : first.renders)
        reference.emplace(r.input, &r);
    // Only what a resumed process rendered counts as checked: the process that crashed rendered
    // before the crash, as the uncrashed run did.
    std::size_t compared_after_resume = 0;
    auto compare = [&](scenario_result const& run, std::string_view which) -> std::optional<std::string> {
        for (auto const& r : run.renders) {
            auto it = reference.find(r.input);
            if (it == reference.end() || it->second == &r)
                continue;
            if (&run == &second && r.process > 0)
                ++compared_after_resume;
            if (r.request != it->second->request)
                return "step " + std::to_string(r.step) + " rendered differently in the " + std::string(which) +
                       " (process " + std::to_string(r.process) + ") than in the uncrashed run (process " +
                       std::to_string(it->second->process) +
                       "), from the same recorded steps: " + first_difference(it->second->request, r.request);
        }
        return std::nullopt;
    };
    if (auto difference = compare(first, "uncrashed run"))
        return fail(*difference);
    if (auto difference = compare(second, "run with crashes"))
        return fail(*difference);
    if (compared_after_resume == 0)
        return fail("no decision made after a resume was made from the same recorded steps as one of the "
                    "uncrashed run, so nothing was compared: choose crashes the run resumes from");
    return true;
}

} // namespace agentrt::testkit
