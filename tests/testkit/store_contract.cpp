// The store contract suite, run against the LMDB store.
#include <agentrt/testkit/store_contract.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

TEST_SUITE("testkit") {

    TEST_CASE("store contract: the LMDB store keeps every promise of the suite") {
        std::string pattern = (std::filesystem::temp_directory_path() / "agentrt-contract-XXXXXX").string();
        std::filesystem::path dir = ::mkdtemp(pattern.data());
        for (auto level : {agentrt::durability::power_loss, agentrt::durability::process_crash}) {
            CAPTURE(int(level));
            auto path = dir / (level == agentrt::durability::power_loss ? "power" : "process");
            CHECK(agentrt::testkit::check_store_contract([&] { return agentrt::store::open(path, {level}).value(); }));
        }
        std::filesystem::remove_all(dir);
    }
}
