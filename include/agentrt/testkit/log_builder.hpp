// agentrt/testkit/log_builder.hpp — a store's records written directly, without running anything.
//
//     agentrt::testkit::log_builder("r-1")
//         .step(0, agentrt::step_status::done, "send_message")
//         .tool_started(0).tool_started(0)               // two starts, no approval: contradictory
//         .tool_finished(0)
//         .status(agentrt::run_status::completed, "goal_completed")
//         .write(store);
//
// For shapes that are hard to produce for real: the invariant checker, the readers and the
// operator command are tested against them. Records and events are chained as the runtime chains
// them, so a built store verifies unless a test breaks it on purpose.
#pragma once

#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>

#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace agentrt::testkit {

class log_builder {
public:
    explicit log_builder(std::string run_id, std::string goal = "built by the log builder");

    log_builder& status(run_status s, std::string reason = {}, std::string message = {});
    log_builder& lease(std::string owner, std::int64_t pid, std::int64_t expiry_ms);
    // A step record in that state, and its step.started event.
    log_builder& step(std::uint64_t index, step_status s, std::string tool = {}, std::string arguments = "{}");
    // A step.tool_started event (granted by `approval_hash` when given) and one more attempt.
    log_builder& tool_started(std::uint64_t step, std::string approval_hash = {});
    log_builder& tool_finished(std::uint64_t step, bool late = false);
    log_builder& interrupted(std::uint64_t step);
    // An approval of the step, its approval.requested event, and approval.decided when decided.
    log_builder& approval(std::uint64_t step, std::string kind, approval_status s, bool used = false);
    log_builder& event(event_type type, boost::json::object data);

    // The hash of the step's latest approval built so far (to name it in tool_started).
    std::string approval_hash(std::uint64_t step) const;

    // Writes everything in one transaction, events in the order they were built.
    void write(store& s) const;

private:
    static std::string approval_hash_of(approval_record const& a);

    run_record run_;
    std::vector<step_record> steps_;
    std::vector<approval_record> approvals_;
    std::vector<std::pair<event_type, boost::json::object>> events_;
    std::int64_t now_ = 1'700'000'000'000;
};

} // namespace agentrt::testkit
