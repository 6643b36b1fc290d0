// The store contract suite, run against the LMDB store, and against a setup that breaks a promise.
#include <agentrt/testkit/store_contract.hpp>

#include "support/recording_reporter.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

std::filesystem::path fresh_directory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "agentrt-contract-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()));
    return pattern;
}

} // namespace

TEST_SUITE("testkit") {

    TEST_CASE("store contract: the LMDB store keeps every promise of the suite") {
        auto dir = fresh_directory();
        for (auto level : {agentrt::durability::power_loss, agentrt::durability::process_crash}) {
            CAPTURE(int(level));
            auto path = dir / (level == agentrt::durability::power_loss ? "power" : "process");
            CHECK(agentrt::testkit::check_store_contract([&] { return agentrt::store::open(path, {level}).value(); }));
        }
        std::filesystem::remove_all(dir);
    }

    TEST_CASE("store contract: a store that breaks a promise is reported") {
        // Each open hands out a new, empty store: nothing committed survives reopening.
        auto dir = fresh_directory();
        int opened = 0;
        auto forgetful = [&] { return agentrt::store::open(dir / std::to_string(++opened)).value(); };
        test_support::recording_reporter recorded;
        agentrt::testkit::scoped_reporter installed(recorded);
        CHECK(!agentrt::testkit::check_store_contract(forgetful));
        CHECK(opened == 2);
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].message ==
              "store contract: 1 promise(s) broken:\n  what was committed survives reopening");
        std::filesystem::remove_all(dir);
    }
}
