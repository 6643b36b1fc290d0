// agentrt/runtime/driver.hpp — runs the loop of a run with the consumer's agent, over the gate.
//
//     agentrt::driver d(store, table, policy, agent);
//     agentrt::result<agentrt::run_record> run = d.start("refund order 7");
//     // later, after an operator approved: d.resume(run->id);
//
// The driver is a gate with an agent: every step goes through session::open_step, propose and
// execute, so a gate loop and the driver record the same store for the same scenario.
#pragma once

#include <agentrt/runtime/agent.hpp>
#include <agentrt/runtime/gate.hpp>

#include <string>
#include <string_view>

namespace agentrt {

class driver {
public:
    driver(store& s, tool_table const& tools, evaluator const& policy, agent& a, gate_options options = {})
        : gate_(s, tools, policy, std::move(options)), agent_(&a) {}

    // Creates a run and drives it until it ends or waits; the run as it was left.
    result<run_record> start(std::string goal, std::string run_id = {});
    // Attaches to a run (takeover, reconcile, a granted approval) and drives it on.
    result<run_record> resume(std::string_view run_id);
    // Drives an attached session until its run ends or waits.
    result<run_record> drive(session& s);

    agentrt::gate& gate() noexcept { return gate_; }

private:
    agentrt::gate gate_;
    agent* agent_;
};

} // namespace agentrt
