// A store on a real filesystem that fills up: a small tmpfs, mounted in a mount namespace of a child
// process (as root, or in a user namespace), so the test changes nothing outside it.
#include <agentrt/runtime.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include "fixture.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sched.h>
#include <sstream>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace runtime_test;
using agentrt::decision;

namespace {

constexpr int cannot_mount = 77;

// In the child: a 1 MiB tmpfs at `at`, or why not.
std::string mount_small_filesystem(fs::path const& at) {
    int flags = CLONE_NEWNS | (::geteuid() == 0 ? 0 : CLONE_NEWUSER);
    if (::unshare(flags) != 0)
        return std::string("unshare: ") + std::strerror(errno);
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        return std::string("making mounts private: ") + std::strerror(errno);
    if (::mount("agentrt-test", at.c_str(), "tmpfs", 0, "size=1m,mode=0700") != 0)
        return std::string("mount tmpfs: ") + std::strerror(errno);
    return {};
}

// In the child: drives runs on the full filesystem; what went wrong, or "" when every promise held.
std::string fill_and_check(world& w) {
    auto s = agentrt::store::open(w.store_path);
    if (!s)
        return "open: " + s.error().to_string();
    std::string big(60'000, 'x'); // each run's goal: the filesystem fills after a dozen runs
    std::optional<agentrt::error> full;
    int completed = 0;
    for (int i = 0; i < 1000 && !full; ++i) {
        agentrt::testkit::scripted_agent agent({decision::call("lookup_order", lookup_args), decision::complete("ok")});
        agentrt::driver d(*s, w.table, w.policy, agent, w.options());
        auto run = d.start(big + std::to_string(i));
        if (run)
            ++completed;
        else
            full = run.error();
    }
    if (!full)
        return "the filesystem never filled";
    if (full->code != agentrt::errc::storage_full)
        return "the error was not storage_full: " + full->to_string();
    if (completed == 0)
        return "no run completed before the filesystem filled";
    auto report = agentrt::verify(*s);
    if (!report.ok())
        return "verify after the fault: " + report.first_break;
    auto checked = agentrt::check_invariants(*s, {.allow_in_progress = false});
    if (!checked.ok())
        return "check after the fault: " + checked.problems.front();
    if (report.runs < static_cast<std::uint64_t>(completed))
        return "a completed run was lost";
    return {};
}

} // namespace

TEST_CASE("a real filesystem filling up: the call returns storage_full, nothing committed is lost, and verify and "
          "check pass") {
    world w;
    fs::path mount_point = w.dir.path / "small";
    fs::create_directories(mount_point);
    fs::path result = w.dir.path / "result";
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        if (auto why = mount_small_filesystem(mount_point); !why.empty()) {
            std::ofstream(result) << why;
            std::_Exit(cannot_mount);
        }
        w.store_path = mount_point / "store";
        std::string problem;
        try {
            problem = fill_and_check(w);
        } catch (std::exception const& e) {
            problem = std::string("an exception escaped: ") + e.what();
        }
        std::ofstream(result) << problem;
        std::_Exit(problem.empty() ? 0 : 1);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    std::ifstream in(result);
    std::stringstream said;
    said << in.rdbuf();
    REQUIRE(WIFEXITED(status));
    if (WEXITSTATUS(status) == cannot_mount) {
        MESSAGE("this machine cannot mount a small filesystem for the test (" << said.str()
                                                                              << "); the injected faults of "
                                                                                 "testkit/faults.cpp still ran");
        return;
    }
    CHECK_MESSAGE(WEXITSTATUS(status) == 0, said.str());
}
