#include <agentrt/testkit/scenario.hpp>

#include <agentrt/runtime/check.hpp>
#include <agentrt/runtime/reads.hpp>
#include <agentrt/runtime/verify.hpp>
#include <agentrt/testkit/report.hpp>

#include "harness.hpp"
#include "scenario_internal.hpp"

#include <chrono>
#include <cstdlib>
#include <exception>
#include <map>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace agentrt::testkit {

std::string_view to_string(crash_point p) noexcept {
    switch (p) {
    case crash_point::after_step_started:
        return "after_step_started";
    case crash_point::after_step_decided:
        return "after_step_decided";
    case crash_point::after_policy_allowed:
        return "after_policy_allowed";
    case crash_point::after_tool_started:
        return "after_tool_started";
    case crash_point::after_effect_before_outcome:
        return "after_effect_before_outcome";
    case crash_point::after_tool_finished:
        return "after_tool_finished";
    case crash_point::after_run_resumed:
        return "after_run_resumed";
    case crash_point::after_step_interrupted:
        return "after_step_interrupted";
    case crash_point::after_attach_allowed:
        return "after_attach_allowed";
    }
    return "unknown";
}

std::string to_string(crash const& c) {
    return "step " + std::to_string(c.step) + " " + std::string(to_string(c.point));
}

std::size_t scenario_result::invocations_of(std::string_view tool) const {
    return std::size_t(
        std::count_if(invocations.begin(), invocations.end(), [&](invocation const& i) { return i.tool == tool; }));
}

namespace {

using namespace harness;

fs::path fresh_directory() {
    std::string pattern = (fs::temp_directory_path() / "agentrt-scenario-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
        throw std::runtime_error("agentrt: cannot create a temporary directory for a scenario");
    return pattern;
}

// Removes a scenario's temporary directory however the scenario ends, unless it failed and its
// store is to stay for inspection.
class temporary_directory {
public:
    temporary_directory(fs::path dir, scenario_result const& result, bool keep_failed)
        : dir_(std::move(dir)), result_(result), keep_failed_(keep_failed) {}
    ~temporary_directory() {
        bool const failed = std::uncaught_exceptions() > 0 || !result_.ok();
        if (dir_.empty() || (failed && keep_failed_) || ::getpid() != creator_)
            return; // a forked process ending early leaves the directory to the scenario's own process
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    temporary_directory(temporary_directory const&) = delete;
    temporary_directory& operator=(temporary_directory const&) = delete;

private:
    fs::path dir_;
    scenario_result const& result_;
    bool keep_failed_;
    pid_t creator_ = ::getpid();
};

void check_records(scenario_result& r, std::vector<crash> const& requested) {
    for (auto const& c : requested)
        if (std::find(r.crashes_fired.begin(), r.crashes_fired.end(), c) == r.crashes_fired.end())
            r.problems.push_back("crash " + to_string(c) + " was requested but never reached");

    std::map<std::uint64_t, std::size_t> reached, started;
    for (auto const& i : r.invocations)
        ++reached[i.step];
    for (auto const& e : r.events) {
        if (!e.is(event_type::step_tool_started))
            continue;
        auto step = step_of(e).value_or(UINT64_MAX);
        // Only a step's first start may go without an approval, even when an approval granted it.
        auto const* approval = e.data.if_contains("approval");
        if (started[step]++ > 0 && !(approval && approval->is_string()))
            r.problems.push_back("step " + std::to_string(step) + ": its tool started again (start " +
                                 std::to_string(started[step]) + ") without an approval");
    }
    for (auto const& [step, n] : reached)
        if (n > started[step])
            r.problems.push_back("step " + std::to_string(step) + ": the tool was reached " + std::to_string(n) +
                                 " times but only " + std::to_string(started[step]) + " starts are recorded");
    if (r.run.status == run_status::running)
        r.problems.push_back("run " + r.run.id + " was left running");
    if (!r.run.lease.owner.empty())
        r.problems.push_back("run " + r.run.id + " is left with its lease held by " + r.run.lease.owner);
}

} // namespace

namespace {

scenario_result run_scenario_with(scenario const& s, std::vector<crash> const& crashes,
                                  std::vector<std::chrono::microseconds> const& kills, fault const* f, bool* fired) {
    if (!s.tools || !s.policy || (!s.agent && !s.loop))
        throw std::invalid_argument("agentrt: a scenario needs tools, a policy, and an agent or a gate loop");
    if (!kills.empty() && s.mode != crash_mode::process)
        throw std::invalid_argument("agentrt: kill_anywhere kills processes: it needs crash_mode::process");
    bool temporary = s.store.empty();
    fs::path dir = temporary ? fresh_directory() : s.store;
    std::string location = s.fresh_store ? s.fresh_store() : (dir / "store").string();
    harness_log log(s.mode == crash_mode::process ? std::optional(dir / "harness") : std::nullopt);

    scenario_result result;
    result.store = location;
    temporary_directory cleanup(temporary ? dir : fs::path(), result, s.keep_failed_store);
    int process = 0;
    {
        // Created before the first process, so that no kill can land inside the store's creation.
        std::optional<store> primary = open_store(s, location);
        std::optional<simulated_machine> machine;
        if (s.mode == crash_mode::process)
            primary.reset();
        else
            machine.emplace(*primary);
        for (; process < s.max_processes; ++process) {
            auto end =
                s.mode == crash_mode::process
                    ? run_forked(s, log, location, crashes, process,
                                 std::size_t(process) < kills.size() ? std::optional(kills[process]) : std::nullopt)
                    : run_simulated(s, log, *machine, crashes, process, process == 0 ? f : nullptr);
            if (end != process_end::died)
                break;
            ++result.resumes;
        }
    }
    if (process == s.max_processes)
        result.problems.push_back("the scenario did not end within " + std::to_string(s.max_processes) + " processes");
    for (auto const& line : log.lines(harness_log::errors))
        result.problems.push_back(line);
    if (fired)
        *fired = !log.lines(harness_log::faults).empty();

    for (auto const& line : log.lines(harness_log::crashes))
        for (auto const& c : crashes)
            if (to_string(c) == line &&
                std::find(result.crashes_fired.begin(), result.crashes_fired.end(), c) == result.crashes_fired.end())
                result.crashes_fired.push_back(c);
    std::map<std::string, std::size_t> open_calls; // "tool step process" -> index of its start
    for (auto const& line : log.lines(harness_log::invocations)) {
        std::istringstream in(line);
        std::string what, tool;
        invocation i;
        in >> what >> tool >> i.step >> i.process;
        i.tool = tool;
        std::string key = tool + " " + std::to_string(i.step) + " " + std::to_string(i.process);
        if (what == "start") {
            open_calls[key] = result.invocations.size();
            result.invocations.push_back(i);
        } else if (auto it = open_calls.find(key); it != open_calls.end()) {
            result.invocations[it->second].returned = true;
        }
    }
    for (auto const& line : log.lines(harness_log::inputs)) {
        std::istringstream in(line);
        agent_input i;
        in >> i.step >> i.process >> i.steps_seen;
        result.inputs.push_back(i);
    }
    for (auto const& line : log.lines(harness_log::renders)) {
        std::istringstream in(line);
        agent_render r;
        in >> r.step >> r.process >> r.input;
        in.get();
        std::getline(in, r.request);
        result.renders.push_back(std::move(r));
    }

    try {
        // A fresh read: every process's handle is closed by now.
        store st = open_store(s, location);
        auto details = read_run(st, run_id);
        if (!details) {
            result.problems.push_back("the scenario's run is not in the store: " + details.error().message);
            return result;
        }
        result.run = details->run;
        result.steps = details->steps;
        result.approvals = details->approvals;
        if (auto events = read_events(st, run_id))
            result.events = std::move(events).value();
        for (auto const& problem : check_invariants(st).problems)
            result.problems.push_back(problem);
        if (auto chains = verify(st); !chains.ok())
            result.problems.push_back("the store's event chains break: " + chains.first_break);
    } catch (exception const& e) {
        result.problems.push_back("the store cannot be opened after the scenario: " + e.error().message);
        return result;
    }
    check_records(result, crashes);
    return result;
}

} // namespace

scenario_result run_scenario_killed(scenario const& s, std::vector<crash> const& crashes,
                                    std::vector<std::chrono::microseconds> const& kills) {
    return run_scenario_with(s, crashes, kills, nullptr, nullptr);
}

scenario_result run_scenario_faulted(scenario const& s, fault const& f, bool& fired) {
    scenario simulated = s;
    simulated.mode = crash_mode::simulated; // a fault is injected into a store of the test's own process
    return run_scenario_with(simulated, {}, {}, &f, &fired);
}

scenario_result run_scenario(scenario const& s, std::vector<crash> const& crashes) {
    return run_scenario_killed(s, crashes, {});
}

std::string describe(scenario_result const& r, std::vector<crash> const& crashes) {
    std::string crashes_text;
    for (auto const& c : crashes)
        crashes_text += (crashes_text.empty() ? "" : ", ") + to_string(c);
    std::string out = "scenario with crashes [" + crashes_text + "] (" + std::to_string(r.resumes) + " resumes; " +
                      (r.store.string().find("://") != std::string::npos ? "store at " + r.store.string()
                       : fs::exists(r.store)                             ? "store kept at " + r.store.string()
                                                                         : std::string("store removed")) +
                      "):";
    for (auto const& p : r.problems)
        out += "\n  " + p;
    return out;
}

bool check_scenario(scenario const& s, std::vector<crash> const& crashes, source_location where) {
    auto r = run_scenario(s, crashes);
    if (r.ok())
        return true;
    current_reporter().fail(where, describe(r, crashes));
    return false;
}

std::vector<crash> reachable_points(scenario_result const& baseline) {
    std::vector<crash> points;
    auto add = [&](crash c) {
        if (std::find(points.begin(), points.end(), c) == points.end())
            points.push_back(c);
    };
    std::uint64_t resumes_seen = 0;
    for (auto const& e : baseline.events) {
        resumes_seen += e.is(event_type::run_resumed);
        if (auto step = crash_step_of(e, resumes_seen))
            for (auto point : points_of(e))
                add({*step, point});
    }
    for (auto const& i : baseline.invocations)
        add({i.step, crash_point::after_effect_before_outcome});
    return points;
}

} // namespace agentrt::testkit
