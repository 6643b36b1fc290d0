// What one statement brings of a run, and what this thread last saw of each run: the base of a
// write that sends everything in one round trip. Internal to runtime/engines/postgresql.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::pg_detail {

class connection_pool;

// A run's record, its last two steps and its first approvals: the reads a step of the runtime
// makes of its run, in one statement instead of three.
struct run_bundle {
    static constexpr std::size_t steps_kept = 2, approvals_kept = 64;

    struct approval {
        std::uint64_t step, seq;
        std::string text;
    };

    std::optional<std::string> run;
    std::vector<std::pair<std::uint64_t, std::string>> steps; // the last steps_kept, ascending index
    std::vector<approval> approvals;                          // the first approvals_kept + 1, by step, then sequence

    bool more_approvals() const noexcept { return approvals.size() > approvals_kept; }
    // Whether the bundle says what step `index` is (absent included).
    bool knows_step(std::uint64_t index) const { return steps.size() < steps_kept || index >= steps.front().first; }
    std::optional<std::string> step(std::uint64_t index) const;

    // The bundle as the statement would read it after these puts.
    void put_step(std::uint64_t index, std::string text);
    void put_approval(std::uint64_t step, std::uint64_t seq, std::string text);

    // One line per row, "KIND A B SHA256", joined by ',': what the schema's
    // agentrt_2_expect_run_bundle compares with the rows as they are.
    std::string digest() const;
};

// The SQL of the function that fails a write with a serialization failure when a run's rows are no
// longer those of `digest` (created with the schema). `bundle_sql` reads the bundle of $1.
std::string expect_run_bundle_function(std::string const& bundle_sql);

// What this thread last saw of a few runs, by store: a bundle read in a read, or left by a write
// that committed. Only a base to check, never an answer: a write taken from it sends its digest,
// and the server refuses the write when the run has changed since.
namespace seen_bundles {
run_bundle const* find(connection_pool const& pool, std::string_view run_id);
void remember(connection_pool const& pool, std::string_view run_id, run_bundle bundle);
void forget(connection_pool const& pool, std::string_view run_id);
void forget_all(connection_pool const& pool);
} // namespace seen_bundles

} // namespace agentrt::pg_detail
