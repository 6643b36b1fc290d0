// agentrt/runtime/reads.hpp — what tools and operators read from a store.
//
//     for (auto const& run : agentrt::list_runs(store, {}, 20)) print(run.id, agentrt::capped(run.goal, 80));
//     auto details = agentrt::read_run(store, "r-1");   // the run, its steps and approvals
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt {

struct run_details {
    run_record run;
    std::vector<step_record> steps;
    std::vector<approval_record> approvals;
};

// Newest first, `limit` runs created before the run `before` (from the newest when empty; none when
// `before` names no run, as after prune: page by creation order with list_runs_before instead).
std::vector<run_record> list_runs(store const& s, std::string_view before = {}, std::size_t limit = 50);
// Newest first, `limit` runs created before creation order `before_order` (run_record::order; from
// the newest when 0). Paging goes on past a run removed meanwhile.
std::vector<run_record> list_runs_before(store const& s, std::uint64_t before_order, std::size_t limit = 50);
result<run_details> read_run(store const& s, std::string_view run_id);
result<std::vector<event_record>> read_events(store const& s, std::string_view run_id);
// Pending approvals of waiting runs, newest run first; each the latest of its step.
std::vector<approval_record> pending_approvals(store const& s);
// Runs a worker should go on with: waiting on an approved grant, or running under a lease whose
// holder is dead or expired (by `lease_now_ms`).
std::vector<std::string> ready_runs(store const& s, std::int64_t lease_now_ms);

// At most `max_bytes` of `text` (cut on a UTF-8 boundary), followed by " … (N bytes)" when cut, with
// every character that would make a terminal or a reader see something else escaped (\n, \u001b, \u202e,
// \xff for a byte that is not UTF-8), as the agentrt command shows it.
std::string capped(std::string_view text, std::size_t max_bytes);

} // namespace agentrt
