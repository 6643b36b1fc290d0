// The store contract suite, run against the LMDB store, and against a setup that breaks a promise.
#include <agentrt/testkit/engine_decorator.hpp>
#include <agentrt/testkit/store_contract.hpp>

#include "support/recording_reporter.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

std::filesystem::path fresh_directory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "agentrt-contract-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()));
    return pattern;
}

// Commits what a write did before it threw: a write is no longer atomic.
struct half_committing : agentrt::testkit::engine_decorator {
    using engine_decorator::engine_decorator;
    void write(std::function<void(agentrt::engine_writer&)> const& work, bool flush) override {
        std::exception_ptr thrown;
        engine_decorator::write(
            [&](agentrt::engine_writer& w) {
                try {
                    work(w);
                } catch (...) {
                    thrown = std::current_exception();
                }
            },
            flush);
        if (thrown)
            std::rethrow_exception(thrown);
    }
};

// Reads a run's steps newest first.
struct steps_reversed : agentrt::testkit::engine_decorator {
    using engine_decorator::engine_decorator;
    struct reader : agentrt::store_reader {
        agentrt::store_reader const& inner;
        explicit reader(agentrt::store_reader const& r) : inner(r) {}
        std::optional<agentrt::run_record> run(std::string_view id) const override { return inner.run(id); }
        std::vector<agentrt::run_record> runs_before(std::uint64_t o, std::size_t n) const override {
            return inner.runs_before(o, n);
        }
        std::optional<agentrt::step_record> step(std::string_view id, std::uint64_t i) const override {
            return inner.step(id, i);
        }
        std::vector<agentrt::step_record> steps(std::string_view id) const override {
            auto all = inner.steps(id);
            std::reverse(all.begin(), all.end());
            return all;
        }
        std::vector<agentrt::approval_record> approvals(std::string_view id) const override {
            return inner.approvals(id);
        }
        std::vector<agentrt::event_record> events(std::string_view id) const override { return inner.events(id); }
        std::vector<agentrt::model_call_record> model_calls(std::string_view id) const override {
            return inner.model_calls(id);
        }
        std::optional<std::string> meta(std::string_view k) const override { return inner.meta(k); }
        std::optional<std::string> tool_spec(std::string_view h) const override { return inner.tool_spec(h); }
    };
    void read(std::function<void(agentrt::store_reader const&)> const& work) const override {
        engine_decorator::read([&](agentrt::store_reader const& r) { work(reader(r)); });
    }
};

std::string broken_report(std::function<std::shared_ptr<agentrt::engine>()> const& open) {
    test_support::recording_reporter recorded;
    agentrt::testkit::scoped_reporter installed(recorded);
    CHECK_FALSE(agentrt::testkit::check_engine_contract(open));
    REQUIRE(recorded.reports.size() == 1);
    return recorded.reports[0].message;
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

    TEST_CASE("store contract: the LMDB engine keeps every promise of the suite") {
        auto dir = fresh_directory();
        CHECK(agentrt::testkit::check_engine_contract([&] { return agentrt::store::open(dir).value().engine(); }));
        std::filesystem::remove_all(dir);
    }

    TEST_CASE("store contract: an engine that commits half a failed write is reported") {
        auto dir = fresh_directory();
        auto message = broken_report(
            [&] { return std::make_shared<half_committing>(agentrt::store::open(dir).value().engine()); });
        CHECK(message == "store contract: 2 promise(s) broken:\n  an exception inside a write leaves the store as it "
                         "was\n  what was committed survives reopening");
        std::filesystem::remove_all(dir);
    }

    TEST_CASE("store contract: an engine that reads a run's steps out of order is reported") {
        auto dir = fresh_directory();
        auto message =
            broken_report([&] { return std::make_shared<steps_reversed>(agentrt::store::open(dir).value().engine()); });
        CHECK(message == "store contract: 1 promise(s) broken:\n  a run's steps read back in index order");
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
