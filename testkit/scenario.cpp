#include <agentrt/testkit/scenario.hpp>

#include <agentrt/catalog/canonical_json.hpp>
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
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <thread>
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

// What the processes of one scenario run share: invocations, crashes, errors, agent inputs,
// renders, and the counters behind the deterministic clock and ids. Files beside the store in
// process mode (the children are forked), memory in simulated mode.
class harness_log {
public:
    enum kind { invocations, crashes, errors, inputs, renders };

    explicit harness_log(std::optional<fs::path> dir) : dir_(std::move(dir)) {
        if (dir_)
            fs::create_directories(*dir_);
    }

    void add(kind k, std::string const& line) {
        if (dir_)
            return append_line(file(k), line);
        std::lock_guard lock(mutex_);
        lines_[k].push_back(line);
    }

    std::vector<std::string> lines(kind k) const {
        if (dir_)
            return read_lines(file(k));
        std::lock_guard lock(mutex_);
        auto it = lines_.find(k);
        return it == lines_.end() ? std::vector<std::string>{} : it->second;
    }

    // A counter continued across the scenario's processes (one process runs at a time).
    std::int64_t next(std::string const& name) {
        if (!dir_) {
            std::lock_guard lock(mutex_);
            return ++counters_[name];
        }
        fs::path path = *dir_ / ("counter-" + name);
        std::int64_t n = 0;
        if (std::ifstream in(path); in)
            in >> n;
        ++n;
        // Written aside and renamed, so a process killed at any instant leaves the old or the new value.
        fs::path aside = path;
        aside += ".new";
        std::ofstream(aside, std::ios::trunc) << n;
        fs::rename(aside, path);
        return n;
    }

private:
    fs::path file(kind k) const {
        static constexpr char const* names[] = {"invocations", "crashes", "errors", "inputs", "renders"};
        return *dir_ / names[k];
    }

    std::optional<fs::path> dir_;
    mutable std::mutex mutex_;
    std::map<kind, std::vector<std::string>> lines_;
    std::map<std::string, std::int64_t> counters_;
};

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

// What identifies the recorded data an agent decides from: each step's decision and outcome, not
// how it got there (clock readings, statuses, settlements). Two decisions made from the same input
// must render the same model request.
std::string input_hash(agent_view const& view) {
    boost::json::array steps;
    for (auto const& st : view.steps)
        steps.push_back(boost::json::object{
            {"index", st.index}, {"decision", st.decision}, {"observation", st.observation}, {"error", st.error}});
    return canonical_hash(
        boost::json::object{{"goal", view.run.goal}, {"step", view.step_index}, {"steps", std::move(steps)}});
}

// Hands the scenario's agent its inputs, noting each one and every model request it renders.
class recording_agent final : public agent {
public:
    recording_agent(agent& inner, harness_log& log, int process) : inner_(inner), log_(log), process_(process) {}

    decision decide(agent_view const& view) override {
        std::string where = std::to_string(view.step_index) + " " + std::to_string(process_);
        log_.add(harness_log::inputs, where + " " + std::to_string(view.steps.size()));
        agent_view recorded{view.run, view.steps, view.step_index,
                            [&, input = input_hash(view)](model& m, model_request const& request) {
                                log_.add(harness_log::renders, where + " " + input + " " + canonical_request(request));
                                return view.call_model(m, request);
                            }};
        return inner_.decide(recorded);
    }

private:
    agent& inner_;
    harness_log& log_;
    int process_;
};

// One process of a scenario, whichever way it runs: `die` ends it where it stands (SIGKILL, or a
// simulated crash that unwinds with simulated_process_crashed) and never returns.
struct process_hooks {
    store& st;
    harness_log& log;
    int process = 0;
    std::function<void()> die;
};

// Runs one process until its run ends or waits with no answer to give. Throws on an error.
void run_process(scenario const& s, process_hooks const& p, std::vector<crash> const& crashes) {
    store& st = p.st;
    harness_log& log = p.log;
    std::size_t fired = log.lines(harness_log::crashes).size();
    std::optional<crash> armed;
    if (fired < crashes.size())
        armed = crashes[fired];
    auto die = [&] {
        log.add(harness_log::crashes, to_string(*armed));
        p.die();
    };

    auto base = s.tools();
    std::vector<tool_entry> entries(base.entries().begin(), base.entries().end());
    for (auto& e : entries) {
        e.call = [inner = e.call, name = e.name, &log, &st, &armed, &die, process = p.process](arguments const& a,
                                                                                               call_context const& c) {
            if (st.crashed())
                throw simulated_process_crashed{}; // a thread the dead process left calls no tool
            std::string where = name + " " + std::to_string(c.step_index) + " " + std::to_string(process);
            log.add(harness_log::invocations, "start " + where);
            auto out = inner(a, c);
            if (armed && armed->point == crash_point::after_effect_before_outcome && armed->step == c.step_index)
                die();
            log.add(harness_log::invocations, "return " + where);
            return out;
        };
    }
    tool_table table(std::move(entries));
    evaluator policy = s.policy();
    std::unique_ptr<agent> inner = s.loop ? nullptr : s.agent();
    std::optional<recording_agent> recorded;
    if (inner)
        recorded.emplace(*inner, log, p.process);

    // Resumes count from the store: a previous process may have resumed already.
    std::uint64_t resumes_seen = st.read([](store_reader const& r) {
        std::uint64_t n = 0;
        for (auto const& e : r.events(run_id))
            n += e.type == "run.resumed";
        return n;
    });
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
        // A dead process's threads read a frozen clock: they must not move the next process's.
        auto frozen = std::make_shared<std::int64_t>(s.clock_start_ms);
        g.clocks.record = [&log, &st, frozen, start = s.clock_start_ms] {
            if (!st.crashed())
                *frozen = start + 1000 * log.next("clock");
            return *frozen;
        };
        g.ids = [&log] { return "id-" + std::to_string(log.next("ids")); };
    }
    operator_options by_operator{"scenario operator", g.clocks.record, std::nullopt};

    // A process may die after the commit that ended the run: then there is nothing to resume.
    auto ended = st.read([](store_reader const& r) {
        auto run = r.run(run_id);
        return run && is_terminal(run->status);
    });
    if (ended)
        return;

    std::optional<driver> d;
    std::optional<gate> own_gate;
    if (s.loop)
        own_gate.emplace(st, table, policy, g);
    else
        d.emplace(st, table, policy, *recorded, g);
    auto go = [&](bool resume) -> run_record {
        if (s.loop) {
            if (auto looped = s.loop(*own_gate, {run_id, s.goal, resume}); !looped)
                throw exception(looped.error());
            auto run = st.read([](store_reader const& r) { return r.run(run_id); });
            if (!run)
                throw std::runtime_error("the gate loop returned without beginning run " + std::string(run_id));
            if (run->status == run_status::running)
                throw std::runtime_error("the gate loop returned while run " + run->id +
                                         " was still running: a loop drives its run until it ends or waits");
            return *run;
        }
        auto run = resume ? d->resume(run_id) : d->start(s.goal, std::string(run_id));
        if (!run)
            throw exception(run.error());
        return *run;
    };

    bool begun = st.read([](store_reader const& r) { return r.run(run_id).has_value(); });
    auto run = go(begun); // a process killed before it began the run leaves it to the next
    while (run.status == run_status::waiting_for_approval) {
        auto pending = pending_approvals(st);
        auto mine =
            std::find_if(pending.begin(), pending.end(), [](approval_record const& a) { return a.run_id == run_id; });
        if (mine == pending.end())
            break;
        auto answer = s.answer(*mine);
        if (answer == operator_answer::leave)
            break;
        if (answer == operator_answer::reject) {
            if (auto rejected = reject(st, run_id, mine->step_index, mine->hash, by_operator); !rejected)
                throw exception(rejected.error());
            break;
        }
        if (auto approved = approve(st, run_id, mine->step_index, mine->hash, by_operator); !approved)
            throw exception(approved.error());
        run = go(true);
    }
}

store open_store(scenario const& s, fs::path const& path) {
    store_options options;
    options.durability = s.durability;
    auto opened = store::open(path, options);
    if (!opened)
        throw exception(opened.error());
    return std::move(opened).value();
}

enum class process_end { died, ended, failed };

// Process mode: a forked child per process, killed at its crash point, or by the parent after
// `kill_after` (kill_anywhere).
process_end run_forked(scenario const& s, harness_log& log, fs::path const& store_path,
                       std::vector<crash> const& crashes, int process,
                       std::optional<std::chrono::microseconds> kill_after) {
    std::fflush(nullptr);
    auto forked_at = std::chrono::steady_clock::now();
    pid_t child = ::fork();
    if (child < 0)
        throw std::runtime_error("agentrt: fork failed");
    if (child == 0) {
        // A test framework's crash handlers belong to the parent: a child dies as a plain process.
        for (int sig : {SIGABRT, SIGSEGV, SIGFPE, SIGILL, SIGBUS, SIGTERM})
            std::signal(sig, SIG_DFL);
        int code = 0;
        try {
            store st = open_store(s, store_path);
            run_process(s, {st, log, process, [] { ::kill(::getpid(), SIGKILL); }}, crashes);
        } catch (std::exception const& e) {
            log.add(harness_log::errors, "process " + std::to_string(process) + ": " + e.what());
            code = 3;
        }
        std::fflush(nullptr);
        ::_exit(code);
    }
    int status = 0;
    if (kill_after) {
        auto deadline = forked_at + *kill_after;
        while (::waitpid(child, &status, WNOHANG) == 0) {
            if (std::chrono::steady_clock::now() >= deadline) {
                ::kill(child, SIGKILL);
                ::waitpid(child, &status, 0);
                break;
            }
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    } else {
        ::waitpid(child, &status, 0);
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        return process_end::died;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return process_end::ended;
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 3)) {
        std::string why = WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                              : "exited with status " + std::to_string(WEXITSTATUS(status));
        log.add(harness_log::errors, "process " + std::to_string(process) + " " + why);
    }
    return process_end::failed;
}

// Simulated mode: a store handle per process, cut off at its crash point.
process_end run_simulated(scenario const& s, harness_log& log, store const& primary, std::vector<crash> const& crashes,
                          int process) {
    store st = primary.simulated_process();
    try {
        run_process(s,
                    {st, log, process,
                     [&st] {
                         st.simulate_crash();
                         throw simulated_process_crashed{};
                     }},
                    crashes);
        return process_end::ended;
    } catch (simulated_process_crashed const&) {
        if (st.crashed())
            return process_end::died;
        log.add(harness_log::errors, "process " + std::to_string(process) +
                                         ": simulated_process_crashed was thrown by a process that did not crash");
    } catch (std::exception const& e) {
        log.add(harness_log::errors, "process " + std::to_string(process) + ": " + e.what());
    }
    return process_end::failed;
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

scenario_result run_scenario_killed(scenario const& s, std::vector<crash> const& crashes,
                                    std::vector<std::chrono::microseconds> const& kills) {
    if (!s.tools || !s.policy || (!s.agent && !s.loop))
        throw std::invalid_argument("agentrt: a scenario needs tools, a policy, and an agent or a gate loop");
    if (!kills.empty() && s.mode != crash_mode::process)
        throw std::invalid_argument("agentrt: kill_anywhere kills processes: it needs crash_mode::process");
    bool temporary = s.store.empty();
    fs::path dir = temporary ? fresh_directory() : s.store;
    fs::path store_path = dir / "store";
    harness_log log(s.mode == crash_mode::process ? std::optional(dir / "harness") : std::nullopt);

    scenario_result result;
    result.store = store_path;
    int process = 0;
    {
        // Created before the first process, so that no kill can land inside the store's creation.
        std::optional<store> primary = open_store(s, store_path);
        if (s.mode == crash_mode::process)
            primary.reset();
        for (; process < s.max_processes; ++process) {
            auto end =
                s.mode == crash_mode::process
                    ? run_forked(s, log, store_path, crashes, process,
                                 std::size_t(process) < kills.size() ? std::optional(kills[process]) : std::nullopt)
                    : run_simulated(s, log, *primary, crashes, process);
            if (end != process_end::died)
                break;
            ++result.resumes;
        }
    }
    if (process == s.max_processes)
        result.problems.push_back("the scenario did not end within " + std::to_string(s.max_processes) + " processes");
    for (auto const& line : log.lines(harness_log::errors))
        result.problems.push_back(line);

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
        store st = open_store(s, store_path);
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
    } catch (exception const& e) {
        result.problems.push_back("the store cannot be opened after the scenario: " + e.error().message);
        return result;
    }
    check_records(result, crashes);
    if (temporary && (result.ok() || !s.keep_failed_store))
        fs::remove_all(dir);
    return result;
}

scenario_result run_scenario(scenario const& s, std::vector<crash> const& crashes) {
    return run_scenario_killed(s, crashes, {});
}

std::string describe(scenario_result const& r, std::vector<crash> const& crashes) {
    std::string crashes_text;
    for (auto const& c : crashes)
        crashes_text += (crashes_text.empty() ? "" : ", ") + to_string(c);
    std::string out = "scenario with crashes [" + crashes_text + "] (" + std::to_string(r.resumes) + " resumes; " +
                      (fs::exists(r.store) ? "store kept at " + r.store.string() : std::string("store removed")) + "):";
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

explore_summary explore(scenario const& s, source_location where) {
    auto started = std::chrono::steady_clock::now();
    explore_summary summary;
    auto baseline = run_scenario(s);
    if (!baseline.ok()) {
        ++summary.failures;
        current_reporter().fail(where, "explore: the scenario fails without any crash: " + describe(baseline, {}));
        return summary;
    }
    auto const points = reachable_points(baseline);
    for (auto const& c : points) {
        auto r = run_scenario(s, {c});
        ++summary.crashes_tried;
        summary.resumes += std::size_t(r.resumes);
        current_reporter().log("explore: " + std::to_string(summary.crashes_tried) + "/" +
                               std::to_string(points.size()) + " " + to_string(c) + ": " +
                               (r.ok() ? "ok" : std::to_string(r.problems.size()) + " problems") + ", " +
                               std::to_string(r.resumes) + " resumes");
        if (!r.ok()) {
            ++summary.failures;
            current_reporter().fail(where, "explore: " + describe(r, {c}));
        }
    }
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (summary.crashes_tried == 0)
        current_reporter().fail(where, "explore: the scenario reached no crash point, so nothing was explored");
    char line[160];
    std::snprintf(line, sizeof line, "explore: %zu crashes tried, %zu resumes, %zu failures, %.2f s (%s mode)",
                  summary.crashes_tried, summary.resumes, summary.failures, summary.seconds,
                  s.mode == crash_mode::simulated ? "simulated" : "process");
    current_reporter().log(line);
    return summary;
}

namespace {

// Where two renders of one step first differ, with a little of each side.
std::string first_difference(std::string const& a, std::string const& b) {
    std::size_t at = 0;
    while (at < a.size() && at < b.size() && a[at] == b[at])
        ++at;
    auto excerpt = [&](std::string const& text) {
        std::size_t from = at < 40 ? 0 : at - 40;
        return "..." + text.substr(from, 80) + (text.size() > from + 80 ? "..." : "");
    };
    return "they differ at byte " + std::to_string(at) + "\n    first:  " + excerpt(a) + "\n    second: " + excerpt(b);
}

} // namespace

bool same_renders(std::function<scenario()> const& make, std::vector<crash> const& crashes, source_location where) {
    auto fail = [&](std::string const& message) {
        current_reporter().fail(where, "same_renders: " + message);
        return false;
    };
    auto first = run_scenario(make());
    if (!first.ok())
        return fail("the scenario fails without crashes: " + describe(first, {}));
    auto second = run_scenario(make(), crashes);
    if (!second.ok())
        return fail("the scenario fails with its crashes: " + describe(second, crashes));
    if (first.renders.empty())
        return fail("the agent rendered no model request, so nothing was compared");

    // The request first rendered from each input in the uncrashed run; every other rendering from
    // the same input, in either run, must be the same bytes.
    std::map<std::string, agent_render const*> reference;
    for (auto const& r : first.renders)
        reference.emplace(r.input, &r);
    std::size_t compared = 0;
    auto compare = [&](scenario_result const& run, std::string_view which) -> std::optional<std::string> {
        for (auto const& r : run.renders) {
            auto it = reference.find(r.input);
            if (it == reference.end() || it->second == &r)
                continue;
            ++compared;
            if (r.request != it->second->request)
                return "step " + std::to_string(r.step) + " rendered differently in the " + std::string(which) +
                       " (process " + std::to_string(r.process) + ") than in the uncrashed run (process " +
                       std::to_string(it->second->process) +
                       "), from the same recorded steps: " + first_difference(it->second->request, r.request);
        }
        return std::nullopt;
    };
    if (auto difference = compare(first, "uncrashed run"))
        return fail(*difference);
    if (auto difference = compare(second, "run with crashes"))
        return fail(*difference);
    if (compared == 0)
        return fail("no decision of the run with crashes was made from the same recorded steps as one of the "
                    "uncrashed run, so nothing was compared: choose crashes the run resumes from");
    return true;
}

} // namespace agentrt::testkit
