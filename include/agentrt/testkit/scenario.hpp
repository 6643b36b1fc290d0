// agentrt/testkit/scenario.hpp — the crash harness: run a scenario, crash it, resume it, check it.
//
//     agentrt::testkit::scenario shop;
//     shop.tools = [] { return shop_catalog{}.table(); };
//     shop.policy = [] { return agentrt::lower_policy(shop_policy{}, shop_catalog{}); };
//     shop.agent = [] { return std::make_unique<agentrt::testkit::scripted_agent>(script); };
//     shop.goal = "refund order 7";
//     auto result = run_scenario(shop, {{1, crash_point::after_effect_before_outcome}});
//     CHECK(result.ok());                      // or: check_scenario(shop, crashes) reports problems
//     explore(shop);                           // a crash at every point of every step it reaches
//
// A crash is a real one as far as the runtime can tell: the dead process writes nothing more, from
// any thread it left running, and its lease stays held; the next process resumes and the runtime
// detects the dead holder at once. Two crash modes:
//  - simulated (default): every process is a store in the test's own process over an engine
//    decorator (simulated_process.hpp). At the crash point it is cut off (simulated_process::crash)
//    and the dying process's stack unwinds with simulated_process_crashed. Fast; the tools' own
//    globals outlive a "process", so keep a tool's state in what scenario::tools builds.
//  - process: every process is a forked child, killed with SIGKILL at the crash point.
// Every process gets the same deterministic record clock and id source, continued across
// processes, so two runs of a scenario record the same logical store.
#pragma once

#include <agentrt/testkit/report.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include <agentrt/catalog/error.hpp>
#include <agentrt/catalog/policy.hpp>
#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/runtime/agent.hpp>
#include <agentrt/runtime/gate.hpp>
#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace agentrt::testkit {

// Where a process can die (docs/testkit.md, "The crash harness"). A step's points are named by the step's index.
enum class crash_point : std::uint8_t {
    after_step_started,
    after_step_decided,
    after_policy_allowed,
    after_tool_started,
    after_effect_before_outcome, // the tool did its work; its outcome is not recorded
    after_tool_finished,
    after_run_resumed,
    after_step_interrupted,
    after_attach_allowed, // a resumed grant was re-evaluated and allowed
};

std::string_view to_string(crash_point p) noexcept;

struct crash {
    std::uint64_t step = 0;
    crash_point point = crash_point::after_step_started;
    friend bool operator==(crash const&, crash const&) = default;
};

std::string to_string(crash const& c);

enum class crash_mode : std::uint8_t { simulated, process };

// What a consumer's own gate loop is handed in each process: begin the run (gate::begin with the
// goal and run id) or, when `resume`, go on with it (gate::attach); then drive it until it ends or
// waits for an approval.
struct loop_start {
    std::string_view run_id;
    std::string_view goal;
    bool resume = false;
};
using gate_loop = std::function<result<void>(gate&, loop_start const&)>;

enum class operator_answer : std::uint8_t { approve, reject, leave };
using operator_function = std::function<operator_answer(approval_record const&)>;

struct scenario {
    // Built afresh in every process, as a restarted program would build them.
    std::function<tool_table()> tools;
    std::function<evaluator()> policy;
    std::function<std::unique_ptr<agentrt::agent>()> agent;
    gate_loop loop; // the consumer's own loop over a gate, instead of the driver over `agent`
    std::string goal = "scenario";
    agentrt::limits limits;
    reconcile_hook reconcile;
    operator_function answer = [](approval_record const&) { return operator_answer::approve; };
    // The record clock and ids: deterministic (start + 1 s per reading, "id-1", ...), continued
    // across the scenario's processes; or, when false, the system clock and random ids.
    bool deterministic = true;
    std::int64_t clock_start_ms = 1'700'000'000'000;
    std::filesystem::path store; // empty: a fresh temporary store per run of the scenario
    // Where each run of the scenario keeps its store, when given: a new, empty location per call,
    // of any engine ("postgresql://...", a schema of its own); the harness's files stay in `store`
    // or a temporary directory.
    std::function<std::string()> fresh_store;
    bool keep_failed_store = true; // a failing run's temporary store stays for inspection (see its report)
    agentrt::durability durability = durability::process_crash;
    crash_mode mode = crash_mode::simulated;
    std::chrono::milliseconds lease_duration{30'000};
    int max_processes = 16; // a scenario that needs more is reported as stuck
};

struct invocation {
    std::string tool;
    std::uint64_t step = 0;
    int process = 0;       // 0 for the first process, 1 for the first resume, ...
    bool returned = false; // false: the process died inside the tool, or right after it
};

// What the agent was handed to decide a step.
struct agent_input {
    std::uint64_t step = 0;
    int process = 0;
    std::size_t steps_seen = 0; // recorded steps in its view
};

// A model request an agent made while deciding a step, as canonical_request writes it.
struct agent_render {
    std::uint64_t step = 0;
    int process = 0;
    std::string input; // what identifies the recorded steps it was rendered from (a hash)
    std::string request;
};

struct scenario_result {
    std::filesystem::path store; // its location: an LMDB directory, or what scenario::fresh_store gave
    run_record run;
    std::vector<step_record> steps;
    std::vector<approval_record> approvals;
    std::vector<event_record> events;
    std::vector<invocation> invocations;
    std::vector<agent_input> inputs;
    std::vector<agent_render> renders;
    std::vector<crash> crashes_fired;
    int resumes = 0;
    std::vector<std::string> problems; // invariant violations, each naming its step or event

    bool ok() const noexcept { return problems.empty(); }
    std::size_t invocations_of(std::string_view tool) const;
};

// Runs the scenario, crashing at each requested point in turn (a point not reached is a problem).
scenario_result run_scenario(scenario const& s, std::vector<crash> const& crashes = {});

// run_scenario, reporting every problem through the current reporter; false when any.
bool check_scenario(scenario const& s, std::vector<crash> const& crashes = {},
                    source_location where = source_location::current());

// Runs the scenario `make` builds twice, once without crashes and once with `crashes`, and fails
// unless the agent rendered byte-identical model requests whenever it decided from the same recorded
// steps (clock readings aside), in either run, after pauses and crashes included, naming the first
// difference. Fails when nothing was compared.
bool same_renders(std::function<scenario()> const& make, std::vector<crash> const& crashes,
                  source_location where = source_location::current());

struct explore_summary {
    std::size_t crashes_tried = 0;
    std::size_t resumes = 0;
    std::size_t failures = 0;
    double seconds = 0;
};

// Crashes at every point of every step the uncrashed scenario reaches, one run per crash, and
// reports every failure; prints a summary line. Fails when it tried nothing.
explore_summary explore(scenario const& s, source_location where = source_location::current());

struct explore_random_options {
    int cases = 20; // schedules tried
    std::size_t max_crashes = 3;
    std::uint64_t seed = 0; // 0: RapidCheck's configured seed (RC_PARAMS)
    // Process mode only: instead of crash points, kill the processes with SIGKILL at random instants
    // (within the uncrashed run's duration), inside transactions and tools included.
    bool kill_anywhere = false;
};

// A RapidCheck property over schedules of up to `max_crashes` crashes, drawn from the points the
// uncrashed scenario reaches (or, with kill_anywhere, random instants); a failing schedule is shrunk
// to the smallest one that still fails. (A crash a schedule makes unreachable, because an earlier
// crash changed the path, is no failure.)
bool explore_random(scenario const& s, explore_random_options const& options = {},
                    source_location where = source_location::current());

} // namespace agentrt::testkit
