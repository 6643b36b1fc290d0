// The processes of a scenario: what each runs, how it dies, and what they share.
#include "harness.hpp"

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/runtime/driver.hpp>
#include <agentrt/runtime/operator.hpp>
#include <agentrt/runtime/reads.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace agentrt::testkit::harness {
namespace {

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

bool is(event_record const& e, char const* key, std::string_view value) {
    auto const* v = e.data.if_contains(key);
    return v && v->is_string() && v->get_string() == value;
}

} // namespace

harness_log::harness_log(std::optional<fs::path> dir) : dir_(std::move(dir)) {
    if (dir_)
        fs::create_directories(*dir_);
}

void harness_log::add(kind k, std::string const& line) {
    if (dir_)
        return append_line(file(k), line);
    std::lock_guard lock(mutex_);
    lines_[k].push_back(line);
}

std::vector<std::string> harness_log::lines(kind k) const {
    if (dir_)
        return read_lines(file(k));
    std::lock_guard lock(mutex_);
    auto it = lines_.find(k);
    return it == lines_.end() ? std::vector<std::string>{} : it->second;
}

std::int64_t harness_log::next(std::string const& name) {
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

fs::path harness_log::file(kind k) const {
    static constexpr char const* names[] = {"invocations", "crashes", "errors", "inputs", "renders", "faults"};
    return *dir_ / names[k];
}

std::optional<std::uint64_t> step_of(event_record const& e) {
    auto const* step = e.data.if_contains("step");
    if (step && step->is_int64())
        return std::uint64_t(step->get_int64());
    if (step && step->is_uint64())
        return step->get_uint64();
    return std::nullopt;
}

std::vector<crash_point> points_of(event_record const& e) {
    if (e.is(event_type::step_started))
        return {crash_point::after_step_started};
    if (e.is(event_type::step_decided))
        return {crash_point::after_step_decided};
    if (e.is(event_type::step_policy) && is(e, "outcome", "allow") && !e.data.contains("reevaluation"))
        return {crash_point::after_policy_allowed};
    // A re-evaluated grant allows its step whether the policy answers allow or asks again for the
    // very request granted, and only the start it commits with tells the two apart: a start
    // carrying an approval is that commit's.
    if (e.is(event_type::step_tool_started) && e.data.contains("approval"))
        return {crash_point::after_attach_allowed, crash_point::after_tool_started};
    if (e.is(event_type::step_tool_started))
        return {crash_point::after_tool_started};
    if (e.is(event_type::step_tool_finished))
        return {crash_point::after_tool_finished};
    if (e.is(event_type::run_resumed))
        return {crash_point::after_run_resumed};
    if (e.is(event_type::step_interrupted))
        return {crash_point::after_step_interrupted};
    return {};
}

std::optional<std::uint64_t> crash_step_of(event_record const& e, std::uint64_t resumes_seen) {
    if (e.is(event_type::run_resumed))
        return resumes_seen;
    return step_of(e);
}

namespace {

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

// An exception out of a public call of the runtime (a simulated crash aside), which owes a typed error.
struct api_threw : std::runtime_error {
    using std::runtime_error::runtime_error;
};

template <class F>
auto call_api(std::string_view what, F&& call) {
    try {
        return call();
    } catch (simulated_process_crashed const&) {
        throw;
    } catch (std::exception const& e) {
        throw api_threw(std::string(what) + " threw instead of returning an error: " + e.what());
    }
}

// One process of a scenario, whichever way it runs: `die` ends it where it stands (SIGKILL, or a
// simulated crash that unwinds with simulated_process_crashed) and never returns.
struct process_hooks {
    store& st;
    harness_log& log;
    int process = 0;
    std::function<void()> die;
    std::function<bool()> dead; // whether `die` has run: a thread the dead process left must do nothing
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
        e.call = [inner = e.call, name = e.name, &log, dead = p.dead, &armed, &die,
                  process = p.process](arguments const& a, call_context const& c) {
            if (dead())
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
            n += e.is(event_type::run_resumed);
        return n;
    });
    st.observe([&](event_record const& e) {
        if (e.is(event_type::run_resumed))
            ++resumes_seen;
        if (!armed || crash_step_of(e, resumes_seen) != armed->step)
            return;
        auto points = points_of(e);
        if (std::find(points.begin(), points.end(), armed->point) != points.end())
            die();
    });

    gate_options g;
    g.limits = s.limits;
    g.reconcile = s.reconcile;
    g.lease_duration = s.lease_duration;
    if (s.deterministic) {
        // A dead process's threads read a frozen clock: they must not move the next process's.
        auto frozen = std::make_shared<std::int64_t>(s.clock_start_ms);
        g.clocks.record = [&log, dead = p.dead, frozen, start = s.clock_start_ms] {
            if (!dead())
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
            if (auto looped = call_api("the gate loop",
                                       [&] {
                                           return s.loop(*own_gate, {run_id, s.goal, resume});
                                       });
                !looped)
                throw exception(looped.error());
            auto run = st.read([](store_reader const& r) { return r.run(run_id); });
            if (!run)
                throw std::runtime_error("the gate loop returned without beginning run " + std::string(run_id));
            if (run->status == run_status::running)
                throw std::runtime_error("the gate loop returned while run " + run->id +
                                         " was still running: a loop drives its run until it ends or waits");
            return *run;
        }
        auto run = resume ? call_api("driver::resume", [&] { return d->resume(run_id); })
                          : call_api("driver::start", [&] { return d->start(s.goal, std::string(run_id)); });
        if (!run)
            throw exception(run.error());
        return *run;
    };

    auto pending_answer = [&]() -> std::optional<approval_record> {
        for (auto& a : pending_approvals(st))
            if (a.run_id == run_id)
                return std::move(a);
        return std::nullopt;
    };
    // A process killed before it began the run leaves it to the next. One killed right after the
    // commit that paused its run for an answer leaves it to the operator: a restarted program
    // waits for the answer, and attaching before it is refused.
    auto left = st.read([](store_reader const& r) { return r.run(run_id); });
    auto run =
        left && left->status == run_status::waiting_for_approval && pending_answer() ? *left : go(left.has_value());
    while (run.status == run_status::waiting_for_approval) {
        auto mine = pending_answer();
        if (!mine)
            break;
        auto answer = s.answer(*mine);
        if (answer == operator_answer::leave)
            break;
        if (answer == operator_answer::reject) {
            if (auto rejected =
                    call_api("reject", [&] { return reject(st, run_id, mine->step_index, mine->hash, by_operator); });
                !rejected)
                throw exception(rejected.error());
            break;
        }
        if (auto approved =
                call_api("approve", [&] { return approve(st, run_id, mine->step_index, mine->hash, by_operator); });
            !approved)
            throw exception(approved.error());
        run = go(true);
    }
}

} // namespace

store open_store(scenario const& s, std::string const& location) {
    store_options options;
    options.durability = s.durability;
    auto opened = store::open(location, options);
    if (!opened)
        throw exception(opened.error());
    return std::move(opened).value();
}

process_end run_forked(scenario const& s, harness_log& log, std::string const& location,
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
            store st = open_store(s, location);
            run_process(s, {st, log, process, [] { ::kill(::getpid(), SIGKILL); }, [] { return false; }}, crashes);
        } catch (std::exception const& e) {
            log.add(harness_log::errors, "process " + std::to_string(process) + ": " + e.what());
            code = 3;
        } catch (...) { // escaping, it would unwind the parent's stack in the child and run its tests on
            log.add(harness_log::errors,
                    "process " + std::to_string(process) + ": threw an exception not derived from std::exception");
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

process_end run_simulated(scenario const& s, harness_log& log, simulated_machine& machine,
                          std::vector<crash> const& crashes, int process, fault const* f) {
    simulated_process st = machine.process();
    std::shared_ptr<faulty_engine> faulty =
        f ? std::make_shared<faulty_engine>(static_cast<store&>(st).engine(), *f) : nullptr;
    std::optional<store> faulted;
    if (faulty)
        faulted.emplace(faulty);
    auto note_fault = [&] {
        if (faulty && faulty->fired())
            log.add(harness_log::faults, to_string(faulty->fault()));
    };
    try {
        run_process(s,
                    {faulted ? *faulted : st, log, process,
                     [&st] {
                         st.crash();
                         throw simulated_process_crashed{};
                     },
                     [&st] { return st.crashed(); }},
                    crashes);
        note_fault();
        return process_end::ended;
    } catch (simulated_process_crashed const&) {
        if (st.crashed())
            return process_end::died;
        log.add(harness_log::errors, "process " + std::to_string(process) +
                                         ": simulated_process_crashed was thrown by a process that did not crash");
    } catch (api_threw const& e) {
        note_fault();
        log.add(harness_log::errors, "process " + std::to_string(process) + ": " + e.what());
    } catch (exception const& e) {
        note_fault();
        if (faulty && faulty->fired() && e.error().code == error_of(faulty->fault()).code)
            return process_end::died; // the fault's typed error ended it; the next process goes on
        log.add(harness_log::errors, "process " + std::to_string(process) + ": " + e.what());
    } catch (std::exception const& e) {
        note_fault();
        log.add(harness_log::errors, "process " + std::to_string(process) + ": " + e.what());
    }
    return process_end::failed;
}

} // namespace agentrt::testkit::harness
