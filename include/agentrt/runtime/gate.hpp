// agentrt/runtime/gate.hpp — the controls of a run for a consumer that owns its loop.
//
//     agentrt::gate g(store, table, policy);
//     agentrt::result<agentrt::session> s = g.begin("refund order 7");
//     while (s->run().status == agentrt::run_status::running) {
//         if (!s->open_step().value()) break;                    // a limit ended the run
//         agentrt::step_record step = s->propose(my_decision()).value();
//         if (step.status == agentrt::step_status::executing) s->execute().value();
//     }
//
// A session holds the run's lease; it is renewed by every transaction of the session and released
// when the session ends or the run pauses or finishes. A session whose lease lapsed or was taken
// over starts no further tool. Misuse (a second open step, execute without an allowed request,
// execute twice) is refused and changes nothing. A gate may serve many sessions; a gate and its
// sessions are used from one thread (docs/runtime.md).
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/catalog/policy.hpp>
#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/runtime/clock.hpp>
#include <agentrt/runtime/decision.hpp>
#include <agentrt/runtime/limits.hpp>
#include <agentrt/runtime/model.hpp>
#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>

#include <boost/json/value.hpp>

#include <stop_token>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt {

// What the consumer's reconcile hook says about a side-effecting tool call that was interrupted.
enum class reconcile_answer { continue_run, completed, waiting, conflict };

struct reconciliation {
    reconcile_answer answer = reconcile_answer::waiting;
    boost::json::value observation; // completed: what the call did
    verdict approval;               // waiting: the approval to ask for (kind, reason, capability, ...)
    std::string message;            // conflict: why
};

using reconcile_hook = std::function<reconciliation(step_record const&, tool_entry const&)>;

struct gate_options {
    agentrt::limits limits;
    agentrt::clocks clocks;
    id_source ids = [] { return time_ordered_id(); };
    std::chrono::milliseconds lease_duration{30'000};
    reconcile_hook reconcile;                           // none: every interrupted side effect waits on an approval
    std::optional<std::chrono::milliseconds> grant_ttl; // an approval unused this long after it was granted expires
    model_limits models;
};

class gate;

class session {
public:
    session(session&&) noexcept;
    session& operator=(session&&) noexcept;
    ~session(); // releases the lease, if still held

    std::string const& run_id() const noexcept { return run_id_; }
    std::string const& owner() const noexcept { return owner_; }
    // The epoch of this session's hold on the run (lease_record::epoch); 0 before it holds it.
    std::uint64_t lease_epoch() const noexcept { return epoch_; }
    // The run as the store holds it now. Throws agentrt::exception (errc::not_found) for a run that
    // ended and was pruned since; every call below returns that as an error instead.
    run_record run() const;

    // Claims the next step (step.started). Empty when the run is not running or a limit ended it.
    // After a step settles and the run goes on, its commit has already opened the next step (one
    // commit fewer per step); open_step then returns that step.
    result<std::optional<std::uint64_t>> open_step();
    // Records the decision verbatim, validates it and asks the policy (a decision over
    // max_decision_bytes fails its step as invalid, recorded by its size only). An allowed tool call comes
    // back `executing`, its start durable; anything else comes back settled.
    result<step_record> propose(decision const& d);
    // Calls the model for the open step: limits first, the call recorded dispatched and then ok, error
    // or ambiguous with its usage and cost; transient failures retried with backoff within the limits.
    // Stopping `cancel` requests the model's own stop token (its reply, if any, is still recorded) and
    // ends the retries with errc::refused.
    result<model_response> call_model(model& m, model_request const& request, std::stop_token cancel = {});
    // Calls the allowed tool exactly once and records the outcome.
    result<step_record> execute();
    // The step allowed and not yet executed by this session (after propose, or a resume of a grant).
    std::optional<std::uint64_t> pending_execution() const noexcept { return pending_; }
    // Fails the run internal_error (for example when the agent throws).
    result<void> fail(std::string message);
    // Compare-and-set release of the lease.
    result<void> release();
    // Forgets the session without releasing anything, as a crash would: the lease stays held.
    void abandon() noexcept;

private:
    friend class gate;
    session(gate& g, std::string run_id, std::string owner, std::uint64_t epoch);
    model_result complete(model& m, model_request const& request, std::uint32_t attempt, std::stop_token cancel);

    gate* gate_ = nullptr;
    std::string run_id_;
    std::string owner_;
    std::uint64_t epoch_ = 0;
    std::optional<std::uint64_t> open_;    // the step opened and not yet decided
    std::optional<std::uint64_t> pending_; // the step allowed and not yet executed
    bool preopened_ = false;               // open_ was opened by the commit that settled the step before
    std::shared_ptr<void> view_cache_;     // the settled steps the policy's view was built from
};

class gate {
public:
    gate(store& s, tool_table const& tools, evaluator const& policy, gate_options options = {});
    ~gate(); // waits for tools still running past their timeout
    gate(gate const&) = delete;
    gate& operator=(gate const&) = delete;

    // Creates a run (the id is generated when empty) and takes its lease.
    result<session> begin(std::string goal, std::string run_id = {});
    // Takes a run's lease to go on with it: refused while a live holder's lease runs; taken over at
    // once from a dead process, and after expiry from a live one. Settles interrupted steps and, for
    // a granted approval, re-validates and re-asks the policy (pending_execution() then names the step).
    result<session> attach(std::string_view run_id);

    store& storage() noexcept { return *store_; }
    tool_table const& tools() const noexcept { return *tools_; }
    gate_options const& options() const noexcept { return options_; }

    struct impl;

private:
    friend class session;
    result<void> resume_grant(session& s, step_record const& step, approval_record const& granted);

    store* store_;
    tool_table const* tools_;
    evaluator const* policy_;
    gate_options options_;
    std::unique_ptr<impl> impl_;
};

} // namespace agentrt
