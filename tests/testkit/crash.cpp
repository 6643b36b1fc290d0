// The crash harness: processes killed at each point (simulated or real), resumed, and held to the invariants.
#include "shop.hpp"

#include <agentrt/runtime/reads.hpp>

#include "support/logical_store.hpp"
#include "support/recording_reporter.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <thread>

using namespace shop_test;

namespace {

// Runs the scenario with `crashes` in a store of the test's own and dumps what it recorded.
std::string logical_store_after(scenario s, std::vector<crash> const& crashes) {
    std::string pattern = (std::filesystem::temp_directory_path() / "agentrt-logical-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()));
    s.store = pattern;
    auto r = run_scenario(s, crashes);
    CHECK_MESSAGE(r.ok(), problems_of(r));
    CHECK(r.crashes_fired == crashes);
    std::string out = test_support::logical_store(agentrt::store::open(r.store, {s.durability}).value());
    std::filesystem::remove_all(pattern);
    return out;
}

// Runs the test case once per crash mode.
crash_mode each_mode() {
    crash_mode mode = crash_mode::simulated;
    SUBCASE("simulated crashes") {
        mode = crash_mode::simulated;
    }
    SUBCASE("process crashes") {
        mode = crash_mode::process;
    }
    return mode;
}

} // namespace

TEST_SUITE("testkit") {

    TEST_CASE("crash harness: a scenario without crashes completes and holds its invariants") {
        auto r = run_scenario(shop_scenario(each_mode()));
        CHECK_MESSAGE(r.ok(), problems_of(r));
        CHECK(r.run.status == agentrt::run_status::completed);
        CHECK(r.resumes == 0);
        CHECK(r.invocations_of("lookup_order") == 1);
        CHECK(r.invocations_of("send_message") == 1);
        CHECK(r.steps.size() == 3);
    }

    TEST_CASE("crash harness: a side effect lost in a crash runs again only when approved") {
        auto r = run_scenario(shop_scenario(each_mode()), {{1, crash_point::after_effect_before_outcome}});
        CHECK_MESSAGE(r.ok(), problems_of(r));
        CHECK(r.crashes_fired == std::vector<crash>{{1, crash_point::after_effect_before_outcome}});
        CHECK(r.resumes == 1);
        CHECK(r.run.status == agentrt::run_status::completed);
        CHECK(r.invocations_of("send_message") == 2); // once lost, once approved
        REQUIRE(r.approvals.size() == 1);
        CHECK(r.approvals[0].kind == "interrupted_side_effect");
        CHECK(r.approvals[0].status == agentrt::approval_status::approved);
        CHECK(!r.invocations[1].returned);
    }

    TEST_CASE("crash harness: an operator who rejects: the lost side effect never runs again") {
        auto s = shop_scenario(each_mode());
        s.answer = [](agentrt::approval_record const&) { return operator_answer::reject; };
        auto r = run_scenario(s, {{1, crash_point::after_effect_before_outcome}});
        CHECK_MESSAGE(r.ok(), problems_of(r));
        CHECK(r.run.status == agentrt::run_status::failed);
        CHECK(r.run.reason == "approval_rejected");
        CHECK(r.invocations_of("send_message") == 1);
    }

    TEST_CASE("crash harness: a reconciled side effect is not run again") {
        auto s = shop_scenario(each_mode());
        s.reconcile = [](agentrt::step_record const&, agentrt::tool_entry const&) {
            return agentrt::reconciliation{agentrt::reconcile_answer::completed, {{"sent", true}}, {}, {}};
        };
        auto r = run_scenario(s, {{1, crash_point::after_effect_before_outcome}});
        CHECK_MESSAGE(r.ok(), problems_of(r));
        CHECK(r.run.status == agentrt::run_status::completed);
        CHECK(r.invocations_of("send_message") == 1);
        CHECK(r.approvals.empty());
    }

    TEST_CASE("crash harness: a crash right after a granted approval is re-allowed never runs the request twice") {
        auto r = run_scenario(asking_scenario(each_mode()), {{1, crash_point::after_attach_allowed}});
        CHECK_MESSAGE(r.ok(), problems_of(r));
        CHECK(r.crashes_fired == std::vector<crash>{{1, crash_point::after_attach_allowed}});
        // Step 1, the send, is the one the grant re-allowed.
        CHECK(std::any_of(r.events.begin(), r.events.end(), [](agentrt::event_record const& e) {
            return e.is(agentrt::event_type::step_policy) && e.data.contains("reevaluation") &&
                   e.data.at("step").to_number<std::uint64_t>() == 1;
        }));
        CHECK(r.resumes == 1);
        CHECK(r.run.status == agentrt::run_status::completed);
        CHECK(r.invocations_of("send_message") == 1); // the dead process never reached the tool
        // The start the dead process recorded is settled by the operator, and the policy asks again.
        std::vector<std::string> kinds;
        for (auto const& a : r.approvals)
            kinds.push_back(a.kind);
        CHECK(kinds == std::vector<std::string>{"outbound_mail", "interrupted_side_effect", "outbound_mail"});
    }

    TEST_CASE("crash harness: a crash right after an approved send is interrupted runs it again only when approved") {
        auto r = run_scenario(asking_scenario(each_mode()), {{1, crash_point::after_effect_before_outcome},
                                                             {1, crash_point::after_step_interrupted}});
        CHECK_MESSAGE(r.ok(), problems_of(r));
        CHECK(r.crashes_fired.size() == 2);
        CHECK(r.resumes == 2);
        CHECK(r.run.status == agentrt::run_status::completed);
        CHECK(r.invocations_of("send_message") == 2); // once lost, once approved again
    }

    TEST_CASE("crash harness: explore crashes a scenario that pauses for approval at every point") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        auto summary = explore(asking_scenario(each_mode()));
        CHECK(summary.failures == 0);
        for (auto const& r : recorded.reports)
            FAIL_CHECK(r.message);
        auto tried = [&](std::string const& point) {
            return std::any_of(recorded.lines.begin(), recorded.lines.end(),
                               [&](std::string const& l) { return l.find(" " + point + ": ok") != std::string::npos; });
        };
        // The run resumes once, on the grant, which re-allows the send of step 1.
        CHECK(tried("step 1 after_run_resumed"));
        CHECK(tried("step 1 after_attach_allowed"));
        CHECK(tried("step 1 after_tool_started"));
        CHECK(summary.crashes_tried == recorded.lines.size() - 1);
    }

    TEST_CASE("crash harness: several crashes in one scenario, each in a fresh process") {
        auto r = run_scenario(shop_scenario(each_mode()), {{0, crash_point::after_step_decided},
                                                           {1, crash_point::after_tool_started},
                                                           {2, crash_point::after_run_resumed}}); // the second resume
        CHECK_MESSAGE(r.ok(), problems_of(r));
        CHECK(r.crashes_fired.size() == 3);
        CHECK(r.resumes == 3);
    }

    TEST_CASE("crash harness: a requested crash that is never reached is a failure") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        auto s = shop_scenario();
        s.keep_failed_store = false; // failing is the point
        CHECK(!check_scenario(s, {{7, crash_point::after_step_started}}));
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].message.find("crash step 7 after_step_started was requested but never reached") !=
              std::string::npos);
        CHECK(recorded.reports[0].message.find("store removed") != std::string::npos);
    }

    TEST_CASE("crash harness: a failing run's temporary store is kept for inspection, a passing one removed") {
        auto passed = run_scenario(shop_scenario());
        CHECK(passed.ok());
        CHECK_FALSE(std::filesystem::exists(passed.store));
        auto failed = run_scenario(shop_scenario(), {{7, crash_point::after_step_started}});
        CHECK_FALSE(failed.ok());
        CHECK(std::filesystem::exists(failed.store));
        std::filesystem::remove_all(failed.store.parent_path());

        // However it fails: here the loop never begins the run, so there is no run to read back.
        auto s = shop_scenario();
        s.agent = nullptr;
        s.loop = [](agentrt::gate&, loop_start const&) -> agentrt::result<void> { return {}; };
        auto kept = run_scenario(s);
        CHECK_FALSE(kept.ok());
        CHECK(std::filesystem::exists(kept.store));
        std::filesystem::remove_all(kept.store.parent_path());
        s.keep_failed_store = false;
        auto removed = run_scenario(s);
        CHECK_FALSE(removed.ok());
        CHECK_FALSE(std::filesystem::exists(std::filesystem::path(removed.store).parent_path()));
    }

    TEST_CASE("crash harness: explore_random tries schedules of several crashes and finds nothing wrong") {
        CHECK(explore_random(shop_scenario(), {.cases = 8, .max_crashes = 3, .seed = 7}));
    }

    TEST_CASE("crash harness: explore_random whose schedules never crash explored nothing, and fails") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        CHECK(!explore_random(shop_scenario(), {.cases = 3, .max_crashes = 0, .seed = 7}));
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].message ==
              "explore_random: no schedule crashed anywhere, so nothing was explored; try more cases or a larger "
              "max_crashes");
    }

    namespace {
    // An agent that cannot bear to see its own interrupted step: it aborts the process.
    struct fragile_agent final : agentrt::agent {
        agentrt::decision decide(agentrt::agent_view const& view) override {
            for (auto const& step : view.steps)
                if (step.status == agentrt::step_status::interrupted)
                    std::abort();
            return view.step_index == 0 ? agentrt::decision::call("lookup_order", R"({"order_id":"ord-7"})")
                                        : agentrt::decision::complete("done");
        }
    };
    } // namespace

    namespace {
    // An agent that throws what no handler for std::exception catches.
    struct throwing_agent final : agentrt::agent {
        agentrt::decision decide(agentrt::agent_view const&) override { throw 42; }
    };
    } // namespace

    TEST_CASE("crash harness: a process that throws what is not a std::exception fails its scenario, and only its "
              "own process goes on") {
        auto s = shop_scenario(crash_mode::process);
        s.agent = [] { return std::make_unique<throwing_agent>(); };
        s.keep_failed_store = false;
        pid_t const parent = ::getpid();
        scenario_result r;
        try {
            r = run_scenario(s);
        } catch (...) {
        }
        if (::getpid() != parent)
            ::_exit(9); // the exception escaped into the forked child: it must not run the suite's tests
        CHECK_FALSE(r.ok());
        bool named = false;
        for (auto const& p : r.problems)
            named =
                named || p.find("process 0: threw an exception not derived from std::exception") != std::string::npos;
        CHECK_MESSAGE(named, (r.problems.empty() ? std::string("no problem") : r.problems.front()));
        CHECK_FALSE(std::filesystem::exists(r.store)); // removed by the scenario's process once
    }

    TEST_CASE("crash harness: explore_random reports a failing schedule, shrunk") {
        auto s = shop_scenario(crash_mode::process); // the agent aborts its process
        s.agent = [] { return std::make_unique<fragile_agent>(); };
        s.keep_failed_store = false;
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        CHECK(!explore_random(s, {.cases = 30, .max_crashes = 3, .seed = 11}));
        REQUIRE(recorded.reports.size() == 1);
        auto const& message = recorded.reports[0].message;
        CHECK(message.starts_with("explore_random: Falsifiable"));
        CHECK(message.find("was killed by signal 6") != std::string::npos);
        // Shrunk: one crash is enough to make the agent see an interrupted step.
        CHECK(message.find("scenario with crashes [step 0 ") != std::string::npos);
        CHECK(message.find(", step") == std::string::npos);
    }

    TEST_CASE("crash harness: explore crashes at every point of every step and finds nothing wrong") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        auto summary = explore(shop_scenario(each_mode()));
        CHECK(summary.crashes_tried >= 10);
        CHECK(summary.failures == 0);
        CHECK(summary.resumes >= summary.crashes_tried);
        for (auto const& r : recorded.reports)
            FAIL_CHECK(r.message);
    }

    TEST_CASE("crash harness: two runs of a scenario record the same logical store, in either crash mode") {
        std::vector<crash> const crashes{{1, crash_point::after_effect_before_outcome},
                                         {2, crash_point::after_step_decided}};
        auto simulated = logical_store_after(shop_scenario(crash_mode::simulated), crashes);
        auto again = logical_store_after(shop_scenario(crash_mode::simulated), crashes);
        auto in_processes = logical_store_after(shop_scenario(crash_mode::process), crashes);
        CHECK(std::count(simulated.begin(), simulated.end(), '\n') > 20);
        CHECK(simulated.find(R"("type":"step.interrupted")") != std::string::npos);
        CHECK(simulated.find(R"("kind":"interrupted_side_effect")") != std::string::npos);
        CHECK(simulated == again);
        CHECK(simulated == in_processes);
    }

    TEST_CASE("crash harness: explore logs a line per crash and a summary line") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        auto summary = explore(shop_scenario());
        REQUIRE(recorded.lines.size() == summary.crashes_tried + 1);
        CHECK(recorded.lines[0].starts_with("explore: 1/" + std::to_string(summary.crashes_tried) + " step 0 "));
        CHECK(recorded.lines[0].ends_with(": ok, 1 resumes"));
        CHECK(recorded.lines.back().starts_with("explore: " + std::to_string(summary.crashes_tried) +
                                                " crashes tried, "));
        CHECK(recorded.lines.back().ends_with("s (simulated mode)"));
    }

    TEST_CASE("crash harness: every input the agent was handed is in the result") {
        auto r = run_scenario(shop_scenario(each_mode()), {{1, crash_point::after_tool_finished}});
        CHECK_MESSAGE(r.ok(), problems_of(r));
        REQUIRE(r.inputs.size() == 3);
        CHECK((r.inputs[0].step == 0 && r.inputs[0].process == 0 && r.inputs[0].steps_seen == 0));
        CHECK((r.inputs[1].step == 1 && r.inputs[1].process == 0 && r.inputs[1].steps_seen == 1));
        // The commit that finished step 1 opened step 2; the next process left it behind.
        CHECK((r.inputs[2].step == 3 && r.inputs[2].process == 1 && r.inputs[2].steps_seen == 3));
    }

    TEST_CASE("crash harness: a tool a crashed simulated process left running records nothing when it returns") {
        auto first_call = std::make_shared<std::atomic<bool>>(true);
        auto s = shop_scenario();
        s.tools = [first_call] {
            auto base = shop{}.table();
            std::vector<agentrt::tool_entry> entries(base.entries().begin(), base.entries().end());
            for (auto& e : entries)
                if (e.name == "send_message") {
                    e.timeout = std::chrono::milliseconds(20);
                    e.call = [first_call, inner = e.call](auto const& a, auto const& c) {
                        if (first_call->exchange(false))
                            std::this_thread::sleep_for(std::chrono::milliseconds(200)); // overruns
                        return inner(a, c);
                    };
                }
            return agentrt::tool_table(std::move(entries));
        };
        // The overrun interrupts step 1 and the process dies right after, its tool still running.
        auto r = run_scenario(s, {{1, crash_point::after_step_interrupted}});
        CHECK_MESSAGE(r.ok(), problems_of(r));
        CHECK(r.crashes_fired.size() == 1);
        CHECK(r.run.status == agentrt::run_status::completed);
        CHECK(std::none_of(r.events.begin(), r.events.end(),
                           [](agentrt::event_record const& e) { return e.data.contains("late"); }));
        CHECK(r.invocations_of("send_message") == 2); // the overrun call, then once more when approved
    }

    namespace {
    // A consumer's own loop over the gate, deciding by script.
    gate_loop scripted_loop(std::vector<agentrt::decision> script, bool execute = true) {
        return [script, execute](agentrt::gate& g, loop_start const& start) -> agentrt::result<void> {
            auto s =
                start.resume ? g.attach(start.run_id) : g.begin(std::string(start.goal), std::string(start.run_id));
            if (!s)
                return s.error();
            if (s->pending_execution())
                if (auto done = s->execute(); !done)
                    return done.error();
            while (s->run().status == agentrt::run_status::running) {
                auto opened = s->open_step();
                if (!opened)
                    return opened.error();
                if (!*opened)
                    break;
                auto index = **opened;
                auto step =
                    s->propose(index < script.size() ? script[index] : agentrt::decision::fail("past the script"));
                if (!step)
                    return step.error();
                if (!execute)
                    return {}; // forgets the allowed call
                if (s->pending_execution())
                    if (auto done = s->execute(); !done)
                        return done.error();
            }
            return {};
        };
    }

    std::vector<agentrt::decision> const shop_script{agentrt::decision::call("lookup_order", R"({"order_id":"ord-7"})"),
                                                     agentrt::decision::call("send_message", mail),
                                                     agentrt::decision::complete("refund mailed")};
    } // namespace

    TEST_CASE("crash harness: a consumer's own gate loop is explored like the driver") {
        auto s = shop_scenario(each_mode());
        s.agent = nullptr;
        s.loop = scripted_loop(shop_script);
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        auto summary = explore(s);
        CHECK(summary.crashes_tried >= 10);
        CHECK(summary.failures == 0);
        for (auto const& r : recorded.reports)
            FAIL_CHECK(r.message);
        auto r = run_scenario(s, {{1, crash_point::after_effect_before_outcome}});
        CHECK(r.run.status == agentrt::run_status::completed);
        CHECK(r.invocations_of("send_message") == 2);
    }

    TEST_CASE("crash harness: a broken gate loop is reported") {
        auto s = shop_scenario(each_mode());
        s.agent = nullptr;
        s.loop = scripted_loop(shop_script, false);
        s.keep_failed_store = false;
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        CHECK(!check_scenario(s));
        REQUIRE(recorded.reports.size() == 1);
        auto const& message = recorded.reports[0].message;
        CHECK(message.find("process 0: the gate loop returned while run run-1 was still running") != std::string::npos);
        CHECK(message.find("run run-1 was left running") != std::string::npos);
    }

    TEST_CASE("crash harness: a tool reached more often than its recorded starts is reported") {
        auto s = shop_scenario(each_mode());
        s.agent = nullptr;
        // Calls the send of step 1 once itself, behind the gate's back, before driving the run.
        s.loop = [inner = scripted_loop(shop_script)](agentrt::gate& g,
                                                      loop_start const& start) -> agentrt::result<void> {
            if (!start.resume) {
                auto call = g.tools().accept("send_message", mail);
                if (!call)
                    return call.error();
                agentrt::call_context context;
                context.run_id = start.run_id;
                context.step_index = 1;
                if (auto sent = g.tools().at(call->index).call(call->args, context); !sent)
                    return sent.error();
            }
            return inner(g, start);
        };
        s.keep_failed_store = false;
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        CHECK(!check_scenario(s));
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].message.find("step 1: the tool was reached 2 times but only 1 starts are recorded") !=
              std::string::npos);
    }

    TEST_CASE("crash harness: kill_anywhere kills processes at random instants and the invariants hold") {
        CHECK(explore_random(shop_scenario(crash_mode::process),
                             {.cases = 12, .max_crashes = 3, .seed = 5, .kill_anywhere = true}));
    }

    TEST_CASE("crash harness: kill_anywhere needs real processes") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        CHECK(!explore_random(shop_scenario(crash_mode::simulated), {.kill_anywhere = true}));
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].message.find("needs crash_mode::process") != std::string::npos);
    }
}
