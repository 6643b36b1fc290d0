// The step machine of a session: open a step, propose a decision, execute the allowed call once.
#include <agentrt/runtime/gate.hpp>

#include "errors.hpp"
#include "gate_impl.hpp"
#include "lease.hpp"
#include "policy_view.hpp"
#include "transitions.hpp"

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/json_reader.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>

namespace agentrt {
namespace {

// Why a run must stop before its next step, if it must.
std::optional<std::pair<std::string_view, std::string>> limit_reached(store_reader const& r, run_record const& run,
                                                                      limits const& l, std::int64_t now) {
    if (run.next_step >= l.max_steps)
        return std::pair{run_reason::limit_steps, "the run took its " + std::to_string(l.max_steps) + " steps"};
    if (run.failed_streak >= l.max_failed_streak)
        return std::pair{run_reason::limit_failures, std::to_string(run.failed_streak) + " consecutive steps failed"};
    if (l.max_active && run.active_ms >= l.max_active->count())
        return std::pair{run_reason::limit_active, "the run was active for " + std::to_string(run.active_ms) +
                                                       " ms, its limit is " + std::to_string(l.max_active->count()) +
                                                       " ms"};
    if (l.max_elapsed && now - run.created_ms >= l.max_elapsed->count())
        return std::pair{run_reason::limit_elapsed,
                         "the run is older than " + std::to_string(l.max_elapsed->count()) + " ms"};
    if (l.loop_threshold > 0 && run.next_step >= l.loop_threshold) {
        std::optional<step_record> first;
        bool loop = true;
        for (std::uint64_t i = run.next_step - l.loop_threshold; i < run.next_step && loop; ++i) {
            auto s = r.step(run.id, i);
            loop = s && s->status == step_status::done && s->kind == decision_kind::tool_call &&
                   (!first || (s->tool == first->tool && s->arguments == first->arguments &&
                               s->observation == first->observation));
            if (loop && !first)
                first = s;
        }
        if (loop)
            return std::pair{run_reason::loop_detected, "the same call of " + first->tool +
                                                            " returned the same result " +
                                                            std::to_string(l.loop_threshold) + " times in a row"};
    }
    return std::nullopt;
}

// The outcome of one tool call, as it came back.

} // namespace

namespace gate_detail {

std::optional<std::uint64_t> open_next(store_writer& w, run_record& run, limits const& l, std::int64_t now) {
    leases::count_active(run, now);
    if (auto stop = limit_reached(w, run, l, now)) {
        bool loop = stop->first == run_reason::loop_detected;
        w.append(run, loop ? event_type::loop_detected : event_type::limit_exceeded,
                 {{"limit", stop->first}, {"detail", stop->second}}, now);
        transitions::finish_run(w, run, run_status::failed, stop->first, stop->second, now);
        return std::nullopt;
    }
    step_record step;
    step.run_id = run.id;
    step.index = run.next_step++;
    step.started_ms = now;
    w.put(step);
    w.append(run, event_type::step_started, {{"step", step.index}}, now);
    return step.index;
}

} // namespace gate_detail

result<std::optional<std::uint64_t>> session::open_step() try {
    if (!gate_)
        return err(errc::refused, "this session has ended");
    if (pending_)
        return err(errc::refused,
                   "step " + std::to_string(*pending_) + " is allowed and not executed: execute it first");
    if (preopened_) {
        // The transaction that settled the previous step already opened this one.
        preopened_ = false;
        return open_;
    }
    if (open_)
        return err(errc::refused, "step " + std::to_string(*open_) + " is already open: propose its decision first");
    auto const& options = gate_->options_;
    std::int64_t now = options.clocks.record(), lease_now = options.clocks.lease();
    auto opened = gate_->store_->write([&](store_writer& w) -> result<std::optional<std::uint64_t>> {
        auto found = w.run(run_id_);
        if (!found || found->status != run_status::running) // gone: it ended, and was pruned since
            return std::optional<std::uint64_t>{};
        auto run = std::move(*found);
        if (auto held = leases::hold(run, owner_, epoch_, lease_now, options.lease_duration); !held)
            return held.error();
        run.updated_ms = now;
        auto index = gate_detail::open_next(w, run, options.limits, now);
        w.put(run);
        return index;
    });
    if (opened && *opened)
        open_ = **opened;
    return opened;
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

result<step_record> session::propose(decision const& d) try {
    if (!gate_)
        return err(errc::refused, "this session has ended");
    if (!open_)
        return err(errc::refused, "no step is open on run " + run_id_ + ": call open_step first");
    auto const& options = gate_->options_;
    evaluator const& policy = *gate_->policy_;
    std::uint64_t index = *open_;
    tool_entry const* tool = nullptr;
    std::optional<accepted_call> call;
    std::optional<error> invalid;
    // Too big to record: the step fails like any invalid decision, with its size and not its bytes.
    bool const oversized = d.size() > max_decision_bytes;
    if (oversized)
        invalid = err(errc::too_large, "the decision is " + std::to_string(d.size()) + " bytes; the bound is " +
                                           std::to_string(max_decision_bytes) + ", so it was not recorded");
    if (!view_cache_)
        view_cache_ = std::make_shared<views::view_snapshot>();
    auto* snap = static_cast<views::view_snapshot*>(view_cache_.get());
    if (!oversized && d.kind == decision_kind::tool_call) {
        if (auto accepted = gate_->tools_->accept(d.tool, d.arguments)) {
            call = std::move(*accepted);
            tool = &gate_->tools_->at(call->index);
        } else {
            invalid = accepted.error();
        }
    }
    // The policy decides on the run as this thread last saw it (no round trip where reads cost one),
    // and the write that records its decision checks that the run is still that one: if not, the
    // policy decides again on what the store holds. The last decides on a fresh read, as a read then
    // a write always did, so a run that keeps changing cannot hold the step up.
    constexpr int most_decisions = 3;
    auto const settled = std::min<std::size_t>(snap->steps.size(), index); // read before this propose
    for (int decisions = 1;; ++decisions) {
        views::evaluation answer;
        if (call) {
            views::refresh(*snap, *gate_->store_, run_id_, index, decisions == 1);
            answer = views::evaluate(policy, *tool, call->args, snap->view);
        }
        bool allowed = answer.answer && answer.answer->outcome == outcome::allow;
        std::int64_t now = options.clocks.record(), lease_now = options.clocks.lease();
        std::optional<std::uint64_t> next; // opened by the same transaction when the step failed
        bool decided_on_another_run = false;

        auto proposed = gate_->store_->write(
            [&](store_writer& w) -> result<step_record> {
                decided_on_another_run = false;
                auto run = existing_run(w.run(run_id_), run_id_);
                if (auto held = leases::hold(run, owner_, epoch_, lease_now, options.lease_duration); !held)
                    return held.error();
                auto step = existing_step(w.step(run_id_, index), run_id_, index);
                if (step.status != step_status::deciding)
                    return err(errc::conflict, "step " + step.id() + " is " + std::string(to_string(step.status)) +
                                                   ", not deciding: it was interrupted meanwhile");
                if (call && decisions < most_decisions && !views::still_current(*snap, run)) {
                    decided_on_another_run = true; // nothing is written: the policy decides again
                    return err(errc::conflict, "run " + run_id_ + " changed while its policy decided");
                }
                run.updated_ms = now;
                step.kind = d.kind;
                step.ignored_calls = d.ignored.size();
                if (!oversized) {
                    step.decision = d.to_text();
                    step.tool = d.tool;
                    step.arguments = d.arguments;
                }
                w.append(run, event_type::step_decided, {{"step", index}, {"decision", step.decision}}, now);
                auto fail_step = [&](std::string_view reason, std::string message, std::string observation) {
                    step.observation = std::move(observation);
                    transitions::fail_step(w, run, step, reason, std::move(message), now);
                };
                if (invalid) {
                    fail_step("invalid_decision", invalid->to_string(),
                              canonical_json(boost::json::object{{"invalid_decision", invalid->to_string()}}));
                    ++run.failed_streak;
                } else if (d.kind == decision_kind::complete) {
                    transitions::complete_by_decision(w, run, step, json_string_literal(d.summary), now);
                    transitions::finish_run(w, run, run_status::completed, run_reason::goal_completed, d.summary, now);
                } else if (d.kind == decision_kind::fail) {
                    fail_step("agent_failed", d.summary, json_string_literal(d.summary));
                    transitions::finish_run(w, run, run_status::failed, run_reason::agent_failed, d.summary, now);
                } else if (!answer.answer) {
                    step.arguments = canonical_json(call->args.json());
                    fail_step("internal_error", answer.failure, "");
                    transitions::finish_run(w, run, run_status::failed, run_reason::internal_error, answer.failure,
                                            now);
                } else {
                    verdict const& v = *answer.answer;
                    step.arguments = canonical_json(call->args.json());
                    auto const& spec = gate_->impl_->spec_of(*gate_->tools_, *tool);
                    step.spec_hash = spec.hash;
                    w.put_tool_spec(spec.hash, spec.canonical);
                    step.policy = views::policy_of(policy, v, *snap);
                    run.policy = policy.identity();
                    w.append(run, event_type::step_policy,
                             {{"step", index},
                              {"identity", policy.identity()},
                              {"outcome", to_string(v.outcome)},
                              {"reason", v.reason},
                              {"steps_seen", step.policy->steps_seen},
                              {"approvals_seen", step.policy->approvals_seen}},
                             now);
                    if (v.outcome == outcome::allow) {
                        transitions::start_tool_call(w, run, step, {}, now);
                    } else if (v.outcome == outcome::deny) {
                        fail_step("denied", v.reason, canonical_json(boost::json::object{{"denied", v.reason}}));
                        ++run.failed_streak;
                    } else if (v.outcome == outcome::abort) {
                        fail_step("policy_abort", v.reason, "");
                        transitions::finish_run(w, run, run_status::failed, run_reason::policy_abort, v.reason, now);
                    } else {
                        transitions::ask_approval(w, run, step, tool->spec(), v, now);
                    }
                }
                w.put(step);
                next.reset();
                if (run.status == run_status::running && step.status == step_status::failed)
                    next = gate_detail::open_next(w, run, options.limits, now);
                w.put(run);
                return step;
            },
            allowed); // the start of a tool is on disk before the tool is called
        if (!proposed && decided_on_another_run) {
            views::forget_steps_from(*snap, settled); // what this propose read of them may be stale too
            continue;
        }
        if (!proposed)
            return proposed;
        open_.reset();
        if (proposed->status == step_status::executing)
            pending_ = index;
        if (next) {
            open_ = next;
            preopened_ = true;
        }
        return proposed;
    }
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

result<void> session::fail(std::string message) try {
    if (!gate_)
        return err(errc::refused, "this session has ended");
    auto const& options = gate_->options_;
    std::int64_t now = options.clocks.record(), lease_now = options.clocks.lease();
    auto failed = gate_->store_->write([&](store_writer& w) -> result<void> {
        auto run = existing_run(w.run(run_id_), run_id_);
        if (auto held = leases::hold(run, owner_, epoch_, lease_now, options.lease_duration); !held)
            return held;
        if (open_) {
            auto step = existing_step(w.step(run_id_, *open_), run_id_, *open_);
            if (step.status == step_status::deciding) { // not settled by a commit whose caller then failed
                transitions::fail_step(w, run, step, "internal_error", message, now);
                w.put(step);
            }
        }
        // An allowed call not executed, or one whose outcome was never recorded, ends with the run as
        // a cancel ends it: a finished run leaves no step executing.
        for (auto& step : w.steps(run_id_))
            if (step.status == step_status::executing)
                transitions::interrupt_step(w, run, step, "cancelled", now);
        transitions::finish_run(w, run, run_status::failed, run_reason::internal_error, message, now);
        w.put(run);
        return {};
    });
    open_.reset();
    pending_.reset();
    return failed;
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

} // namespace agentrt
