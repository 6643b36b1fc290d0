// MCP tools in a tool table: pinned and classified by the operator, decided by the same policies,
// refused near misses never reaching the server.
#include <agentrt/mcp/tools.hpp>

#include <agentrt/catalog/catalog.hpp>
#include <agentrt/catalog/policy.hpp>

#include "support/mcp.hpp"
#include "support/test_tools.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <doctest/doctest.h>

#include <fstream>

namespace json = boost::json;
namespace mcp = agentrt::mcp;
using namespace std::chrono_literals;
using agentrt::testkit::stub_behaviour;
using agentrt::testkit::stub_script;
using mcp_support::journal_of;
using mcp_support::started;

namespace {

stub_script shop_server(mcp_support::scratch const& dir) {
    stub_script script;
    script.tools.push_back({"find_order", "Find an order.", mcp_support::order_schema(), {}, stub_behaviour::echo});
    script.tools.push_back({"cancel_order", "Cancel an order.", mcp_support::order_schema(),
                            json::parse(R"({"readOnlyHint":true})").as_object(), stub_behaviour::echo});
    script.journal = dir.path / "journal";
    return script;
}

std::vector<mcp::listed_tool> listed(std::shared_ptr<mcp::client> const& server) {
    auto tools = server->list_tools();
    REQUIRE(tools);
    return *tools;
}

void write(std::filesystem::path const& path, std::string_view text) {
    std::ofstream(path) << text;
}

} // namespace

TEST_SUITE("mcp pins and classes") {

    TEST_CASE("pinned tools join a catalogue's table with the pinned schema and the operator's class") {
        mcp_support::scratch dir;
        auto server = started(shop_server(dir));
        auto tools = listed(server);
        mcp::pins pins;
        CHECK(pins.pin_all("shop", tools).size() == 2); // both appeared
        auto entries = mcp::pinned_tools(server, tools, pins, {{"find_order", {agentrt::side_effect::read_only, 5s}}});
        REQUIRE(entries);
        auto table = mcp_support::catalogue.table().with(std::move(entries->entries));
        auto const* find = table.find("find_order");
        REQUIRE(find);
        CHECK(find->effect == agentrt::side_effect::read_only);
        CHECK(find->timeout == 5s);
        CHECK(find->input_schema == mcp_support::order_schema());
        CHECK(find->argument_type == nullptr);

        auto call = table.accept("find_order", R"({"order_id":"ord-9"})");
        REQUIRE(call);
        agentrt::call_context context;
        context.idempotency_key = "run-1/4";
        context.deadline = std::chrono::steady_clock::now() + 5s;
        auto result = table.at(call->index).call(call->args, context);
        REQUIRE(result);
        CHECK(result->content.at("structuredContent") == json::value{{"order_id", "ord-9"}});
        CHECK(result->summary == R"({"order_id":"ord-9"})");
        CHECK(journal_of(dir).back().at("params").at("_meta").at("agentrt/idempotency-key") == "run-1/4");
    }

    TEST_CASE("a tool the operator did not classify is unknown, whatever its annotations say, and is denied") {
        mcp_support::scratch dir;
        auto server = started(shop_server(dir));
        auto tools = listed(server);
        CHECK(tools.back().annotations.at("readOnlyHint") == true); // kept to show, never trusted
        mcp::pins pins;
        pins.pin_all("shop", tools);
        auto entries = mcp::pinned_tools(server, tools, pins, {{"find_order", {agentrt::side_effect::read_only, 5s}}});
        REQUIRE(entries);
        auto table = mcp_support::catalogue.table().with(std::move(entries->entries));
        CHECK(table.find("cancel_order")->effect == agentrt::side_effect::unknown);

        auto policy = agentrt::lower_policy(mcp_support::lookup_then_classes{}, mcp_support::catalogue);
        auto decide = [&](std::string_view tool) {
            auto accepted = table.accept(tool, R"({"order_id":"ord-1"})");
            REQUIRE(accepted);
            return policy(table.at(accepted->index), accepted->args, {});
        };
        CHECK(decide("find_order").outcome == agentrt::outcome::allow);
        auto cancel = decide("cancel_order");
        CHECK(cancel.outcome == agentrt::outcome::deny);
        CHECK(cancel.reason == "cancel_order has no side-effect class (nobody classified it); the class table never "
                               "allows it");
    }

    TEST_CASE("near misses are refused by the pinned schema before they reach the server") {
        mcp_support::scratch dir;
        auto server = started(shop_server(dir));
        auto tools = listed(server);
        mcp::pins pins;
        pins.pin_all("shop", tools);
        auto entries = mcp::pinned_tools(server, tools, pins, {});
        REQUIRE(entries);
        agentrt::tool_table table(std::move(entries->entries));
        auto before = journal_of(dir).size();
        for (auto const* near_miss :
             {R"({"order_id":"ORD-1"})", R"({"order_id":1})", R"({})", R"({"order_id":"ord-1","more":true})"}) {
            auto refused = table.accept("find_order", near_miss);
            CHECK_MESSAGE(!refused, near_miss);
        }
        CHECK(journal_of(dir).size() == before);
    }

    TEST_CASE("a tool whose definition changed, appeared or disappeared is refused, naming each difference") {
        mcp_support::scratch dir;
        auto script = shop_server(dir);
        script.change_after_first_list = true;
        auto server = started(script);
        mcp::pins pins;
        pins.pin_all("shop", listed(server));

        auto changed = mcp::pinned_tools(server, pins, {});
        REQUIRE_FALSE(changed);
        CHECK(changed.error().code == agentrt::errc::pin_mismatch);
        CHECK(changed.error().message ==
              "MCP server \"shop\" differs from its pins: tool \"find_order\" changed its description since it was "
              "pinned. Review the server, then pin it again (agentrt mcp pin shop)");

        auto today = listed(server);
        today.pop_back();
        mcp::listed_tool extra{"refund_order", "Refund.", mcp_support::order_schema(), {}};
        extra.input_schema["required"] = json::array{};
        today.push_back(extra);
        auto differences = pins.compare("shop", today);
        std::vector<std::string> said;
        for (auto const& d : differences)
            said.push_back(d.to_string());
        CHECK(said == std::vector<std::string>{"tool \"find_order\" changed its description since it was pinned",
                                               "tool \"refund_order\" appeared since the server was pinned",
                                               "tool \"cancel_order\" disappeared since the server was pinned"});

        auto schema_changed = listed(server);
        schema_changed.front().description = "Find an order.";
        schema_changed.front().input_schema["additionalProperties"] = true;
        CHECK(pins.compare("shop", schema_changed).front().to_string() ==
              "tool \"find_order\" changed its inputSchema since it was pinned");

        auto again = pins.pin_all("shop", listed(server));
        CHECK(again.size() == 1);
        CHECK(mcp::pinned_tools(server, pins, {}));
    }

    TEST_CASE("pins are saved and loaded, and a pin edited by hand is refused naming the file") {
        mcp_support::scratch dir;
        auto server = started(shop_server(dir));
        auto tools = listed(server);
        mcp::pins pins;
        pins.pin_all("shop", tools);
        auto path = dir.path / "agentrt-mcp.pins.json";
        REQUIRE(pins.save(path));
        auto loaded = mcp::pins::load(path);
        REQUIRE(loaded);
        CHECK(loaded->compare("shop", tools).empty());
        REQUIRE(loaded->find("shop", "find_order"));
        CHECK(loaded->find("shop", "find_order")->sha256 == mcp::definition_hash(tools.front()));

        auto missing = mcp::pins::load(dir.path / "none.pins.json");
        REQUIRE(missing);
        CHECK(missing->compare("shop", tools).size() == 2);

        std::ifstream in(path);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        auto at = text.find("Find an order.");
        REQUIRE(at != std::string::npos);
        text.replace(at, 4, "Lose");
        write(path, text);
        auto edited = mcp::pins::load(path);
        REQUIRE_FALSE(edited);
        CHECK(edited.error().message ==
              path.string() + ": /servers/shop/find_order: its definition does not have its sha256: the file was "
                              "edited by hand");
    }

    TEST_CASE("the operator's file gives servers and classes, and a bad one names the file and the place") {
        mcp_support::scratch dir;
        auto path = dir.path / "agentrt-mcp.json";
        write(path, R"({"servers": {"shop": {"command": ["agentrt-mcp-stub", "{}"], "environment": {"LOG": "quiet"},
                        "tools": {"find_order": {"side_effect": "read_only", "timeout_ms": 2500},
                                  "cancel_order": {"side_effect": "remote_mutation"}}},
                        "tickets": {"url": "http://127.0.0.1:8931/mcp", "bearer_token_env": "TICKETS_TOKEN"}}})");
        auto file = mcp::operator_file::load(path);
        REQUIRE(file);
        CHECK(file->pins_path() == dir.path / "agentrt-mcp.pins.json");
        auto const* shop = file->find("shop");
        REQUIRE(shop);
        auto const& stdio = std::get<mcp::stdio_server>(shop->server);
        CHECK(stdio.command == std::vector<std::string>{"agentrt-mcp-stub", "{}"});
        CHECK(stdio.environment == std::vector<std::string>{"LOG=quiet"});
        auto const* tickets = file->find("tickets");
        REQUIRE(tickets);
        auto const& http = std::get<mcp::http_server>(tickets->server);
        CHECK(http.url == "http://127.0.0.1:8931/mcp");
        CHECK(http.bearer_token_env == "TICKETS_TOKEN");
        CHECK(tickets->classes.empty());
        CHECK(shop->classes.at("find_order").effect == agentrt::side_effect::read_only);
        CHECK(shop->classes.at("find_order").timeout == 2500ms);
        CHECK(shop->classes.at("cancel_order").effect == agentrt::side_effect::remote_mutation);
        CHECK(shop->classes.at("cancel_order").timeout == 30s);

        struct bad_file {
            char const* text;
            char const* said;
        };
        bad_file const bad[] = {
            {R"({"server": {}})", "/servers: missing or not an object of servers by name"},
            {R"({"servers": {"shop": {"command": []}}})", "/servers/shop/command: missing or not a non-empty array"},
            {R"({"servers": {"shop": {"command": ["x"], "tools": {"a/b": {"side_effect": "harmless"}}}}})",
             "/servers/shop/tools/a~1b/side_effect: missing or not one of read_only"},
            {R"({"servers": {"shop": {"command": ["x"], "tools": {"a": {"side_effect": "read_only", "timeout_ms": 0}}}}})",
             "/servers/shop/tools/a/timeout_ms: not a positive integer"},
            {R"({"servers": {"shop": {"command": ["x"], "trusted": true}}})",
             "/servers/shop/trusted: not a member a server has"},
            {R"({"servers": {"t": {"url": "http://127.0.0.1/mcp", "command": ["x"]}}})",
             "/servers/t/command: not a member an HTTP server has"},
            {R"({"servers": {"t": {"url": "http://127.0.0.1/mcp", "bearer_token_env": ""}}})",
             "/servers/t/bearer_token_env: not the name of an environment variable"},
            {R"({"servers": )", "not JSON"},
        };
        for (auto const& b : bad) {
            write(path, b.text);
            auto refused = mcp::operator_file::load(path);
            REQUIRE_FALSE(refused);
            CHECK(refused.error().code == agentrt::errc::invalid_arguments);
            CHECK_MESSAGE(refused.error().message.find(path.string() + ": " + b.said) == 0, refused.error().message);
        }
    }

    TEST_CASE(
        "a classified tool whose schema is outside the checked subset is refused, naming the server and the keyword") {
        mcp_support::scratch dir;
        stub_script script = shop_server(dir);
        script.tools.push_back(
            {"odd", "Odd.", json::parse(R"({"type":"object","patternProperties":{"^x":{}}})").as_object(), {}, {}});
        auto server = started(script);
        auto tools = listed(server);
        mcp::pins pins;
        pins.pin_all("shop", tools);
        auto entries = mcp::pinned_tools(server, tools, pins, {{"odd", {agentrt::side_effect::read_only, 5s}}});
        REQUIRE_FALSE(entries);
        CHECK(entries.error().code == agentrt::errc::invalid_schema);
        CHECK(entries.error().message.find("MCP server \"shop\", tool \"odd\": ") == 0);
        CHECK(entries.error().message.find("patternProperties") != std::string::npos);
    }

    TEST_CASE("an unclassified tool agentrt cannot take is left out with the reason, and the others join") {
        mcp_support::scratch dir;
        stub_script script = shop_server(dir);
        script.tools.push_back(
            {"odd", "Odd.", json::parse(R"({"type":"object","patternProperties":{"^x":{}}})").as_object(), {}, {}});
        script.tools.push_back({"not a name", "Spaced.", mcp_support::order_schema(), {}, {}});
        auto server = started(script);
        auto tools = listed(server);
        mcp::pins pins;
        pins.pin_all("shop", tools);
        auto entries = mcp::pinned_tools(server, tools, pins, {});
        REQUIRE(entries);
        REQUIRE(entries->entries.size() == 2);
        CHECK(entries->entries[0].name == "find_order");
        CHECK(entries->entries[1].name == "cancel_order");
        REQUIRE(entries->left_out.size() == 2);
        CHECK(entries->left_out[0].find("odd: ") == 0);
        CHECK(entries->left_out[0].find("patternProperties at \"\"") != std::string::npos);
        CHECK(entries->left_out[1].find("not a name: its name is not 1 to 64 characters") == 0);
    }
}
