#include <agentrt/runtime/operator.hpp>

#include "errors.hpp"
#include "transitions.hpp"

namespace agentrt {
namespace {

result<approval_record> decide(store& s, std::string_view run_id, std::uint64_t step_index, std::string_view shown,
                               operator_options const& options, bool approving) try {
    std::int64_t now = options.clock();
    return s.write([&](store_writer& w) -> result<approval_record> {
        auto run = w.run(run_id);
        if (!run)
            return err(errc::not_found, "no run " + std::string(run_id));
        auto a = transitions::latest_approval(w, run_id, step_index);
        std::string where = "step " + std::string(run_id) + "/" + std::to_string(step_index);
        if (!a)
            return err(errc::not_found, where + " has no approval");
        if (approval_hash(*a) != a->hash)
            return err(errc::refused, "the stored approval of " + where +
                                          " no longer matches its hash: it was altered outside agentrt; refusing");
        if (a->hash != shown)
            return err(errc::refused, "the approval shown (" + std::string(shown) + ") is not the latest approval of " +
                                          where + " (" + a->hash + "): show the current one and decide again");
        if (a->status != approval_status::pending)
            return err(errc::conflict, "the approval of " + where + " is already " + std::string(to_string(a->status)));
        if (run->status != run_status::waiting_for_approval)
            return err(errc::conflict, "run " + run->id + " is " + std::string(to_string(run->status)) +
                                           ", not waiting for an approval");
        // A refusal changes nothing: the stale request stays pending, and rejecting it still ends the run.
        if (approving && options.approval_ttl && now > a->requested_ms + options.approval_ttl->count())
            return err(errc::refused,
                       "the approval of " + where + " expired before it was decided; reject it to end the run");
        a->status = approving ? approval_status::approved : approval_status::rejected;
        a->decided_ms = now;
        a->decided_by = options.who;
        w.put(*a);
        boost::json::object decided{{"step", step_index},
                                    {"hash", a->hash},
                                    {"decision", approving ? "approved" : "rejected"},
                                    {"by", options.who}};
        if (!options.note.empty())
            decided["note"] = options.note;
        w.append(*run, event_type::approval_decided, std::move(decided), now);
        if (!approving) {
            auto step = existing_step(w.step(run_id, step_index), run_id, step_index);
            if (step.status == step_status::awaiting_approval) {
                transitions::fail_step(w, *run, step, "approval_rejected",
                                       "the approval was rejected by " + options.who, now);
                w.put(step);
            }
            transitions::finish_run(w, *run, run_status::failed, run_reason::approval_rejected,
                                    "approval of step " + std::to_string(step_index) + " rejected by " + options.who,
                                    now);
        }
        run->updated_ms = now;
        w.put(*run);
        return *a;
    });
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

} // namespace

result<approval_record> approve(store& s, std::string_view run_id, std::uint64_t step_index,
                                std::string_view shown_hash, operator_options const& options) {
    return decide(s, run_id, step_index, shown_hash, options, true);
}

result<approval_record> reject(store& s, std::string_view run_id, std::uint64_t step_index, std::string_view shown_hash,
                               operator_options const& options) {
    return decide(s, run_id, step_index, shown_hash, options, false);
}

result<run_record> cancel(store& s, std::string_view run_id, std::string reason, operator_options const& options) try {
    std::int64_t now = options.clock();
    return s.write([&](store_writer& w) -> result<run_record> {
        auto run = w.run(run_id);
        if (!run)
            return err(errc::not_found, "no run " + std::string(run_id));
        if (is_terminal(run->status))
            return err(errc::conflict, "run " + run->id + " is already " + std::string(to_string(run->status)));
        for (auto& step : w.steps(run_id))
            if (step.status == step_status::deciding || step.status == step_status::executing ||
                step.status == step_status::awaiting_approval)
                transitions::interrupt_step(w, *run, step, "cancelled", now);
        transitions::finish_run(w, *run, run_status::cancelled, run_reason::operator_cancelled,
                                reason + " (" + options.who + ")", now);
        w.put(*run);
        return *run;
    });
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

} // namespace agentrt
