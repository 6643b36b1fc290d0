// The crash harness, its random schedules and its storage faults, against the PostgreSQL engine: the
// same proofs as for LMDB, each run of a scenario in a schema of its own.
#include "testkit/shop.hpp"

#include <agentrt/testkit/faults.hpp>

#include "support/postgres.hpp"
#include "support/recording_reporter.hpp"

#include <doctest/doctest.h>

using namespace shop_test;

namespace {

scenario on_postgresql(scenario s) {
    s.fresh_store = test_support::fresh_postgres_store;
    return s;
}

} // namespace

TEST_CASE("explore crashes the shop at every point, in simulated and in real processes, on PostgreSQL") {
    for (auto mode : {crash_mode::simulated, crash_mode::process}) {
        CAPTURE(mode == crash_mode::simulated ? "simulated" : "process");
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        auto summary = explore(on_postgresql(asking_scenario(mode)));
        CHECK(summary.failures == 0);
        CHECK(summary.crashes_tried > 10);
        for (auto const& r : recorded.reports)
            FAIL_CHECK(r.message);
    }
}

TEST_CASE("explore_random kills real processes at random instants on PostgreSQL, and the invariants hold") {
    CHECK(explore_random(on_postgresql(shop_scenario(crash_mode::process)),
                         {.cases = 10, .max_crashes = 3, .seed = 7, .kill_anywhere = true}));
}

TEST_CASE("explore_faults on PostgreSQL: every N of every site is a typed error, and nothing runs twice") {
    test_support::recording_reporter recorded;
    scoped_reporter installed(recorded);
    auto summary = explore_faults(on_postgresql(shop_scenario()));
    CHECK(summary.failures == 0);
    CHECK(summary.faults_tried > 20);
    for (auto const& r : recorded.reports)
        FAIL_CHECK(r.message);
}
