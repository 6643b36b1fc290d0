#include <agentrt/runtime/copy.hpp>

#include <agentrt/runtime/prune.hpp>

#include "errors.hpp"

#include <set>

namespace agentrt {
namespace {

struct run_copy {
    run_record run;
    std::vector<step_record> steps;
    std::vector<approval_record> approvals;
    std::vector<event_record> events;
    std::vector<model_call_record> model_calls;
};

struct snapshot {
    std::vector<run_copy> runs; // oldest first
    std::vector<std::pair<std::string, std::string>> meta;
    std::vector<std::pair<std::string, std::string>> tool_specs;
};

snapshot read_all(store_reader const& r) {
    snapshot out;
    auto runs = r.runs_before(0, SIZE_MAX);
    std::set<std::string> created, specs;
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
        run_copy c{*it, r.steps(it->id), r.approvals(it->id), r.events(it->id), r.model_calls(it->id)};
        for (auto const& s : c.steps)
            if (!s.spec_hash.empty() && specs.insert(s.spec_hash).second)
                if (auto spec = r.tool_spec(s.spec_hash))
                    out.tool_specs.emplace_back(s.spec_hash, *spec);
        if (!c.events.empty())
            created.insert(c.events.front().hash);
        out.runs.push_back(std::move(c));
    }
    // What verify needs besides the records: the newest run.created, and the record of each run that
    // prune removed and a remaining run still links to.
    if (auto head = r.meta("run_chain_head"))
        out.meta.emplace_back("run_chain_head", *head);
    auto carry_pruned = [&](std::string_view hash) {
        if (hash.empty() || created.contains(std::string(hash)))
            return;
        auto key = pruned_run_key(hash);
        if (auto pruned = r.meta(key))
            out.meta.emplace_back(key, *pruned);
    };
    for (auto const& c : out.runs) {
        if (c.events.empty())
            continue;
        auto const* prev = c.events.front().data.if_contains("prev_run");
        if (prev && prev->is_string())
            carry_pruned(prev->get_string());
    }
    if (auto head = r.meta("run_chain_head")) // the newest run may itself have been pruned
        carry_pruned(*head);
    return out;
}

} // namespace

result<copy_report> copy_store(store const& from, store& to) try {
    auto all = from.read([](store_reader const& r) { return read_all(r); });
    copy_report report;
    std::optional<error> refused;
    to.engine()->write(
        [&](engine_writer& w) {
            refused.reset();
            report = {};
            if (!w.runs_before(0, 1).empty()) {
                refused =
                    err(errc::refused, "store " + to.location() + " already holds runs: copy into a new, empty store");
                return;
            }
            for (auto& c : all.runs) {
                w.put(c.run); // the destination numbers the runs in the same order
                for (auto const& s : c.steps)
                    w.put(s);
                for (auto const& a : c.approvals)
                    w.put(a);
                for (auto const& e : c.events)
                    w.put(e);
                for (auto const& m : c.model_calls)
                    w.put(m);
                ++report.runs;
                report.events += c.events.size();
            }
            for (auto const& [hash, spec] : all.tool_specs)
                w.put_tool_spec(hash, spec);
            for (auto const& [key, value] : all.meta)
                w.put_meta(key, value);
        },
        true);
    if (refused)
        return *refused;
    return report;
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

} // namespace agentrt
