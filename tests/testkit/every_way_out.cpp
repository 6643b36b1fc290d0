// Every way out of a step closes it: whatever a model does, at whichever step, drive never leaves a
// step deciding or executing, and the store's invariants hold.
#include <agentrt/fuzz/doctest.hpp>
#include <agentrt/runtime.hpp>
#include <agentrt/testkit/fake_model.hpp>
#include <agentrt/testkit/model_agent.hpp>

#include "runtime/fixture.hpp"

#include <doctest/doctest.h>
#include <rapidcheck.h>

using namespace agentrt::testkit;
using agentrt::step_status;

namespace {

// Every reply and failure the fake model can give, and a reply too big to record.
std::vector<turn> every_mode() {
    using runtime_test::lookup_args;
    return {
        turn::text("the answer"),
        turn::call("lookup_order", lookup_args),
        turn::calls({{"lookup_order", lookup_args}, {"send_message", runtime_test::send_args}}),
        turn::call("send_message", runtime_test::send_args), // denied by the policy below
        turn::call("wipe_account", runtime_test::wipe_args), // waits for an approval
        turn::unknown_tool("no_such_tool"),
        turn::malformed_arguments("lookup_order"),
        turn::call("lookup_order", R"({"order_id":)" + std::string(agentrt::max_decision_bytes, '1') + "}"),
        turn::transient_failure(),
        turn::permanent_failure(),
        turn::abort_mid_stream({"half a rep"}),
        turn::stall(std::chrono::milliseconds(1)),
        turn::chunks({"an answer ", "in two chunks"}),
    };
}

std::string lookup_of(std::size_t k) {
    return R"({"order_id":"ord-)" + std::to_string(k + 1) + R"("})";
}

// Drives one run through `script` and says what, if anything, broke the promise.
std::string drive_and_check(std::vector<turn> script) {
    runtime_test::world w;
    w.decide = [](agentrt::tool_entry const& t, auto const&, auto const&) {
        if (t.name == "send_message")
            return agentrt::deny("no mail today");
        if (t.name == "wipe_account")
            return agentrt::require_approval("destructive", "wipes an account");
        return agentrt::allow();
    };
    auto s = w.open({.durability = agentrt::durability::process_crash});
    fake_model model(std::move(script)); // past its script it throws: the agent's failure, one more way out
    model_agent agent(model, w.table);
    auto options = w.options();
    options.models.backoff = std::chrono::milliseconds(0);
    options.limits.max_steps = 12;
    agentrt::driver d(s, w.table, w.policy, agent, options);
    auto driven = d.start("reach the goal");
    if (!driven && driven.error().code == agentrt::errc::store_failed)
        return "drive failed: " + driven.error().to_string();
    for (auto const& step : agentrt::read_run(s, "run-1").value().steps)
        if (step.status == step_status::deciding || step.status == step_status::executing)
            return "step " + step.id() + " is left " + std::string(agentrt::to_string(step.status)) + " (drive: " +
                   (driven ? std::string(agentrt::to_string(driven->status)) : driven.error().to_string()) + ")";
    auto report = agentrt::check_invariants(s);
    return report.ok() ? std::string() : report.problems.front();
}

} // namespace

TEST_SUITE("testkit") {

    TEST_CASE("every way out of a step closes it: each mode of the fake model, at each of the first steps") {
        auto const modes = every_mode();
        for (std::size_t m = 0; m < modes.size(); ++m)
            for (std::size_t at = 0; at < 4; ++at) {
                std::vector<turn> script;
                for (std::size_t k = 0; k < at; ++k)
                    script.push_back(turn::call("lookup_order", lookup_of(k)));
                script.push_back(modes[m]);
                script.push_back(turn::text("done"));
                CAPTURE(m);
                CAPTURE(at);
                CHECK(drive_and_check(std::move(script)) == "");
            }
    }

    TEST_CASE("every way out of a step closes it: drive leaves no step deciding or executing, whatever mixture of "
              "modes the model plays") {
        auto const modes = every_mode();
        AGENTRT_CHECK_PROPERTY("a script of any failure modes, at any steps",
                               [&] {
                                   auto picks =
                                       *rc::gen::resize(10, rc::gen::container<std::vector<std::size_t>>(
                                                                rc::gen::inRange<std::size_t>(0, modes.size())));
                                   std::vector<turn> script;
                                   for (auto i : picks)
                                       script.push_back(modes[i]);
                                   RC_ASSERT(drive_and_check(std::move(script)) == "");
                               },
                               {.seed = {}, .cases = 60});
    }
}
