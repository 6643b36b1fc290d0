#include <agentrt/testkit/scenario.hpp>

#include <agentrt/runtime/check.hpp>
#include <agentrt/runtime/driver.hpp>
#include <agentrt/runtime/operator.hpp>
#include <agentrt/runtime/reads.hpp>
#include <agentrt/testkit/report.hpp>

#include "scenario_internal.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <sys/wait.h>
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

namespace fs = std::filesystem;

constexpr std::string_view run_id = "run-1";

// The harness's own files, beside the store: what every process appends to.
struct harness_files {
    fs::path dir;
    fs::path invocations() const { return dir / "invocations"; }
    fs::path crashes() const { return dir / "crashes"; }
    fs::path errors() const { return dir / "errors"; }
    fs::path counter(std::string_view name) const { return dir / ("counter-" + std::string(name)); }
};

void append_line(fs::path const& file, std::string const& line) {
    int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    std::string text = line + '\n';
    [[maybe_unused]] auto written = ::write(fd, text.data(), text.size());
    ::close(fd);
}

std::vector<std::string> read_lines(fs::path const& file) {
    std::vector<std::string> lines;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            lines.push_back(line);
    return lines;
}

// A counter continued across the scenario's processes (one process runs at a time).
std::int64_t next_count(fs::path const& file) {
    std::int64_t n = 0;
    if (std::ifstream in(file); in)
        in >> n;
    ++n;
    std::ofstream(file, std::ios::trunc) << n;
    return n;
}

std::optional<std::uint64_t> step_of(event_record const& e) {
    auto const* step = e.data.if_contains("step");
    if (step && step->is_int64())
        return std::uint64_t(step->get_int64());
    if (step && step->is_uint64())
        return step->get_uint64();
    return std::nullopt;
}

bool is(event_record const& e, char const* key, std::string_view value) {
    auto const* v = e.data.if_contains(key);
    return v && v->is_string() && v->get_string() == value;
}

// The crash point an event is the aftermath of, if any.
std::optional<crash_point> point_of(event_record const& e) {
    if (e.type == "step.started")
        return crash_point::after_step_started;
    if (e.type == "step.decided")
        return crash_point::after_step_decided;
    if (e.type == "step.policy" && is(e, "outcome", "allow"))
        return e.data.contains("reevaluation") ? crash_point::after_attach_allowed : crash_point::after_policy_allowed;
    if (e.type == "step.tool_started")
        return crash_point::after_tool_started;
    if (e.type == "step.tool_finished")
        return crash_point::after_tool_finished;
    if (e.type == "run.resumed")
        return crash_point::after_run_resumed;
    if (e.type == "step.interrupted")
        return crash_point::after_step_interrupted;
    return std::nullopt;
}

// For run.resumed the crash's step counts resumes (1: the first); otherwise it is the event's step.
std::optional<std::uint64_t> crash_step_of(event_record const& e, std::uint64_t resumes_seen) {
    if (e.type == "run.resumed")
        return resumes_seen;
    return step_of(e);
}

// One process of the scenario. Never returns: it exits, or is killed at its crash point.
[[noreturn]] void run_process(scenario const& s, harness_files const& files, fs::path const& store_path,
                              std::vector<crash> const& crashes, int process) {
    // A test framework's crash handlers belong to the parent: a child dies as a plain process.
    for (int sig : {SIGABRT, SIGSEGV, SIGFPE, SIGILL, SIGBUS, SIGTERM})
        std::signal(sig, SIG_DFL);
    int code = 0;
    try {
        std::size_t fired = read_lines(files.crashes()).size();
        std::optional<crash> armed;
        if (fired < crashes.size())
            armed = crashes[fired];
        auto die = [&] {
            append_line(files.crashes(), to_string(*armed));
            ::kill(::getpid(), SIGKILL);
        };

        store_options options;
        options.durability = s.durability;
        auto opened = store::open(store_path, options);
        if (!opened)
            throw exception(opened.error());
        store st = std::move(opened).value();

        auto base = s.tools();
        std::vector<tool_entry> entries(base.entries().begin(), base.entries().end());
        for (auto& e : entries) {
            e.call = [inner = e.call, name = e.name, &files, &armed, &die, process](arguments const& a,
                                                                                    call_context const& c) {
                std::string where = name + " " + std::to_string(c.step_index) + " " + std::to_string(process);
                append_line(files.invocations(), "start " + where);
                auto out = inner(a, c);
                if (armed && armed->point == crash_point::after_effect_before_outcome && armed->step == c.step_index)
                    die();
                append_line(files.invocations(), "return " + where);
                return out;
            };
        }
        tool_table table(std::move(entries));
        evaluator policy = s.policy();
        auto agent = s.agent();

        std::uint64_t resumes_seen = 0;
        st.observe([&](event_record const& e) {
            if (e.type == "run.resumed")
                ++resumes_seen;
            auto point = point_of(e);
            if (armed && point && *point == armed->point && crash_step_of(e, resumes_seen) == armed->step)
                die();
        });

        gate_options g;
        g.limits = s.limits;
        g.reconcile = s.reconcile;
        g.lease_duration = s.lease_duration;
        if (s.deterministic) {
            g.clocks.record = [path = files.counter("clock"), start = s.clock_start_ms] {
                return start + 1000 * next_count(path);
            };
            g.ids = [path = files.counter("ids")] { return "id-" + std::to_string(next_count(path)); };
        }
        operator_options by_operator{"scenario operator", g.clocks.record, std::nullopt};

        driver d(st, table, policy, *agent, g);
        // Resumes after a crash count from the store: a previous process may have resumed already.
        resumes_seen = st.read([](store_reader const& r) {
            std::uint64_t n = 0;
            for (auto const& e : r.events(run_id))
                n += e.type == "run.resumed";
            return n;
        });
        // A process may die after the commit that ended the run: then there is nothing to resume.
        auto ended = st.read([](store_reader const& r) {
            auto run = r.run(run_id);
            return run && is_terminal(run->status);
        });
        if (ended)
            ::_exit(0);
        auto run = process == 0 ? d.start(s.goal, std::string(run_id)) : d.resume(run_id);
        while (run && run->status == run_status::waiting_for_approval) {
            auto pending = pending_approvals(st);
            auto mine = std::find_if(pending.begin(), pending.end(),
                                     [](approval_record const& a) { return a.run_id == run_id; });
            if (mine == pending.end())
                break;
            auto answer = s.answer(*mine);
            if (answer == operator_answer::leave)
                break;
            if (answer == operator_answer::reject) {
                auto rejected = reject(st, run_id, mine->step_index, mine->hash, by_operator);
                if (!rejected)
                    throw exception(rejected.error());
                break;
            }
            auto approved = approve(st, run_id, mine->step_index, mine->hash, by_operator);
            if (!approved)
                throw exception(approved.error());
            run = d.resume(run_id);
        }
        if (!run)
            throw exception(run.error());
    } catch (std::exception const& e) {
        append_line(files.errors(), "process " + std::to_string(process) + ": " + e.what());
        code = 3;
    }
    std::fflush(nullptr);
    ::_exit(code);
}

fs::path fresh_directory() {
    std::string pattern = (fs::temp_directory_path() / "agentrt-scenario-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
        throw std::runtime_error("agentrt: cannot create a temporary directory for a scenario");
    return pattern;
}

void check_records(scenario_result& r, std::vector<crash> const& requested) {
    for (auto const& c : requested)
        if (std::find(r.crashes_fired.begin(), r.crashes_fired.end(), c) == r.crashes_fired.end())
            r.problems.push_back("crash " + to_string(c) + " was requested but never reached");

    std::map<std::uint64_t, std::size_t> reached, started, granted;
    for (auto const& i : r.invocations)
        ++reached[i.step];
    for (auto const& e : r.events)
        if (e.type == "step.tool_started")
            ++started[step_of(e).value_or(UINT64_MAX)];
    for (auto const& a : r.approvals)
        if (a.status == approval_status::approved && a.used)
            ++granted[a.step_index];
    for (auto const& [step, n] : reached)
        if (n > started[step])
            r.problems.push_back("step " + std::to_string(step) + ": the tool was reached " + std::to_string(n) +
                                 " times but only " + std::to_string(started[step]) + " starts are recorded");
    for (auto const& [step, n] : started)
        if (n > 1 + granted[step])
            r.problems.push_back("step " + std::to_string(step) + ": its tool started " + std::to_string(n) +
                                 " times, but only " + std::to_string(granted[step]) +
                                 " approvals granted a new start");
    if (r.run.status == run_status::running)
        r.problems.push_back("run " + r.run.id + " was left running");
    if (!r.run.lease.owner.empty())
        r.problems.push_back("run " + r.run.id + " is left with its lease held by " + r.run.lease.owner);
}

} // namespace

scenario_result run_scenario(scenario const& s, std::vector<crash> const& crashes) {
    if (!s.tools || !s.policy || !s.agent)
        throw std::invalid_argument("agentrt: a scenario needs tools, a policy and an agent");
    bool temporary = s.store.empty();
    fs::path dir = temporary ? fresh_directory() : s.store;
    harness_files files{dir / "harness"};
    fs::create_directories(files.dir);
    fs::path store_path = dir / "store";

    scenario_result result;
    result.store = store_path;
    int process = 0;
    for (; process < s.max_processes; ++process) {
        std::fflush(nullptr);
        pid_t child = ::fork();
        if (child < 0)
            throw std::runtime_error("agentrt: fork failed");
        if (child == 0)
            run_process(s, files, store_path, crashes, process);
        int status = 0;
        ::waitpid(child, &status, 0);
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
            ++result.resumes;
            continue;
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            std::string why = WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                                  : "exited with status " + std::to_string(WEXITSTATUS(status));
            result.problems.push_back("process " + std::to_string(process) + " " + why);
        }
        break;
    }
    if (process == s.max_processes)
        result.problems.push_back("the scenario did not end within " + std::to_string(s.max_processes) + " processes");
    for (auto const& line : read_lines(files.errors()))
        result.problems.push_back(line);

    for (auto const& line : read_lines(files.crashes()))
        for (auto const& c : crashes)
            if (to_string(c) == line &&
                std::find(result.crashes_fired.begin(), result.crashes_fired.end(), c) == result.crashes_fired.end())
                result.crashes_fired.push_back(c);
    std::map<std::string, std::size_t> open_calls; // "tool step process" -> index of its start
    for (auto const& line : read_lines(files.invocations())) {
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

    {
        store_options options;
        options.durability = s.durability;
        auto opened = store::open(store_path, options);
        if (!opened) {
            result.problems.push_back("the store cannot be opened after the scenario: " + opened.error().message);
            return result;
        }
        store st = std::move(opened).value();
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
    }
    check_records(result, crashes);
    if (temporary && result.ok())
        fs::remove_all(dir);
    return result;
}

std::string describe(scenario_result const& r, std::vector<crash> const& crashes) {
    std::string crashes_text;
    for (auto const& c : crashes)
        crashes_text += (crashes_text.empty() ? "" : ", ") + to_string(c);
    std::string out = "scenario with crashes [" + crashes_text + "] (" + std::to_string(r.resumes) +
                      " resumes; store kept at " + r.store.string() + "):";
    for (auto const& p : r.problems)
        out += "\n  " + p;
    return out;
}

bool check_scenario(scenario const& s, std::vector<crash> const& crashes, std::source_location where) {
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
        resumes_seen += e.type == "run.resumed";
        auto point = point_of(e);
        auto step = crash_step_of(e, resumes_seen);
        if (point && step)
            add({*step, *point});
    }
    for (auto const& i : baseline.invocations)
        add({i.step, crash_point::after_effect_before_outcome});
    return points;
}

explore_summary explore(scenario const& s, std::source_location where) {
    auto started = std::chrono::steady_clock::now();
    explore_summary summary;
    auto baseline = run_scenario(s);
    if (!baseline.ok()) {
        ++summary.failures;
        current_reporter().fail(where, "explore: the scenario fails without any crash: " + describe(baseline, {}));
        return summary;
    }
    for (auto const& c : reachable_points(baseline)) {
        auto r = run_scenario(s, {c});
        ++summary.crashes_tried;
        summary.resumes += std::size_t(r.resumes);
        if (!r.ok()) {
            ++summary.failures;
            current_reporter().fail(where, "explore: " + describe(r, {c}));
        }
    }
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (summary.crashes_tried == 0)
        current_reporter().fail(where, "explore: the scenario reached no crash point, so nothing was explored");
    char line[160];
    std::snprintf(line, sizeof line, "explore: %zu crashes tried, %zu resumes, %zu failures, %.2f s\n",
                  summary.crashes_tried, summary.resumes, summary.failures, summary.seconds);
    std::fputs(line, stdout);
    return summary;
}

} // namespace agentrt::testkit
