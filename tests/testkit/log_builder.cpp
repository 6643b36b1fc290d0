// The log builder writes contradictory stores; the invariant checker must find every contradiction.
#include <agentrt/testkit/log_builder.hpp>

#include <agentrt/runtime/check.hpp>
#include <agentrt/runtime/verify.hpp>

#include "support/doctest_result.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

using agentrt::approval_status;
using agentrt::run_status;
using agentrt::step_status;
using agentrt::testkit::log_builder;

namespace {

struct built_store {
    std::filesystem::path dir;
    agentrt::store store;

    static built_store open() {
        std::string pattern = (std::filesystem::temp_directory_path() / "agentrt-log-XXXXXX").string();
        std::filesystem::path dir = ::mkdtemp(pattern.data());
        return {dir, agentrt::store::open(dir / "store").value()};
    }
    ~built_store() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};

std::vector<std::string> problems(log_builder const& log) {
    auto b = built_store::open();
    log.write(b.store);
    CHECK_MESSAGE(agentrt::verify(b.store).ok(), agentrt::verify(b.store).first_break);
    return agentrt::check_invariants(b.store).problems;
}

log_builder finished(std::string id) {
    return std::move(log_builder(id)
                         .step(0, step_status::done, "send_message")
                         .tool_started(0)
                         .tool_finished(0)
                         .status(run_status::completed, "goal_completed"));
}

} // namespace

TEST_SUITE("testkit") {

    TEST_CASE("log builder: a consistent log has no problems, and its chain verifies") {
        CHECK(problems(finished("r-1")).empty());
    }

    TEST_CASE("log builder: a step that started its tool twice without an approval is found") {
        auto log = log_builder("r-1");
        log.step(0, step_status::done, "send_message").tool_started(0).interrupted(0).tool_started(0).tool_finished(0);
        log.status(run_status::completed, "goal_completed");
        CHECK(problems(log) ==
              std::vector<std::string>{"step r-1/0 started its tool again (start 2) without an approval"});
    }

    TEST_CASE("log builder: a start without an approval after a step's approved first start is found") {
        auto log = log_builder("r-1");
        log.step(0, step_status::done, "send_message");
        log.approval(0, "external_message", approval_status::approved, true);
        log.tool_started(0, log.approval_hash(0)).tool_finished(0).tool_started(0).tool_finished(0);
        log.status(run_status::completed, "goal_completed");
        CHECK(problems(log) ==
              std::vector<std::string>{"step r-1/0 started its tool again (start 2) without an approval"});
    }

    TEST_CASE("log builder: a second start granted by an approval is not a problem") {
        auto log = log_builder("r-1");
        log.step(0, step_status::done, "send_message").tool_started(0).interrupted(0);
        log.approval(0, "interrupted_side_effect", approval_status::approved, true);
        log.tool_started(0, log.approval_hash(0)).tool_finished(0).status(run_status::completed, "goal_completed");
        CHECK(problems(log).empty());
    }

    TEST_CASE("log builder: an approval that granted two starts is found") {
        auto log = log_builder("r-1");
        log.step(0, step_status::done, "send_message").tool_started(0).interrupted(0);
        log.approval(0, "interrupted_side_effect", approval_status::approved, true);
        auto hash = log.approval_hash(0);
        log.tool_started(0, hash).interrupted(0).tool_started(0, hash).tool_finished(0);
        log.status(run_status::completed, "goal_completed");
        CHECK(problems(log) == std::vector<std::string>{"approval " + hash +
                                                        " of step r-1/0 granted 2 starts but was approved 1 times"});
    }

    TEST_CASE("log builder: a tool start under an approval that was never approved is found") {
        auto log = log_builder("r-1");
        log.step(0, step_status::done, "send_message").tool_started(0).interrupted(0);
        log.approval(0, "interrupted_side_effect", approval_status::pending);
        auto hash = log.approval_hash(0);
        log.tool_started(0, hash).tool_finished(0).status(run_status::completed, "goal_completed");
        CHECK(problems(log) == std::vector<std::string>{"approval " + hash +
                                                        " of step r-1/0 granted 1 starts but was approved 0 times"});
    }

    TEST_CASE("log builder: a step interrupted again asks again, and two approvals of one request grant two starts") {
        auto log = log_builder("r-1");
        log.step(0, step_status::done, "send_message").tool_started(0).interrupted(0);
        log.approval(0, "interrupted_side_effect", approval_status::approved, true);
        auto hash = log.approval_hash(0);
        log.tool_started(0, hash).interrupted(0);
        log.approval(0, "interrupted_side_effect", approval_status::approved, true);
        CHECK(log.approval_hash(0) == hash); // the same request, so the same hash
        log.tool_started(0, hash).tool_finished(0).status(run_status::completed, "goal_completed");
        CHECK(problems(log).empty());
    }

    TEST_CASE("log builder: a tool start that nothing closes is found") {
        auto log = log_builder("r-1");
        log.step(0, step_status::done, "send_message").tool_started(0).status(run_status::completed, "goal_completed");
        CHECK(problems(log) ==
              std::vector<std::string>{"step r-1/0 started its tool and no finish or interruption closes it"});
    }

    TEST_CASE("log builder: a late finish does not close a start") {
        auto log = log_builder("r-1");
        log.step(0, step_status::done, "send_message").tool_started(0).tool_finished(0, true);
        log.status(run_status::completed, "goal_completed");
        CHECK(problems(log) ==
              std::vector<std::string>{"step r-1/0 started its tool and no finish or interruption closes it"});
    }

    TEST_CASE("log builder: steps left deciding or executing are found") {
        auto log = log_builder("r-1");
        log.step(0, step_status::deciding)
            .step(1, step_status::executing, "send_message")
            .tool_started(1)
            .tool_finished(1);
        log.status(run_status::failed, "internal_error");
        CHECK(problems(log) == std::vector<std::string>{"step r-1/0 is left deciding", "step r-1/1 is left executing"});
    }

    TEST_CASE("log builder: a lease held on a run that ended is found") {
        auto log = finished("r-1");
        log.lease("host/1/token", 1, 1'800'000'000'000);
        CHECK(problems(log) == std::vector<std::string>{"run r-1 (completed) has its lease held by host/1/token"});
    }

    TEST_CASE("log builder: a run that ended without a reason is found") {
        auto log = log_builder("r-1");
        log.status(run_status::failed);
        CHECK(problems(log) == std::vector<std::string>{"run r-1 ended without a reason"});
    }

    TEST_CASE("log builder: a run waiting with nothing to wait for is found") {
        auto log = log_builder("r-1");
        log.step(0, step_status::awaiting_approval, "send_message").status(run_status::waiting_for_approval);
        log.approval(0, "external_mail", approval_status::rejected);
        CHECK(problems(log) ==
              std::vector<std::string>{"run r-1 waits for approval but no approval is pending or granted"});
    }

    TEST_CASE("log builder: several runs in one store chain like real ones") {
        auto b = built_store::open();
        finished("r-1").write(b.store);
        finished("r-2").write(b.store);
        auto report = agentrt::verify(b.store);
        CHECK(report.ok());
        CHECK(report.runs == 2);
    }
}
