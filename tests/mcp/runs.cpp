// MCP tools in runs: recorded by the gate like any tool, re-validated on resume against today's
// pinned definition, and held to the crash harness's invariants in both crash modes.
#include <agentrt/mcp/tools.hpp>

#include <agentrt/runtime/gate.hpp>
#include <agentrt/runtime/operator.hpp>
#include <agentrt/runtime/reads.hpp>
#include <agentrt/runtime/store.hpp>
#include <agentrt/testkit/scenario.hpp>

#include "support/mcp.hpp"

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

namespace json = boost::json;
namespace mcp = agentrt::mcp;
using namespace std::chrono_literals;
using agentrt::decision;
using agentrt::run_status;
using agentrt::step_status;
using agentrt::testkit::crash_mode;
using agentrt::testkit::stub_script;

namespace {

json::object refund_schema(int most) {
    return json::parse(R"({"type":"object","properties":{"order_id":{"type":"string"},
                           "amount":{"type":"integer","minimum":1,"maximum":)" +
                       std::to_string(most) + R"(}},"required":["order_id","amount"],"additionalProperties":false})")
        .as_object();
}

stub_script shop_server(mcp_support::scratch const& dir, int most_refunded = 100,
                        std::string refund_description = "Refund an order.") {
    stub_script script;
    script.tools.push_back({"find_order", "Find an order.", mcp_support::order_schema(), {}, {}});
    script.tools.push_back({"refund", std::move(refund_description), refund_schema(most_refunded), {}, {}});
    script.journal = dir.path / "journal";
    return script;
}

std::map<std::string, mcp::tool_class, std::less<>> const classes = {
    {"find_order", {agentrt::side_effect::read_only, 5s}},
    {"refund", {agentrt::side_effect::remote_mutation, 5s}}, // the class table asks for an approval
};

// The program's table as it builds it at start: the server listed, checked against the pins.
agentrt::result<agentrt::tool_table> table_of(std::shared_ptr<mcp::client> const& server, mcp::pins const& pins) {
    auto tools = mcp::pinned_tools(server, pins, classes);
    if (!tools)
        return tools.error();
    return mcp_support::catalogue.table().with(std::move(tools->entries));
}

mcp::pins pinned(std::shared_ptr<mcp::client> const& server) {
    auto listed = server->list_tools();
    REQUIRE(listed);
    mcp::pins pins;
    pins.pin_all(server->name(), *listed);
    return pins;
}

std::vector<json::object> calls_in(mcp_support::scratch const& dir) {
    std::vector<json::object> calls;
    for (auto& m : mcp_support::journal_of(dir))
        if (auto const* method = m.if_contains("method"); method && *method == "tools/call")
            calls.push_back(std::move(m));
    return calls;
}

struct waiting_refund {
    mcp_support::scratch dir;
    std::optional<agentrt::store> store;
    agentrt::evaluator policy = agentrt::lower_policy(mcp_support::lookup_then_classes{}, mcp_support::catalogue);
    std::string run_id;

    // A run whose refund of 50 waits on an approval, which the operator grants.
    waiting_refund() {
        store.emplace(agentrt::store::open(dir.path / "store").value());
        auto server = mcp_support::started(shop_server(dir));
        auto table = table_of(server, pinned(server)).value();
        agentrt::gate g(*store, table, policy);
        auto s = g.begin("refund ord-7").value();
        run_id = s.run_id();
        REQUIRE(s.open_step().value());
        auto step = s.propose(decision::call("refund", R"({"order_id":"ord-7","amount":50})")).value();
        REQUIRE(step.status == step_status::awaiting_approval);
        auto pending = agentrt::pending_approvals(*store);
        REQUIRE(pending.size() == 1);
        REQUIRE(agentrt::approve(*store, run_id, 0, pending[0].hash));
    }

    // The program restarted against the server as `script` describes it today, pinned again.
    agentrt::result<agentrt::session> resume_after_repin(stub_script const& script, agentrt::tool_table& table) {
        auto server = mcp_support::started(script);
        table = table_of(server, pinned(server)).value();
        gate_.emplace(*store, table, policy);
        return gate_->attach(run_id);
    }

    std::optional<agentrt::gate> gate_;
};

agentrt::testkit::scenario mcp_scenario(crash_mode mode, std::filesystem::path journal) {
    agentrt::testkit::scenario s;
    s.mode = mode;
    s.goal = "refund ord-7";
    s.tools = [journal] {
        stub_script script;
        script.tools.push_back({"find_order", "Find an order.", mcp_support::order_schema(), {}, {}});
        script.tools.push_back({"refund", "Refund an order.", refund_schema(100), {}, {}});
        script.journal = journal;
        auto server = mcp::client::start(agentrt::testkit::stub_server("shop", script)).value();
        return table_of(server, pinned(server)).value();
    };
    s.policy = [] { return agentrt::lower_policy(mcp_support::lookup_then_classes{}, mcp_support::catalogue); };
    s.agent = [] {
        return std::make_unique<agentrt::testkit::scripted_agent>(std::vector<decision>{
            decision::call("find_order", R"({"order_id":"ord-7"})"),
            decision::call("refund", R"({"order_id":"ord-7","amount":50})"), decision::complete("refunded")});
    };
    return s;
}

} // namespace

TEST_SUITE("mcp tools in runs") {

    TEST_CASE("a granted MCP call runs once, with its step's idempotency key, when its server is as pinned") {
        waiting_refund w;
        agentrt::tool_table table;
        auto s = w.resume_after_repin(shop_server(w.dir), table);
        REQUIRE(s);
        REQUIRE(s->pending_execution() == 0u);
        auto done = s->execute();
        REQUIRE(done);
        CHECK(done->status == step_status::done);
        auto calls = calls_in(w.dir);
        REQUIRE(calls.size() == 1);
        CHECK(calls[0].at("params").at("name") == "refund");
        CHECK_FALSE(calls[0].at("params").at("_meta").at("agentrt/idempotency-key").as_string().empty());
    }

    TEST_CASE("a granted MCP call is re-validated on resume against today's pinned schema") {
        waiting_refund w;
        agentrt::tool_table table;
        auto s = w.resume_after_repin(shop_server(w.dir, 10), table); // refunds now stop at 10
        REQUIRE(s);
        CHECK_FALSE(s->pending_execution());
        auto step = agentrt::read_run(*w.store, w.run_id).value().steps.at(0);
        CHECK(step.status == step_status::failed);
        CHECK(step.error.find("the approved arguments no longer validate") != std::string::npos);
        CHECK(step.error.find("maximum") != std::string::npos);
        CHECK(calls_in(w.dir).empty());
    }

    TEST_CASE("a granted MCP call whose definition was pinned anew asks for an approval again") {
        waiting_refund w;
        agentrt::tool_table table;
        auto s = w.resume_after_repin(shop_server(w.dir, 100, "Refund an order, and close it."), table);
        REQUIRE(s);
        CHECK_FALSE(s->pending_execution());
        CHECK(s->run().status == run_status::waiting_for_approval);
        auto pending = agentrt::pending_approvals(*w.store);
        REQUIRE(pending.size() == 1);
        CHECK(pending[0].status == agentrt::approval_status::pending);
        CHECK(calls_in(w.dir).empty());
    }

    TEST_CASE("a server that changed since its pins leaves a waiting run as it was") {
        waiting_refund w;
        mcp::pins pins;
        {
            auto before = mcp_support::started(shop_server(w.dir));
            pins = pinned(before);
        }
        auto changed = mcp_support::started(shop_server(w.dir, 10));
        auto table = table_of(changed, pins);
        REQUIRE_FALSE(table);
        CHECK(table.error().code == agentrt::errc::pin_mismatch);
        CHECK(table.error().message.find("tool \"refund\" changed its inputSchema") != std::string::npos);
        CHECK(agentrt::read_run(*w.store, w.run_id).value().run.status == run_status::waiting_for_approval);
        CHECK(calls_in(w.dir).empty());
    }

    TEST_CASE("crash harness: a scenario whose tools come from an MCP server holds its invariants at every crash") {
        mcp_support::scratch dir;
        crash_mode mode = crash_mode::simulated;
        SUBCASE("simulated crashes") {
            mode = crash_mode::simulated;
        }
        SUBCASE("process crashes") {
            mode = crash_mode::process;
        }
        auto s = mcp_scenario(mode, dir.path / "journal");
        auto uncrashed = agentrt::testkit::run_scenario(s);
        REQUIRE(uncrashed.ok());
        CHECK(uncrashed.run.status == run_status::completed);
        CHECK(uncrashed.invocations_of("refund") == 1);
        CHECK(calls_in(dir).size() == 2);

        auto summary = agentrt::testkit::explore(s);
        CHECK(summary.failures == 0);
        CHECK(summary.crashes_tried > 10);

        // What reached the server when the refund's outcome was lost: the call again only once granted,
        // under the same idempotency key, so the server can tell the repeat.
        std::filesystem::remove(dir.path / "journal");
        auto lost =
            agentrt::testkit::run_scenario(s, {{1, agentrt::testkit::crash_point::after_effect_before_outcome}});
        CHECK(lost.ok());
        // The refund asked for, the lost one asked again, and the policy's own ask when it runs again.
        std::vector<std::string> kinds;
        for (auto const& a : lost.approvals)
            kinds.push_back(a.kind);
        CHECK(kinds == std::vector<std::string>{"side_effect", "interrupted_side_effect", "side_effect"});
        std::vector<std::string> refund_keys;
        for (auto const& call : calls_in(dir))
            if (call.at("params").at("name") == "refund")
                refund_keys.emplace_back(call.at("params").at("_meta").at("agentrt/idempotency-key").as_string());
        REQUIRE(refund_keys.size() == 2);
        CHECK(refund_keys[0] == refund_keys[1]);
    }
}
