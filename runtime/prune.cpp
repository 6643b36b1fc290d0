#include <agentrt/runtime/prune.hpp>

#include "errors.hpp"

#include <agentrt/runtime/verify.hpp>

#include <optional>

namespace agentrt {

std::string pruned_run_key(std::string_view run_created_hash) {
    return "pruned_run:" + std::string(run_created_hash);
}

result<prune_report> prune(store& s, std::int64_t before_ms, bool dry_run) try {
    // A store that does not verify keeps its evidence: removing the run whose link shows a deleted
    // or altered run would make it verify again.
    auto unsound = [](store_reader const& r) -> std::optional<error> {
        if (auto report = verify(r); !report.ok())
            return err(errc::refused, "the store does not verify (" + report.first_break +
                                          "): prune would hide that; investigate with agentrt verify first");
        return std::nullopt;
    };
    auto doomed = [&](store_reader const& r) {
        std::vector<std::string> out;
        for (auto const& run : r.runs({}, SIZE_MAX))
            if (is_terminal(run.status) && run.updated_ms < before_ms)
                out.push_back(run.id);
        return out;
    };
    if (dry_run)
        return s.read([&](store_reader const& r) -> result<prune_report> {
            if (auto refused = unsound(r))
                return *refused;
            return prune_report{doomed(r)};
        });
    // Verified in a snapshot of its own: inside the write, an engine whose writes see each other's
    // commits (PostgreSQL's READ COMMITTED) could read a chain halfway through a concurrent step.
    if (auto refused = s.read([&](store_reader const& r) { return unsound(r); }))
        return *refused;
    return s.write([&](store_writer& w) -> result<prune_report> {
        prune_report report;
        for (auto const& id : doomed(w)) {
            auto run = w.run(id); // read first, as every write does: an engine may lock it here
            if (!run || !is_terminal(run->status) || run->updated_ms >= before_ms)
                continue;
            report.runs.push_back(id);
            auto events = w.events(id);
            if (events.empty() || !events.front().is(event_type::run_created)) // thrown: no erase above commits
                throw exception(err(errc::refused, "run " + id +
                                                       " has no run.created event, so its removal could not be "
                                                       "told from tampering; verify the store first"));
            w.put_meta(pruned_run_key(events.front().hash), id);
            w.erase_run(id);
        }
        return report;
    });
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

} // namespace agentrt
