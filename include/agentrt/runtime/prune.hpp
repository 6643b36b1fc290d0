// agentrt/runtime/prune.hpp — removes finished runs that are older than a date.
//
//     agentrt::result<agentrt::prune_report> pruned = agentrt::prune(store, before_ms);
//     for (auto const& id : pruned->runs) std::cout << "pruned " << id << '\n';
//
// Every run's run.created event links to the previous run's (verify.hpp), so removing a run would
// look like tampering. Prune therefore records, in the same transaction, the run.created hash of
// each run it removes (meta key "pruned_run:<hash>"), and verify accepts a link to a pruned run.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/runtime/store.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt {

struct prune_report {
    std::vector<std::string> runs; // the runs removed (or that would be, on a dry run), newest first
};

// Removes, in one write transaction, every run that has ended (completed, failed, cancelled) and was
// last changed before `before_ms` (milliseconds since the Unix epoch). `dry_run` changes nothing.
result<prune_report> prune(store& s, std::int64_t before_ms, bool dry_run = false);

// The meta key that records a pruned run by the hash of its run.created event.
std::string pruned_run_key(std::string_view run_created_hash);

} // namespace agentrt
