#include <agentrt/runtime/verify.hpp>

#include <agentrt/runtime/prune.hpp>

#include <map>
#include <set>

namespace agentrt {
namespace {

verify_report verify_chains(store_reader const& r);

std::string where(event_record const& e) {
    return "run " + e.run_id + " event " + std::to_string(e.seq) + " (" + e.type + ")";
}

} // namespace

verify_report verify_events(std::span<event_record const> events, std::string_view expected_head) {
    verify_report report;
    std::string prev;
    for (std::size_t i = 0; i < events.size(); ++i) {
        auto const& e = events[i];
        ++report.events;
        if (e.seq != i) {
            report.first_break = "run " + e.run_id + ": event " + std::to_string(i) + " is missing (found event " +
                                 std::to_string(e.seq) + " in its place)";
            return report;
        }
        if (e.prev != prev) {
            report.first_break = where(e) + " does not link to the event before it: an event before it was "
                                            "altered, replaced or deleted";
            return report;
        }
        if (event_hash(e) != e.hash) {
            report.first_break = where(e) + " was altered: its content no longer matches its hash";
            return report;
        }
        prev = e.hash;
    }
    if (!expected_head.empty() && prev != expected_head)
        report.first_break = (events.empty() ? std::string("a run") : "run " + events.front().run_id) +
                             ": its last event(s) are missing (the chain ends at event " +
                             std::to_string(events.size()) + " before the recorded head)";
    return report;
}

verify_report verify(store const& s) {
    // Outside the read: the engine names the store in what it reports of a damaged page.
    try {
        return s.read([](store_reader const& r) { return verify_chains(r); });
    } catch (exception const& e) {
        if (e.error().code != errc::store_damaged)
            throw;
        verify_report report;
        report.first_break = e.error().message;
        report.damaged = true;
        return report;
    }
}

verify_report verify(store_reader const& r) {
    return verify_chains(r);
}

namespace {

// A run's other records against its record and its (verified) events: every step it counts, every
// model call it counts and every approval its events requested is stored. Reading them all also lets
// an engine that checks what it reads (LMDB's record checksums) find a damaged one.
std::string records_break(store_reader const& r, run_record const& run, std::vector<event_record> const& events) {
    auto missing = [&](std::string const& what) { return "run " + run.id + ": " + what + " is missing"; };
    auto steps = r.steps(run.id);
    for (std::uint64_t i = 0; i < steps.size(); ++i) {
        if (steps[i].index != i)
            return missing("step " + std::to_string(i));
        if (!steps[i].spec_hash.empty() && !r.tool_spec(steps[i].spec_hash))
            return missing("the tool spec " + steps[i].spec_hash + " of step " + std::to_string(i));
    }
    if (steps.size() != run.next_step)
        return missing("step " + std::to_string(steps.size()) + " (its record counts " + std::to_string(run.next_step) +
                       " steps)");
    auto calls = r.model_calls(run.id);
    for (std::uint64_t i = 0; i < calls.size(); ++i)
        if (calls[i].seq != i)
            return missing("model call " + std::to_string(i));
    if (calls.size() != run.model_calls)
        return missing("model call " + std::to_string(calls.size()) + " (its record counts " +
                       std::to_string(run.model_calls) + " model calls)");
    std::set<std::pair<std::uint64_t, std::uint64_t>> stored;
    for (auto const& a : r.approvals(run.id))
        stored.emplace(a.step_index, a.seq);
    for (auto const& e : events) {
        if (!e.is(event_type::approval_requested))
            continue;
        auto const* step = e.data.if_contains("step");
        auto const* seq = e.data.if_contains("seq");
        auto whole = [](boost::json::value const* v) { return v && (v->is_uint64() || v->is_int64()); };
        if (!whole(step) || !whole(seq))
            continue; // the event's hash holds, so the runtime wrote it so
        auto key = std::pair{step->to_number<std::uint64_t>(), seq->to_number<std::uint64_t>()};
        if (!stored.contains(key))
            return missing("approval " + std::to_string(key.second) + " of step " + std::to_string(key.first) +
                           " (requested by event " + std::to_string(e.seq) + ")");
    }
    return {};
}

verify_report verify_chains(store_reader const& r) {
    {
        verify_report report;
        std::map<std::string, std::string> created_by_hash; // run.created hash -> run id
        std::map<std::string, std::string> links;           // run id -> the previous run's run.created hash
        auto runs = r.runs({}, SIZE_MAX);
        // Oldest first, so the first break named is the earliest one.
        for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
            auto const& run = *it;
            ++report.runs;
            if (run.head.empty()) {
                report.first_break = "run " + run.id + ": its record names no head, though every run has events";
                return report;
            }
            auto events = r.events(run.id);
            auto one = verify_events(events, run.head);
            report.events += one.events;
            if (!one.ok()) {
                report.first_break = one.first_break;
                return report;
            }
            if (run.event_count != events.size()) {
                report.first_break = "run " + run.id + ": its record counts " + std::to_string(run.event_count) +
                                     " events, but " + std::to_string(events.size()) + " are stored";
                return report;
            }
            if (auto broken = records_break(r, run, events); !broken.empty()) {
                report.first_break = broken;
                return report;
            }
            if (events.empty() || !events.front().is(event_type::run_created)) {
                report.first_break = "run " + run.id + " has no run.created event";
                return report;
            }
            auto const* prev_run = events.front().data.if_contains("prev_run");
            created_by_hash[events.front().hash] = run.id;
            links[run.id] = prev_run && prev_run->is_string() ? std::string(prev_run->get_string()) : "";
        }
        for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
            auto const& link = links[it->id];
            if (link.empty() && it != runs.rbegin()) {
                report.first_break = "run " + it->id + " links to no run before it, though it is not the oldest run";
                return report;
            }
            if (!link.empty() && !created_by_hash.contains(link) && !r.meta(pruned_run_key(link))) {
                report.first_break = "the run created before run " + it->id + " is missing (its run.created " + link +
                                     " is not in the store): a run was deleted";
                return report;
            }
        }
        auto head = r.meta("run_chain_head");
        if (head && !head->empty() && !created_by_hash.contains(*head) && !r.meta(pruned_run_key(*head)))
            report.first_break = "the newest run (run.created " + *head + ") is missing: a run was deleted";
        else if (!runs.empty() && (!head || head->empty()))
            report.first_break = "the store's run chain head is missing";
        return report;
    }
}

} // namespace

} // namespace agentrt
