#include <agentrt/fuzz/check.hpp>

#include <agentrt/catalog/catalog.hpp>
#include <agentrt/catalog/schema_tool.hpp>

#include "support/test_tools.hpp"

#include <atomic>
#include <thread>

namespace {

using namespace test_tools;
namespace fuzz = agentrt::fuzz;
using tools = agentrt::catalog<lookup_order, send_message, wipe_account>;

fuzz::fuzz_check_options quick(std::uint64_t seed = 11) {
    fuzz::fuzz_check_options o;
    o.generation.seed = seed;
    o.generation.cases = 40;
    return o;
}

// The table with one entry changed.
template <class Change>
agentrt::tool_table changed(std::string const& name, Change change) {
    std::vector<agentrt::tool_entry> entries;
    auto original = tools{}.table();
    for (auto const& e : original.entries()) {
        entries.push_back(e);
        if (e.name == name)
            change(entries.back());
    }
    return agentrt::tool_table(std::move(entries));
}

struct by_class {
    static constexpr std::string_view identity = "test.by_class/1";
    agentrt::verdict operator()(agentrt::untyped_request const& r, agentrt::run_view const& v) const {
        return agentrt::class_table{}(r, v);
    }
};

// Allows wiping an account once confirmed: what `never` must catch.
struct careless {
    static constexpr std::string_view identity = "test.careless/1";
    agentrt::verdict operator()(wipe_args const& a, agentrt::run_view const&) const {
        return a.confirm ? agentrt::allow() : agentrt::deny("not confirmed");
    }
    agentrt::verdict operator()(agentrt::untyped_request const& r, agentrt::run_view const& v) const {
        return agentrt::class_table{}(r, v);
    }
};

// Denies reads after two failed steps in a row.
struct tired {
    static constexpr std::string_view identity = "test.tired/1";
    agentrt::verdict operator()(agentrt::untyped_request const& r, agentrt::run_view const& v) const {
        if (v.failed_streak >= 2)
            return agentrt::deny("too many failures");
        return agentrt::class_table{}(r, v);
    }
};

} // namespace

TEST_CASE("fuzz_check_passes_for_the_test_catalogue_and_reaches_every_tool") {
    auto report = fuzz::fuzz_check(tools{}.table(), quick());
    INFO(report.message);
    CHECK(report.passed);
    REQUIRE(report.tools.size() == 3);
    for (auto const& t : report.tools) {
        CAPTURE(t.tool);
        CHECK(t.accepted >= 40);
        CHECK(t.called >= 40);
        CHECK(t.refused >= 40);
    }
    CHECK(report.tools[2].tool_errors > 0); // wipe_account refuses without confirm: allowed
}

TEST_CASE("a_decoder_that_refuses_valid_arguments_fails_fuzz_check") {
    auto table = changed("lookup_order", [](agentrt::tool_entry& e) {
        e.decode = [](boost::json::value const&) -> agentrt::result<agentrt::arguments> {
            return agentrt::invalid_arguments({{"", "broken", "refuses everything"}});
        };
    });
    auto report = fuzz::fuzz_check(table, quick());
    CHECK_FALSE(report.passed);
    CHECK(report.message.find("refused a valid argument text for lookup_order") != std::string::npos);
}

TEST_CASE("a_decoder_that_accepts_near_misses_fails_fuzz_check") {
    auto table = changed("send_message", [](agentrt::tool_entry& e) {
        e.decode = [strict = e.decode](boost::json::value const& d) -> agentrt::result<agentrt::arguments> {
            if (auto r = strict(d))
                return r;
            return agentrt::arguments(d, nullptr, nullptr);
        };
    });
    auto report = fuzz::fuzz_check(table, quick());
    CHECK_FALSE(report.passed);
    CHECK(report.message.find("accepted a near miss for send_message") != std::string::npos);
}

TEST_CASE("a_tool_that_throws_fails_fuzz_check") {
    auto table = changed("wipe_account", [](agentrt::tool_entry& e) {
        e.call = [](agentrt::arguments const&, agentrt::call_context const&) -> agentrt::tool_result {
            throw std::runtime_error("boom");
        };
    });
    auto report = fuzz::fuzz_check(table, quick());
    CHECK_FALSE(report.passed);
    CHECK(report.message.find("tool wipe_account threw: boom") != std::string::npos);
}

TEST_CASE("a_tool_that_overruns_its_timeout_fails_fuzz_check") {
    auto table = changed("lookup_order", [](agentrt::tool_entry& e) {
        e.timeout = std::chrono::milliseconds(10);
        e.call = [](agentrt::arguments const&, agentrt::call_context const& c) -> agentrt::tool_result {
            for (int i = 0; i < 100 && !c.stop.stop_requested(); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            return agentrt::tool_output{};
        };
    });
    auto report = fuzz::fuzz_check(table, quick());
    CHECK_FALSE(report.passed);
    CHECK(report.message.find("did not return within its timeout of 10 ms") != std::string::npos);
    std::this_thread::sleep_for(std::chrono::milliseconds(50)); // let the stopped worker finish
}

TEST_CASE("acceptance_only_tools_are_checked_but_never_called") {
    int calls = 0;
    tools catalogue{lookup_order{&calls}, send_message{}, wipe_account{}};
    auto options = quick();
    options.acceptance_only = {"lookup_order"};
    auto report = fuzz::fuzz_check(catalogue.table(), options);
    CHECK(report.passed);
    CHECK(calls == 0);
    CHECK(report.tools[0].accepted >= 40);
    CHECK(report.tools[0].called == 0);
}

TEST_CASE("a_check_that_exercised_nothing_fails") {
    CHECK_FALSE(fuzz::fuzz_check(agentrt::tool_table{}, quick()).passed);
    auto options = quick();
    options.acceptance_only = {"no_such_tool"};
    auto report = fuzz::fuzz_check(tools{}.table(), options);
    CHECK_FALSE(report.passed);
    CHECK(report.message.find("no_such_tool") != std::string::npos);
}

TEST_CASE("fuzz_check_with_the_same_seed_checks_the_same_cases") {
    auto a = fuzz::fuzz_check(tools{}.table(), quick(3)), b = fuzz::fuzz_check(tools{}.table(), quick(3));
    REQUIRE(a.tools.size() == b.tools.size());
    for (std::size_t i = 0; i < a.tools.size(); ++i)
        CHECK(a.tools[i].tool_errors == b.tools[i].tool_errors);
}

TEST_CASE("never_holds_for_the_class_table_on_destructive_tools") {
    tools catalogue;
    fuzz::never_options o;
    o.generation.cases = 60;
    auto report = fuzz::never(agentrt::lower_policy(by_class{}, catalogue), catalogue.table(),
                              agentrt::side_effect::destructive, agentrt::outcome::allow, o);
    INFO(report.message);
    CHECK(report.passed);
}

TEST_CASE("a_policy_that_allows_a_destructive_tool_fails_never_with_a_shrunk_counterexample") {
    tools catalogue;
    fuzz::never_options o;
    o.generation.seed = 4;
    auto report = fuzz::never(agentrt::lower_policy(careless{}, catalogue), catalogue.table(),
                              agentrt::side_effect::destructive, agentrt::outcome::allow, o);
    INFO(report.message);
    CHECK_FALSE(report.passed);
    // Shrunk: the shortest account, and a view with no steps.
    CHECK(report.message.find(R"({"account":"a","confirm":true})") != std::string::npos);
    CHECK(report.message.find("0 steps") != std::string::npos);
}

TEST_CASE("never_explores_views_and_shrinks_them") {
    tools catalogue;
    fuzz::never_options o;
    o.generation.seed = 6;
    o.generation.cases = 300;
    auto report = fuzz::never(agentrt::lower_policy(tired{}, catalogue), catalogue.table(),
                              agentrt::side_effect::read_only, agentrt::outcome::deny, o);
    INFO(report.message);
    CHECK_FALSE(report.passed);
    CHECK(report.message.find("2 steps, failed streak 2") != std::string::npos);
}

TEST_CASE("a_class_without_a_tool_fails_never_unless_a_stand_in_is_declared") {
    tools catalogue;
    auto policy = agentrt::lower_policy(by_class{}, catalogue);
    auto report = fuzz::never(policy, catalogue.table(), agentrt::side_effect::local_mutation, agentrt::outcome::deny);
    CHECK_FALSE(report.passed);
    CHECK(report.message.find("declare a stand-in") != std::string::npos);

    fuzz::never_options o;
    o.stand_ins.push_back(
        agentrt::schema_tool(
            "save_note", "Save a note locally.",
            {{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}, {"required", {"text"}}},
            agentrt::side_effect::local_mutation, std::chrono::milliseconds(100),
            [](boost::json::value const&, agentrt::call_context const&) {
                return agentrt::tool_result(agentrt::tool_output{});
            })
            .value());
    report = fuzz::never(policy, catalogue.table(), agentrt::side_effect::local_mutation, agentrt::outcome::deny, o);
    INFO(report.message);
    CHECK(report.passed);
}
