// Storage faults on purpose: the faulty engine, and explore_faults over the shop scenario.
#include "shop.hpp"

#include <agentrt/runtime/reads.hpp>
#include <agentrt/testkit/faults.hpp>

#include "runtime/fixture.hpp"
#include "support/recording_reporter.hpp"

#include <doctest/doctest.h>

#include <map>

using namespace shop_test;

namespace {

agentrt::run_record named(std::string id) {
    agentrt::run_record run;
    run.id = std::move(id);
    run.goal = "g";
    return run;
}

// Writes run `id` through `s` (flushed when asked); the error the write threw, if any.
std::optional<agentrt::error> write_run(agentrt::store& s, std::string const& id, bool flush = false) {
    try {
        s.write(
            [&](agentrt::store_writer& w) {
                auto run = named(id);
                w.put(run);
                w.put_meta("last", id);
            },
            flush);
    } catch (agentrt::exception const& e) {
        return e.error();
    }
    return std::nullopt;
}

bool has_run(agentrt::store const& s, std::string const& id) {
    return s.read([&](agentrt::store_reader const& r) { return r.run(id).has_value(); });
}

} // namespace

TEST_SUITE("testkit") {

    TEST_CASE("faulty engine: the N-th put fails with the chosen error, and none of its transaction is kept") {
        runtime_test::world w;
        auto real = w.open();
        auto faulty = std::make_shared<faulty_engine>(real.engine(), fault{fault_site::put, 3, fault_error::no_space});
        agentrt::store s(faulty);
        CHECK_FALSE(write_run(s, "run-a"));  // puts 1 and 2
        auto failed = write_run(s, "run-b"); // put 3: the run itself
        REQUIRE(failed);
        CHECK(failed->code == agentrt::errc::storage_full);
        CHECK(failed->message == "injected fault: mdb_put failed: No space left on device");
        CHECK(faulty->fired());
        CHECK_FALSE(has_run(s, "run-b"));
        CHECK(s.read([](agentrt::store_reader const& r) { return r.meta("last"); }) == "run-a");
        CHECK_FALSE(write_run(s, "run-c")); // only the N-th fails
        CHECK(has_run(s, "run-c"));
    }

    TEST_CASE("faulty engine: the N-th commit fails and keeps nothing, an I/O error is store_failed") {
        runtime_test::world w;
        auto real = w.open();
        agentrt::store s(
            std::make_shared<faulty_engine>(real.engine(), fault{fault_site::commit, 2, fault_error::io_error}));
        CHECK_FALSE(write_run(s, "run-a"));
        auto failed = write_run(s, "run-b");
        REQUIRE(failed);
        CHECK(failed->code == agentrt::errc::store_failed);
        CHECK(failed->message == "injected fault: mdb_txn_commit failed: Input/output error");
        CHECK_FALSE(has_run(s, "run-b"));
        CHECK(has_run(s, "run-a"));
    }

    TEST_CASE("faulty engine: the N-th sync fails after its flushed commit, which stands, unflushed commits pass") {
        runtime_test::world w;
        auto real = w.open();
        agentrt::store s(
            std::make_shared<faulty_engine>(real.engine(), fault{fault_site::sync, 1, fault_error::map_full}));
        CHECK_FALSE(write_run(s, "run-a")); // not flushed: no sync to fail
        auto failed = write_run(s, "run-b", true);
        REQUIRE(failed);
        CHECK(failed->code == agentrt::errc::storage_full);
        CHECK(has_run(s, "run-b")); // the caller was told it failed, and must treat it as maybe written
    }

    TEST_CASE("faulty engine: the N-th read fails with store_failed and changes nothing") {
        runtime_test::world w;
        auto real = w.open();
        CHECK_FALSE(write_run(real, "run-a"));
        auto faulty = std::make_shared<faulty_engine>(real.engine(), fault{fault_site::read, 2, fault_error::io_error});
        agentrt::store s(faulty);
        CHECK(has_run(s, "run-a"));
        try {
            (void)has_run(s, "run-a");
            FAIL("the second read did not fail");
        } catch (agentrt::exception const& e) {
            CHECK(e.error().code == agentrt::errc::store_failed);
            CHECK(e.error().message == "injected fault: mdb_get failed: Input/output error");
        }
        CHECK(faulty->fired());
        CHECK(has_run(s, "run-a")); // only the N-th fails
        CHECK_FALSE(write_run(s, "run-b"));
        CHECK(faulty->seen() == 3); // writes are not reads
        CHECK(has_run(real, "run-b"));
    }

    TEST_CASE("faulty engine: a full disk under drive is a typed error, not an exception, and the run resumes") {
        runtime_test::world w;
        auto real = w.open();
        agentrt::tool_table table = shop{}.table();
        auto policy = agentrt::lower_policy(trusting_policy{}, shop{});
        agentrt::testkit::scripted_agent agent(
            {agentrt::decision::call("lookup_order", R"({"order_id":"ord-7"})"), agentrt::decision::complete("done")});
        {
            agentrt::store s(
                std::make_shared<faulty_engine>(real.engine(), fault{fault_site::commit, 4, fault_error::no_space}));
            agentrt::driver d(s, table, policy, agent, w.options());
            auto driven = d.start("look up order 7");
            REQUIRE_FALSE(driven);
            CHECK(driven.error().code == agentrt::errc::storage_full);
        }
        agentrt::driver d(real, table, policy, agent, w.options());
        auto resumed = d.resume("run-1");
        REQUIRE_MESSAGE(resumed, resumed.error().to_string());
        CHECK(resumed->status == agentrt::run_status::completed);
        CHECK(agentrt::check_invariants(real).ok());
    }

    TEST_CASE("explore_faults: at every N of every site the shop's run gets a typed error, loses nothing, and "
              "finishes fault-free with no tool run twice without an approval") {
        std::map<fault_error, std::size_t> tried;
        for (auto error : {fault_error::no_space, fault_error::io_error, fault_error::map_full}) {
            CAPTURE(to_string(error));
            test_support::recording_reporter recorded;
            scoped_reporter installed(recorded);
            auto summary = explore_faults(shop_scenario(), error);
            CHECK(summary.failures == 0);
            CHECK(summary.faults_tried > 20);
            tried[error] = summary.faults_tried;
            for (auto const& r : recorded.reports)
                FAIL_CHECK(r.message);
        }
        CHECK(tried[fault_error::io_error] > tried[fault_error::no_space] + 10); // every read fails in turn too
    }

    TEST_CASE("explore_faults: a scenario that pauses for an approval, with the operator's calls and reads faulted "
              "too") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        auto writes = explore_faults(asking_scenario());
        auto with_reads = explore_faults(asking_scenario(), fault_error::io_error);
        CHECK(writes.failures == 0);
        CHECK(with_reads.failures == 0);
        CHECK(with_reads.faults_tried > writes.faults_tried + 10); // every read fails in turn too
        for (auto const& r : recorded.reports)
            FAIL_CHECK(r.message);
    }

    TEST_CASE("explore_faults: a consumer's gate loop gets a typed error from every session call at every fault") {
        auto s = shop_scenario();
        s.agent = nullptr;
        s.loop = [](agentrt::gate& g, loop_start const& start) -> agentrt::result<void> {
            auto session =
                start.resume ? g.attach(start.run_id) : g.begin(std::string(start.goal), std::string(start.run_id));
            if (!session)
                return session.error();
            for (;;) {
                auto open = session->open_step();
                if (!open)
                    return open.error();
                if (!*open)
                    return {};
                auto step =
                    session->propose(**open == 0 ? agentrt::decision::call("lookup_order", R"({"order_id":"ord-7"})")
                                                 : agentrt::decision::complete("done"));
                if (!step)
                    return step.error();
                if (session->pending_execution())
                    if (auto done = session->execute(); !done)
                        return done.error();
            }
        };
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        auto summary = explore_faults(s);
        CHECK(summary.failures == 0);
        CHECK(summary.faults_tried > 10);
        for (auto const& r : recorded.reports)
            FAIL_CHECK(r.message);
    }

    TEST_CASE("explore_faults: a gate loop that lets a storage error escape as an exception is reported") {
        auto s = shop_scenario();
        s.keep_failed_store = false; // failing is the point
        s.agent = nullptr;
        s.loop = [](agentrt::gate& g, loop_start const& start) -> agentrt::result<void> {
            auto session = start.resume ? g.attach(start.run_id).value()
                                        : g.begin(std::string(start.goal), std::string(start.run_id)).value();
            while (auto open = session.open_step().value()) {
                auto step = session
                                .propose(*open == 0 ? agentrt::decision::call("lookup_order", R"({"order_id":"ord-7"})")
                                                    : agentrt::decision::complete("done"))
                                .value(); // throws on a storage error: the defect explore_faults finds
                if (session.pending_execution())
                    (void)session.execute().value();
                (void)step;
            }
            return {};
        };
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        auto summary = explore_faults(s);
        CHECK(summary.failures > 0);
        REQUIRE_FALSE(recorded.reports.empty());
        CHECK(recorded.reports[0].message.find("the gate loop threw instead of returning an error") !=
              std::string::npos);
    }

    TEST_CASE("explore_faults: a scenario that writes nothing is reported, since no fault could fire") {
        auto s = shop_scenario();
        s.keep_failed_store = false;
        s.agent = nullptr;
        s.loop = [](agentrt::gate&, loop_start const&) -> agentrt::result<void> { return {}; };
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        auto summary = explore_faults(s);
        CHECK(summary.faults_tried == 0);
        REQUIRE_FALSE(recorded.reports.empty());
        CHECK(recorded.reports.back().message == "explore_faults: no fault fired: the scenario writes nothing");
    }
}
