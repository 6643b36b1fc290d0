// The crash harness's processes and what they share (private to testkit/).
#pragma once

#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>
#include <agentrt/testkit/faults.hpp>
#include <agentrt/testkit/scenario.hpp>
#include <agentrt/testkit/simulated_process.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace agentrt::testkit::harness {

namespace fs = std::filesystem;

inline constexpr std::string_view run_id = "run-1";

// What the processes of one scenario run share: invocations, crashes, errors, agent inputs,
// renders, and the counters behind the deterministic clock and ids. Files beside the store in
// process mode (the children are forked), memory in simulated mode.
class harness_log {
public:
    enum kind { invocations, crashes, errors, inputs, renders, faults };

    explicit harness_log(std::optional<fs::path> dir);
    void add(kind k, std::string const& line);
    std::vector<std::string> lines(kind k) const;

    // A counter continued across the scenario's processes (one process runs at a time).
    std::int64_t next(std::string const& name);

private:
    fs::path file(kind k) const;

    std::optional<fs::path> dir_;
    mutable std::mutex mutex_;
    std::map<kind, std::vector<std::string>> lines_;
    std::map<std::string, std::int64_t> counters_;
};

// The event's step, if it names one.
std::optional<std::uint64_t> step_of(event_record const& e);
// The crash points an event is the aftermath of: none, one, or two when one commit ends both.
std::vector<crash_point> points_of(event_record const& e);
// For run.resumed the crash's step counts resumes (1: the first); otherwise it is the event's step.
std::optional<std::uint64_t> crash_step_of(event_record const& e, std::uint64_t resumes_seen);

store open_store(scenario const& s, std::string const& location);

enum class process_end { died, ended, failed };

// Process mode: a forked child per process, killed at its crash point, or by the parent after
// `kill_after` (kill_anywhere).
process_end run_forked(scenario const& s, harness_log& log, std::string const& location,
                       std::vector<crash> const& crashes, int process,
                       std::optional<std::chrono::microseconds> kill_after);

// Simulated mode: a store handle per process, cut off at its crash point, its writes failing with
// `f` when given. A process that a public call's typed error ended after its fault fired has died,
// as far as the scenario goes: the next process resumes.
process_end run_simulated(scenario const& s, harness_log& log, simulated_machine& machine,
                          std::vector<crash> const& crashes, int process, fault const* f = nullptr);

} // namespace agentrt::testkit::harness
