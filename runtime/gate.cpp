#include <agentrt/runtime/gate.hpp>

#include "errors.hpp"
#include "gate_impl.hpp"
#include "lease.hpp"
#include "transitions.hpp"

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/json_reader.hpp>

#include <unistd.h>

namespace agentrt {
namespace {

bool valid_run_id(std::string_view id) {
    if (id.empty() || id.size() > 128)
        return false;
    for (char c : id)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.' || c == ':'))
            return false;
    return true;
}

} // namespace

namespace gate_detail {

std::string requested_hash(step_record const& step, boost::json::object const& spec, verdict const& v) {
    approval_record a;
    a.kind = v.kind;
    a.capability = v.capability;
    a.presentation = v.presentation;
    a.request = {
        {"run", step.run_id},
        {"step", step.index},
        {"tool", spec},
        {"arguments", step.arguments.empty() ? boost::json::value(nullptr) : parse_record_text(step.arguments)}};
    return approval_hash(a);
}

result<void> settle(gate& g, session& s, step_record step) {
    auto const& options = g.options();
    tool_entry const* tool = g.tools().find(step.tool);
    std::optional<reconciliation> answer;
    std::string hook_failure;
    if (options.reconcile && tool) {
        try {
            answer = options.reconcile(step, *tool);
        } catch (std::exception const& x) {
            hook_failure = std::string("reconcile hook threw: ") + x.what();
        }
    }
    std::int64_t now = options.clocks.record(), lease_now = options.clocks.lease();
    return g.storage().write([&](store_writer& w) -> result<void> {
        auto run = existing_run(w.run(s.run_id()), s.run_id());
        if (auto held = leases::hold(run, s.owner(), s.lease_epoch(), lease_now, options.lease_duration); !held)
            return held;
        auto current = existing_step(w.step(step.run_id, step.index), step.run_id, step.index);
        if (current.status != step_status::interrupted || !current.resolution.empty())
            return err(errc::conflict, "step " + current.id() + " was settled meanwhile");
        boost::json::object spec = tool ? tool->spec() : boost::json::object{{"name", step.tool}};
        if (!hook_failure.empty()) {
            current.resolution = "reconcile_failed";
            w.put(current);
            transitions::finish_run(w, run, run_status::failed, run_reason::internal_error, hook_failure, now);
        } else if (!answer || answer->answer == reconcile_answer::waiting) {
            verdict v = answer ? answer->approval
                               : require_approval("interrupted_side_effect",
                                                  "a call of " + step.tool +
                                                      " was interrupted; whether its effect happened is unknown",
                                                  nullptr, boost::json::object{{"tool", step.tool}});
            if (v.kind.empty())
                v.kind = "interrupted_side_effect";
            transitions::ask_about_interruption(w, run, current, spec, v, now);
        } else {
            w.append(run, event_type::step_reconciled,
                     {{"step", current.index},
                      {"answer", answer->answer == reconcile_answer::continue_run ? "continue"
                                 : answer->answer == reconcile_answer::completed  ? "completed"
                                                                                  : "conflict"}},
                     now);
            if (answer->answer == reconcile_answer::continue_run) {
                current.resolution = "reconciled_continue";
            } else if (answer->answer == reconcile_answer::completed) {
                current.resolution = "reconciled_completed";
                transitions::reconcile_completed(w, run, current, canonical_json(answer->observation), now);
                run.failed_streak = 0;
                if (tool && tool->terminal)
                    transitions::finish_run(w, run, run_status::completed, run_reason::goal_completed,
                                            "terminal tool " + step.tool + " completed (reconciled)", now);
            } else {
                current.resolution = "reconciled_conflict";
                transitions::finish_run(w, run, run_status::failed, run_reason::reconcile_conflict, answer->message,
                                        now);
            }
            w.put(current);
        }
        run.updated_ms = now;
        w.put(run);
        return {};
    });
}

} // namespace gate_detail

session::session(gate& g, std::string run_id, std::string owner, std::uint64_t epoch)
    : gate_(&g), run_id_(std::move(run_id)), owner_(std::move(owner)), epoch_(epoch) {
    leases::add_live_owner(owner_);
}

session::session(session&& other) noexcept
    : gate_(std::exchange(other.gate_, nullptr)), run_id_(std::move(other.run_id_)), owner_(std::move(other.owner_)),
      epoch_(other.epoch_), open_(other.open_), pending_(other.pending_), preopened_(other.preopened_),
      view_cache_(std::move(other.view_cache_)) {}

session& session::operator=(session&& other) noexcept {
    if (this != &other) {
        if (gate_) {
            try {
                (void)release();
            } catch (...) {
                // As in the destructor: the lease then expires, or is taken over at once.
            }
        }
        gate_ = std::exchange(other.gate_, nullptr);
        run_id_ = std::move(other.run_id_);
        owner_ = std::move(other.owner_);
        epoch_ = other.epoch_;
        open_ = other.open_;
        pending_ = other.pending_;
        preopened_ = other.preopened_;
        view_cache_ = std::move(other.view_cache_);
    }
    return *this;
}

session::~session() {
    if (!gate_)
        return;
    try {
        (void)release();
    } catch (...) {
        // A destructor must not throw; the lease then expires by itself.
    }
}

run_record session::run() const {
    return gate_->store_->read([&](store_reader const& r) { return existing_run(r.run(run_id_), run_id_); });
}

result<void> session::release() try {
    if (!gate_)
        return err(errc::refused, "this session has ended");
    // The session ends even when the store fails to record it: its owner is then no longer live in
    // this process, so its lease is taken over at once instead of after expiry.
    struct ends {
        session& s;
        ~ends() { s.abandon(); }
    } ending{*this};
    std::int64_t now = gate_->options_.clocks.record();
    auto released = gate_->store_->write([&](store_writer& w) {
        auto run = w.run(run_id_);
        if (!run || !leases::held_by(run->lease, owner_, epoch_))
            return false;
        leases::release(*run, now);
        run->updated_ms = now;
        w.put(*run);
        return true;
    });
    if (!released)
        return err(errc::conflict, "run " + run_id_ + " was no longer held by this session");
    return {};
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

void session::abandon() noexcept {
    leases::remove_live_owner(owner_);
    gate_ = nullptr;
}

tool_spec_text const& gate::impl::spec_of(tool_table const& tools, tool_entry const& tool) {
    auto index = static_cast<std::size_t>(&tool - tools.entries().data());
    if (specs.size() < tools.size())
        specs.resize(tools.size());
    auto& cached = specs.at(index);
    if (!cached) {
        std::string canonical = canonical_json(tool.spec());
        cached = tool_spec_text{sha256_hex(canonical), std::move(canonical)};
    }
    return *cached;
}

gate::gate(store& s, tool_table const& tools, evaluator const& policy, gate_options options)
    : store_(&s), tools_(&tools), policy_(&policy), options_(std::move(options)), impl_(std::make_unique<impl>()) {}

gate::~gate() {
    std::vector<std::unique_ptr<tool_runner>> late;
    {
        std::lock_guard lock(impl_->late_mutex);
        late = std::move(impl_->late);
    }
    late.clear(); // each waits for its overrunning tool, which records its outcome late
    impl_->runner.reset();
}

result<session> gate::begin(std::string goal, std::string run_id) try {
    if (goal.size() > max_goal_bytes)
        return err(errc::too_large, "the goal is " + std::to_string(goal.size()) + " bytes; the bound is " +
                                        std::to_string(max_goal_bytes));
    if (run_id.empty())
        run_id = options_.ids();
    if (!valid_run_id(run_id))
        return err(errc::refused, "run id '" + run_id + "' must be 1 to 128 characters of [A-Za-z0-9_.:-]");
    std::string owner = leases::new_owner(*store_);
    leases::live_claim claim(owner);
    std::int64_t now = options_.clocks.record(), lease_now = options_.clocks.lease();
    std::uint64_t epoch = 0;
    auto made = store_->write([&](store_writer& w) -> result<void> {
        if (w.run(run_id))
            return err(errc::conflict, "run " + run_id + " already exists");
        run_record run;
        run.id = run_id;
        run.goal = goal;
        run.created_ms = run.updated_ms = now;
        run.policy = policy_->identity();
        epoch = leases::take(run, leases::lease_for(*store_, owner, lease_now, options_.lease_duration), now);
        w.append(run, event_type::run_created, {{"goal", goal}, {"policy", policy_->identity()}}, now);
        w.append(run, event_type::run_started, {}, now);
        w.put(run);
        return {};
    });
    if (!made)
        return made.error();
    session s(*this, run_id, owner, epoch);
    claim.keep();
    return s;
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

} // namespace agentrt
