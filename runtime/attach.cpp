// gate::attach: lease takeover, settling interrupted steps, and resuming a granted approval.
#include <agentrt/runtime/gate.hpp>

#include "errors.hpp"
#include "gate_impl.hpp"
#include "lease.hpp"
#include "policy_view.hpp"
#include "transitions.hpp"

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/json_reader.hpp>

#include <unistd.h>

namespace agentrt {
namespace {

enum class plan_kind { running, settle, grant };

struct attach_plan {
    plan_kind kind = plan_kind::running;
    step_record step;         // settle, grant
    approval_record approval; // grant
    std::uint64_t epoch = 0;  // running, settle: the session's hold (a grant takes the run later)
};

std::string format_holder(lease_record const& lease) {
    return lease.owner + " until " + std::to_string(lease.expiry_ms) + " (lease clock)";
}

// The step a waiting run waits on: awaiting its approval, or interrupted and settled by one.
std::optional<step_record> waiting_step(store_reader const& r, std::string_view run_id) {
    std::optional<step_record> found;
    for (auto& s : r.steps(run_id))
        if (s.status == step_status::awaiting_approval ||
            (s.status == step_status::interrupted && s.resolution == "approval"))
            found = std::move(s);
    return found;
}

// A step nobody works on any more: whoever decided it or called its tool crashed, stalled, or released
// the run first. A deciding step or a read-only call is left behind; any other started call is an
// interrupted side effect, to be settled before the run goes on.
void interrupt_orphan(store_writer& w, run_record& run, step_record& step, tool_table const& tools, std::int64_t now) {
    step.interrupted_in = step.status == step_status::executing ? "executing" : "deciding";
    transitions::interrupt_step(w, run, step, transitions::harmless_interruption(step, tools) ? "left_behind" : "",
                                now);
}

bool orphaned(step_record const& step) {
    return step.status == step_status::deciding || step.status == step_status::executing;
}

} // namespace

result<session> gate::attach(std::string_view run_id) try {
    std::string owner = leases::new_owner(*store_);
    leases::live_claim claim(owner);
    std::int64_t now = options_.clocks.record(), lease_now = options_.clocks.lease();
    lease_record mine = leases::lease_for(*store_, owner, lease_now, options_.lease_duration);

    auto planned = store_->write([&](store_writer& w) -> result<attach_plan> {
        auto run = w.run(run_id);
        if (!run)
            return err(errc::not_found, "no run " + std::string(run_id) + " in store " + store_->location());
        if (is_terminal(run->status))
            return err(errc::refused, "run " + run->id + " is already " + std::string(to_string(run->status)) + " (" +
                                          run->reason + "); nothing to resume");
        if (!run->lease.owner.empty()) {
            bool alive = leases::holder_alive(*store_, run->lease);
            bool expired = lease_now >= run->lease.expiry_ms;
            if (alive && !expired)
                return err(errc::lease_held, "run " + run->id + " is held by " + format_holder(run->lease) +
                                                 "; resume it after that, or stop its holder");
            leases::take_over(w, *run, alive, now);
            for (auto& step : w.steps(run->id))
                if (orphaned(step))
                    interrupt_orphan(w, *run, step, *tools_, now);
        }
        attach_plan plan;
        if (run->status == run_status::waiting_for_approval) {
            auto step = waiting_step(w, run->id);
            auto approval = step ? transitions::latest_approval(w, run->id, step->index) : std::nullopt;
            if (!approval) // thrown, so that what the takeover above wrote is not committed without the run
                throw exception(err(errc::store_failed, "run " + run->id + " waits for an approval but has none"));
            if (approval->status == approval_status::pending) {
                w.put(*run);
                return err(errc::refused, "run " + run->id + " waits for approval " + approval->hash + " of step " +
                                              std::to_string(step->index) + " (" + approval->kind + ")");
            }
            if (approval->status != approval_status::approved || approval->used) {
                w.put(*run);
                return err(errc::refused, "run " + run->id + " waits on step " + std::to_string(step->index) +
                                              " whose latest approval is " + std::string(to_string(approval->status)) +
                                              (approval->used ? " and used" : "") + ": nothing grants it");
            }
            plan.kind = plan_kind::grant;
            plan.step = std::move(*step);
            plan.approval = std::move(*approval);
            w.put(*run);
            return plan;
        }
        plan.epoch = leases::take(*run, mine, now);
        run->updated_ms = now;
        w.append(*run, event_type::run_resumed, {}, now);
        // Left by a session that released the run (a step opened, or a tool started whose outcome was
        // never recorded: the lease had lapsed, or recording it failed).
        for (auto& step : w.steps(run->id))
            if (orphaned(step))
                interrupt_orphan(w, *run, step, *tools_, now);
        for (auto& step : w.steps(run->id))
            if (step.status == step_status::interrupted && step.resolution.empty()) {
                plan.kind = plan_kind::settle;
                plan.step = step;
            }
        w.put(*run);
        return plan;
    });
    if (!planned)
        return planned.error();
    session s(*this, std::string(run_id), owner, planned->epoch);
    claim.keep(); // the session now releases or abandons the owner

    if (planned->kind == plan_kind::grant) {
        if (auto resumed = resume_grant(s, planned->step, planned->approval); !resumed) {
            s.abandon();
            return resumed.error();
        }
        return s;
    }
    if (planned->kind == plan_kind::settle)
        if (auto settled = gate_detail::settle(*this, s, planned->step); !settled)
            return settled.error();
    return s;
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

result<void> gate::resume_grant(session& s, step_record const& step, approval_record const& granted) {
    std::int64_t now = options_.clocks.record(), lease_now = options_.clocks.lease();
    tool_entry const* tool = tools_->find(step.tool);
    std::optional<accepted_call> call;
    std::string invalid;
    if (!tool) {
        invalid = "tool " + step.tool + " is no longer in the catalogue";
    } else {
        auto document = read_json(step.arguments);
        auto accepted = document ? tools_->accept(step.tool, *document) : result<accepted_call>(document.error());
        if (accepted)
            call = std::move(*accepted);
        else
            invalid = "the approved arguments no longer validate: " + accepted.error().to_string();
    }
    bool grant_expired = options_.grant_ttl && now > granted.decided_ms + options_.grant_ttl->count();
    std::unique_ptr<views::view_snapshot> snap;
    views::evaluation answer;
    if (call) {
        snap = views::snapshot(*store_, step.run_id, step.index);
        answer = views::evaluate(*policy_, *tool, call->args, snap->view);
    }
    bool allowed = false;
    if (answer.answer) {
        verdict const& v = *answer.answer;
        allowed = v.outcome == outcome::allow || (v.outcome == outcome::require_approval && !grant_expired &&
                                                  gate_detail::requested_hash(step, tool->spec(), v) == granted.hash);
    }
    lease_record mine = leases::lease_for(*store_, s.owner(), lease_now, options_.lease_duration);
    std::uint64_t epoch = 0;

    auto done = store_->write(
        [&](store_writer& w) -> result<bool> {
            auto run = existing_run(w.run(step.run_id), step.run_id);
            auto latest = transitions::latest_approval(w, run.id, step.index);
            if (run.status != run_status::waiting_for_approval || !latest || latest->seq != granted.seq ||
                latest->status != approval_status::approved || latest->used)
                return err(errc::conflict, "the grant of step " + step.id() + " was used or changed meanwhile");
            auto current = existing_step(w.step(run.id, step.index), run.id, step.index);
            epoch = transitions::resume_granted(w, run, mine, step.index, granted.hash, now);
            if (grant_expired) {
                latest->status = approval_status::expired;
                w.put(*latest);
                w.append(run, event_type::approval_expired, {{"step", step.index}, {"hash", granted.hash}}, now);
            }
            bool executing = false;
            if (!invalid.empty() || !answer.answer) {
                bool internal = invalid.empty();
                transitions::fail_step(w, run, current, internal ? "internal_error" : "invalid_decision",
                                       internal ? answer.failure : invalid, now);
                if (internal)
                    transitions::finish_run(w, run, run_status::failed, run_reason::internal_error, answer.failure,
                                            now);
                else
                    ++run.failed_streak;
            } else {
                verdict const& v = *answer.answer;
                current.policy = views::policy_of(*policy_, v, *snap);
                run.policy = policy_->identity();
                w.append(run, event_type::step_policy,
                         {{"step", step.index},
                          {"identity", policy_->identity()},
                          {"outcome", to_string(v.outcome)},
                          {"reason", v.reason},
                          {"reevaluation", true},
                          {"steps_seen", current.policy->steps_seen},
                          {"approvals_seen", current.policy->approvals_seen}},
                         now);
                if (allowed) {
                    latest->used = true;
                    w.put(*latest);
                    current.spec_hash = tool->spec_hash();
                    transitions::start_tool_call(w, run, current, granted.hash, now);
                    executing = true;
                } else if (v.outcome == outcome::require_approval) {
                    transitions::ask_approval(w, run, current, tool->spec(), v, now);
                } else {
                    transitions::fail_step(w, run, current, to_string(v.outcome), v.reason, now);
                    if (v.outcome == outcome::abort)
                        transitions::finish_run(w, run, run_status::failed, run_reason::policy_abort, v.reason, now);
                    else
                        ++run.failed_streak;
                }
            }
            if (current.status == step_status::failed && latest->status == approval_status::approved) {
                // Spent by the re-evaluation that failed its step: it must not make the run look ready.
                latest->used = true;
                w.put(*latest);
            }
            w.put(current);
            w.put(run);
            return executing;
        },
        allowed);
    if (!done)
        return done.error();
    s.epoch_ = epoch;
    if (*done)
        s.pending_ = step.index;
    return {};
}

} // namespace agentrt
