// Workers in several processes, each with its own connections, share a few hundred runs of one
// PostgreSQL store while a loop SIGKILLs random workers and starts new ones.
#include <agentrt/runtime.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include "runtime/fixture.hpp"
#include "support/postgres.hpp"

#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <random>
#include <sys/wait.h>
#include <unistd.h>

using namespace runtime_test;
using agentrt::decision;

namespace {

constexpr int runs = 200;
constexpr int workers = 4;

std::vector<decision> script() {
    std::vector<decision> s{decision::call("lookup_order", lookup_args), decision::call("send_message", send_args)};
    s.resize(12, decision::complete("mailed"));
    return s;
}

// A worker process: resumes whatever is ready until nothing has been for a while. Every message it
// sends is a line in `effects`, written before the tool returns: the side effect, counted outside
// the store.
[[noreturn]] void work(std::string const& where, fs::path const& effects) {
    world w;
    fs::remove_all(w.dir.path); // the store is the database: a worker killed later leaves no directory behind
    w.replace["send_message"] = [&](agentrt::arguments const&, agentrt::call_context const& c) -> agentrt::tool_result {
        std::string line = std::string(c.run_id) + " " + std::to_string(c.step_index) + "\n";
        int fd = ::open(effects.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0600);
        (void)!::write(fd, line.data(), line.size());
        ::close(fd);
        return agentrt::tool_output{{{"sent", true}}, "sent"};
    };
    auto s = agentrt::store::open(where, {.durability = agentrt::durability::process_crash});
    if (!s)
        ::_exit(3);
    agentrt::testkit::scripted_agent agent(script());
    agentrt::gate_options options; // real clocks: leases of killed workers are freed by liveness, not expiry
    options.lease_duration = std::chrono::seconds(30);
    agentrt::worker worker(*s, w.table, w.policy, agent, options);
    for (int idle = 0; idle < 20;) {
        auto done = worker.run_once();
        bool const nothing = !done || done->empty(); // a store that failed is tried again, as a consumer's loop would
        idle = nothing ? idle + 1 : 0;
        if (nothing)
            ::usleep(20'000);
    }
    ::_exit(0);
}

} // namespace

TEST_CASE("workers on many processes share runs while random workers are killed: no tool ran twice without an "
          "approval, every run finished, and verify and check pass") {
    auto where = test_support::fresh_postgres_store();
    temp_dir dir;
    fs::path effects = dir.path / "effects";
    world w;
    auto s = agentrt::store::open(where).value();
    {
        agentrt::gate g(s, w.table, w.policy);
        for (int i = 0; i < runs; ++i)
            g.begin("mail customer " + std::to_string(i), "run-" + std::to_string(i)).value().release().value();
    }

    std::mt19937 random(20261202);
    std::vector<pid_t> alive;
    auto spawn = [&] {
        std::fflush(nullptr);
        pid_t child = ::fork();
        if (child == 0)
            work(where, effects);
        alive.push_back(child);
    };
    for (int i = 0; i < workers; ++i)
        spawn();
    int kills = 0;
    for (; kills < 40; ++kills) {
        ::usleep(std::uniform_int_distribution<int>(10'000, 60'000)(random));
        auto victim = alive.begin() + std::uniform_int_distribution<std::size_t>(0, alive.size() - 1)(random);
        ::kill(*victim, SIGKILL);
        ::waitpid(*victim, nullptr, 0);
        alive.erase(victim);
        spawn();
    }
    for (auto pid : alive) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }

    // What the kills left waiting for an operator, an operator approves; one more worker finishes it.
    int approved = 0;
    for (int round = 0; round < 5; ++round) {
        auto pending = agentrt::pending_approvals(s);
        if (pending.empty())
            break;
        approved += int(pending.size());
        for (auto const& a : pending)
            agentrt::approve(s, a.run_id, a.step_index, a.hash, agentrt::operator_options{}).value();
        agentrt::testkit::scripted_agent agent(script());
        w.replace["send_message"] = [&](agentrt::arguments const&,
                                        agentrt::call_context const& c) -> agentrt::tool_result {
            std::ofstream(effects, std::ios::app) << c.run_id << " " << c.step_index << "\n";
            return agentrt::tool_output{{{"sent", true}}, "sent"};
        };
        REQUIRE(agentrt::worker(s, w.table, w.policy, agent).run_once());
    }

    std::map<std::string, int> sent; // "run step" -> times the message went out
    std::ifstream in(effects);
    for (std::string run, step; in >> run >> step;)
        ++sent[run + " " + step];
    int completed = 0;
    for (auto const& run : agentrt::list_runs(s, {}, runs + 1)) {
        completed += run.status == agentrt::run_status::completed;
        auto details = agentrt::read_run(s, run.id).value();
        for (auto const& step : details.steps) {
            if (step.tool != "send_message")
                continue;
            int approvals = 0;
            for (auto const& a : details.approvals)
                approvals += a.step_index == step.index && a.status == agentrt::approval_status::approved;
            CHECK_MESSAGE(sent[run.id + " " + std::to_string(step.index)] <= 1 + approvals, step.id());
        }
    }
    MESSAGE(kills << " workers killed; " << approved << " interrupted side effects approved; " << completed << " of "
                  << runs << " runs completed");
    CHECK(completed == runs);
    auto report = agentrt::check_invariants(s);
    CHECK_MESSAGE(report.ok(), (report.problems.empty() ? std::string() : report.problems.front()));
    CHECK(agentrt::verify(s).ok());
}
