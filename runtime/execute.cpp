// Executing the allowed call of a step once: the tool under its timeout on a runner thread, the lease
// renewed while it works, and its outcome recorded.
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

struct call_outcome {
    enum { ok, failed, timed_out } kind = failed;
    std::string observation; // canonical JSON, or the bytes of an unusable result
    std::string summary;
    std::string error;
};

call_outcome call_tool(tool_entry const& tool, arguments const& args, call_context const& context) {
    call_outcome out;
    try {
        tool_result r = tool.call(args, context);
        if (!r) {
            out.error = r.error().to_string();
            out.observation = canonical_json(boost::json::object{{"error", out.error}});
        } else if (!views::usable_json(r->content)) {
            out.error = "the tool returned a result that is not usable JSON (a non-finite number)";
            out.observation = boost::json::serialize(r->content);
        } else {
            out.kind = call_outcome::ok;
            out.observation = canonical_json(r->content);
            out.summary = r->summary;
        }
    } catch (std::exception const& x) {
        out.error = std::string("the tool threw: ") + x.what();
        out.observation = canonical_json(boost::json::object{{"error", out.error}});
    } catch (...) {
        out.error = "the tool threw a non-standard exception";
        out.observation = canonical_json(boost::json::object{{"error", out.error}});
    }
    return out;
}

// Appends an outcome that arrived after its step stopped waiting for it (timeout, takeover, cancel).
// Runs on the tool's thread, where nobody is left to tell: nothing may escape it, and an outcome the
// store cannot take (full at its maximum, failing, an observer that throws) is dropped. The step is
// already interrupted, so nothing is lost that would let its call run again.
void record_late(store& s, std::string const& run_id, std::uint64_t index, std::uint32_t attempt,
                 call_outcome const& out, clock_function const& record) noexcept {
    try {
        std::int64_t now = record();
        s.write([&](store_writer& w) {
            auto run = w.run(run_id);
            auto step = w.step(run_id, index);
            if (!run || !step)
                return;
            step->late_observation = out.observation;
            w.put(*step);
            w.append(*run, event_type::step_tool_finished,
                     {{"step", index}, {"attempt", attempt}, {"ok", out.kind == call_outcome::ok}, {"late", true}},
                     now);
            w.put(*run);
        });
    } catch (...) {
        // Dropped, as said above; a simulated crash of the test kit ends here too.
    }
}

struct pending_call {
    std::mutex mutex;
    std::condition_variable finished;
    bool done = false;
    bool abandoned = false;
    call_outcome outcome;
    std::atomic<bool> ready{false}; // done is set and the mutex released
};

// Waits up to 10 us for `ready` before the caller goes to sleep on the condition variable: a quick
// tool is often back by then, and sleeping costs a wake-up of several microseconds more. Measured
// on the shared 2-core VM (process_crash, 64 B, load ~2, noisy): 10 us cut the step by 10-20%; 50 us
// made it slower under heavier load (the spinning caller takes the core the tool's thread needs).
void await_briefly(std::atomic<bool> const& ready) {
    auto const until = std::chrono::steady_clock::now() + std::chrono::microseconds(10);
    for (unsigned i = 1; !ready.load(std::memory_order_acquire); ++i) {
        if (i % 32 == 0 && std::chrono::steady_clock::now() >= until)
            return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

// Records the outcome, and when the run goes on opens the next step in the same transaction: one
// commit (one sync under power_loss) between two tool starts.
result<step_record> finish_call(gate& g, session& s, std::uint64_t index, std::uint32_t attempt, tool_entry const& tool,
                                call_outcome const& out, std::optional<std::uint64_t>& next) {
    std::int64_t now = g.options().clocks.record();
    auto finished = g.storage().write([&](store_writer& w) -> result<step_record> {
        next.reset(); // an engine may run this again: nothing of an attempt that did not commit stays
        auto run = existing_run(w.run(s.run_id()), s.run_id());
        auto step = existing_step(w.step(s.run_id(), index), s.run_id(), index);
        if (step.status != step_status::executing || step.attempt != attempt) {
            // The step was interrupted meanwhile (takeover, cancel): the outcome is appended, marked late.
            step.late_observation = out.observation;
            w.put(step);
            w.append(run, event_type::step_tool_finished,
                     {{"step", index}, {"attempt", attempt}, {"ok", out.kind == call_outcome::ok}, {"late", true}},
                     now);
            w.put(run);
            return step;
        }
        run.updated_ms = now;
        if (out.kind == call_outcome::ok) {
            run.failed_streak = 0;
            transitions::finish_tool_call(w, run, step, out.observation, now);
            if (tool.terminal)
                transitions::finish_run(w, run, run_status::completed, run_reason::goal_completed,
                                        "terminal tool " + tool.name + " succeeded", now);
        } else if (out.kind == call_outcome::failed) {
            ++run.failed_streak;
            transitions::fail_tool_call(w, run, step, out.observation, out.error, now);
        } else if (tool.effect == side_effect::read_only) {
            ++run.failed_streak;
            transitions::time_out_read_only(w, run, step, out.error, now);
        } else {
            // A thread cannot be killed: the effect of an overrun call may still happen.
            step.error = out.error;
            transitions::interrupt_step(w, run, step, "", now);
        }
        w.put(step);
        next.reset();
        if (run.status == run_status::running && step.status != step_status::interrupted &&
            leases::held_by(run.lease, s.owner(), s.lease_epoch()))
            next = gate_detail::open_next(w, run, g.options().limits, now);
        w.put(run);
        return step;
    });
    if (finished && finished->status == step_status::interrupted && finished->resolution.empty()) {
        if (auto settled = gate_detail::settle(g, s, *finished); !settled)
            return settled.error();
        return g.storage().read(
            [&](store_reader const& r) { return existing_step(r.step(s.run_id(), index), s.run_id(), index); });
    }
    return finished;
}

} // namespace

namespace gate_detail {

bool wait_renewing(gate& g, session& s, std::unique_lock<std::mutex>& lock, std::condition_variable& finished,
                   std::function<bool()> const& done, std::chrono::steady_clock::time_point deadline,
                   std::chrono::milliseconds lease_left) {
    auto const& options = g.options();
    auto const renew_every = std::max(options.lease_duration / 3, std::chrono::milliseconds(1));
    // The first renewal comes before half of what is left of the lease has passed, however late in
    // the lease the work started.
    auto wait = std::clamp(lease_left / 2, std::chrono::milliseconds(1), renew_every);
    bool holding = true;
    for (;;) {
        auto until = std::min(deadline, std::chrono::steady_clock::now() + wait);
        wait = renew_every;
        if (finished.wait_until(lock, until, done))
            return true;
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        if (holding) {
            lock.unlock();
            try {
                // Records nothing but the new expiry.
                holding = leases::renew(g.storage(), s.run_id(), s.owner(), s.lease_epoch(), options.clocks.lease(),
                                        options.lease_duration);
            } catch (std::exception const&) {
                holding = false; // best effort: recording the outcome reports a failing store
            }
            lock.lock();
        }
    }
}

} // namespace gate_detail

result<step_record> session::execute() try {
    if (!gate_)
        return err(errc::refused, "this session has ended");
    if (!pending_)
        return err(errc::refused, "no allowed request to execute on run " + run_id_ +
                                      ": propose an allowed tool call first (each runs once)");
    auto const& options = gate_->options_;
    store& st = *gate_->store_;
    std::uint64_t index = *pending_;
    std::int64_t lease_now = options.clocks.lease();
    auto [run, step] = st.read([&](store_reader const& r) {
        return std::pair{existing_run(r.run(run_id_), run_id_), existing_step(r.step(run_id_, index), run_id_, index)};
    });
    pending_.reset(); // read: a read that failed leaves the step to execute once the fault is gone
    auto const lease_left = std::chrono::milliseconds(run.lease.expiry_ms - lease_now);
    if (auto held = leases::hold(run, owner_, epoch_, lease_now, options.lease_duration); !held)
        return held.error(); // a lapsed lease starts no side effect
    if (step.status != step_status::executing)
        return err(errc::conflict, "step " + step.id() + " is no longer executing");
    tool_entry const* tool = gate_->tools_->find(step.tool);
    auto document = read_json(step.arguments);
    auto accepted = tool && document ? gate_->tools_->accept(step.tool, *document)
                                     : result<accepted_call>(err(errc::unknown_tool, "tool " + step.tool + " is gone"));
    if (!accepted)
        return accepted.error();

    std::string step_id = step.id();
    std::string key = sha256_hex(step_id);
    auto call = std::make_shared<pending_call>();
    std::stop_source stop;
    auto run_call = [call, tool, args = std::move(accepted->args), run_id = run_id_, step_id, key, index,
                     attempt = step.attempt, timeout = tool->timeout, token = stop.get_token(), st = &st,
                     record = options.clocks.record] {
        call_context context{
            run_id,
            step_id,
            index,
            attempt,
            key,
            timeout.count() > 0 ? std::chrono::steady_clock::now() + timeout : std::chrono::steady_clock::time_point::max(),
            token};
        call_outcome out = call_tool(*tool, args, context);
        bool late = false;
        {
            std::lock_guard lock(call->mutex);
            call->done = true;
            late = call->abandoned;
            if (!late)
                call->outcome = std::move(out);
        }
        call->ready.store(true, std::memory_order_release);
        call->finished.notify_all();
        if (late)
            record_late(*st, run_id, index, attempt, out, record);
    };
    call_outcome out;
    if (tool->timeout.count() <= 0) {
        run_call();
        out = std::move(call->outcome);
    } else {
        auto& impl = *gate_->impl_;
        if (!impl.runner)
            impl.runner = std::make_unique<tool_runner>();
        auto const deadline = std::chrono::steady_clock::now() + tool->timeout;
        impl.runner->submit(run_call);
        await_briefly(call->ready);
        std::unique_lock lock(call->mutex);
        if (gate_detail::wait_renewing(
                *gate_, *this, lock, call->finished, [&] { return call->done; }, deadline, lease_left)) {
            out = std::move(call->outcome);
        } else {
            call->abandoned = true;
            lock.unlock();
            stop.request_stop();
            out.kind = call_outcome::timed_out;
            out.error = "the tool overran its timeout of " + std::to_string(tool->timeout.count()) + " ms";
            auto overran = std::move(impl.runner); // the next call gets a runner of its own
            overran->retire();
            std::lock_guard late(impl.late_mutex);
            std::erase_if(impl.late, [](auto const& r) { return r->ended(); }); // joined: their calls are done
            impl.late.push_back(std::move(overran));
        }
    }
    std::optional<std::uint64_t> next;
    auto finished = finish_call(*gate_, *this, index, step.attempt, *tool, out, next);
    if (finished && next) {
        open_ = next;
        preopened_ = true;
    }
    return finished;
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

} // namespace agentrt