// The MCP client over Streamable HTTP, against the test kit's stub on a real loopback port, in a
// process of its own; its journal shows what reached it.
#include <agentrt/mcp/client.hpp>
#include <agentrt/mcp/tools.hpp>

#include <agentrt/testkit/stub_mcp_server.hpp>

#include "support/mcp.hpp"

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace json = boost::json;
namespace mcp = agentrt::mcp;
using namespace std::chrono_literals;
using agentrt::testkit::stub_behaviour;
using agentrt::testkit::stub_http_answer;
using agentrt::testkit::stub_http_server;
using agentrt::testkit::stub_script;
using mcp_support::journal_of;
using mcp_support::within;

namespace {

stub_script shop(mcp_support::scratch const& dir, stub_behaviour lookup = stub_behaviour::echo) {
    stub_script script;
    script.tools.push_back({"lookup", "Look an order up.", mcp_support::order_schema(), {}, lookup});
    script.journal = dir.path / "journal";
    return script;
}

std::shared_ptr<mcp::client> connected(stub_http_server const& server, std::string token_env = {},
                                       mcp::client_options options = {}) {
    auto c = mcp::client::start(server.address("shop", std::move(token_env)), options);
    REQUIRE_MESSAGE(c, (c ? "" : c.error().message));
    return *c;
}

// Sets an environment variable for the length of a test.
struct environment_variable {
    std::string name;
    environment_variable(std::string n, char const* value) : name(std::move(n)) {
        if (value)
            ::setenv(name.c_str(), value, 1);
        else
            ::unsetenv(name.c_str());
    }
    ~environment_variable() { ::unsetenv(name.c_str()); }
};

} // namespace

TEST_SUITE("mcp client over http") {

    TEST_CASE("over HTTP the client negotiates, lists every page and calls, answered in JSON or in events") {
        mcp_support::scratch dir;
        auto script = shop(dir);
        for (char c : std::string("abcd"))
            script.tools.push_back({std::string("tool_") + c, "A tool.", mcp_support::order_schema(), {}, {}});
        script.page_size = 2;
        SUBCASE("answers in JSON") {
            script.http_answer = stub_http_answer::json;
        }
        SUBCASE("answers as server-sent events") {
            script.http_answer = stub_http_answer::events;
        }
        SUBCASE("answers as server-sent events whose lines end in a bare CR, the last one too") {
            script.http_answer = stub_http_answer::events_cr;
        }
        stub_http_server server(script);
        auto c = connected(server);
        CHECK(c->protocol_version() == "2025-06-18");
        auto tools = c->list_tools();
        REQUIRE_MESSAGE(tools, (tools ? "" : tools.error().message));
        CHECK(tools->size() == 5);

        mcp::pins pins;
        pins.pin_all("shop", *tools);
        auto entries = mcp::pinned_tools(c, *tools, pins, {{"lookup", {agentrt::side_effect::read_only, 5s}}});
        REQUIRE(entries);
        agentrt::tool_table table(std::move(entries->entries));
        auto call = table.accept("lookup", R"({"order_id":"ord-3"})");
        REQUIRE(call);
        auto result = table.at(call->index).call(call->args, within(5s, "run-9/2"));
        REQUIRE_MESSAGE(result, (result ? "" : result.error().message));
        CHECK(result->content.at("structuredContent") == json::value{{"order_id", "ord-3"}});

        auto journal = journal_of(dir);
        REQUIRE(journal.size() == 6); // initialize, initialized, three pages, the call
        CHECK(journal[0].at("method") == "initialize");
        CHECK(journal[1].at("method") == "notifications/initialized");
        CHECK(journal[4].at("params").at("cursor") == "4");
        CHECK(journal[5].at("params").at("_meta").at("agentrt/idempotency-key") == "run-9/2");
    }

    TEST_CASE("the session the server gave goes with every message and is deleted when the client goes") {
        mcp_support::scratch dir;
        stub_http_server server(shop(dir));
        {
            auto c = connected(server); // the stub refuses any message after initialize without the session
            REQUIRE(c->list_tools());
        }
        auto journal = journal_of(dir);
        REQUIRE_FALSE(journal.empty());
        CHECK(journal.back() == json::object{{"deleted_session", "stub-session-1"}});
    }

    TEST_CASE("a bearer token from the environment is sent, and an authorization demand never shows it") {
        mcp_support::scratch dir;
        auto script = shop(dir);
        script.bearer_token = "s3cret-token";
        stub_http_server server(script);
        {
            environment_variable token("AGENTRT_TEST_MCP_TOKEN", "s3cret-token");
            auto c = connected(server, "AGENTRT_TEST_MCP_TOKEN");
            CHECK(c->list_tools());
        }
        struct demand {
            char const* value; // of the variable; null: unset
            std::string env;   // the variable named; empty: none
            std::string said;
        };
        demand const demands[] = {
            {"wrong-token", "AGENTRT_TEST_MCP_TOKEN", "refused the bearer token in AGENTRT_TEST_MCP_TOKEN (HTTP 401)"},
            {nullptr, "AGENTRT_TEST_MCP_TOKEN", "AGENTRT_TEST_MCP_TOKEN, which should hold its bearer token, is empty"},
            {nullptr, "", "demands authorization (HTTP 401)"},
        };
        for (auto const& d : demands) {
            CAPTURE(d.said);
            environment_variable token("AGENTRT_TEST_MCP_TOKEN", d.value);
            auto refused = mcp::client::start(server.address("shop", d.env));
            REQUIRE_FALSE(refused);
            CHECK(refused.error().code == agentrt::errc::server_failed);
            CHECK_MESSAGE(refused.error().message.find(d.said) != std::string::npos, refused.error().message);
            CHECK(refused.error().message.find("WWW-Authenticate: Bearer") != std::string::npos);
            CHECK(refused.error().message.find("wrong-token") == std::string::npos);
            CHECK(refused.error().message.find("s3cret") == std::string::npos);
        }
    }

    TEST_CASE("a loopback server is reached directly, never through a proxy the environment names") {
        mcp_support::scratch dir;
        stub_http_server server(shop(dir));
        environment_variable proxy("http_proxy", "http://127.0.0.1:9"); // nothing listens there
        environment_variable all("ALL_PROXY", "http://127.0.0.1:9");
        auto c = connected(server);
        auto tools = c->list_tools();
        CHECK_MESSAGE(tools, (tools ? "" : tools.error().message));
    }

    TEST_CASE("a bearer token is never sent in the clear beyond loopback") {
        environment_variable token("AGENTRT_TEST_MCP_TOKEN", "s3cret-token");
        auto refused =
            mcp::client::start(mcp::http_server{"far", "http://tools.example/mcp", "AGENTRT_TEST_MCP_TOKEN"});
        REQUIRE_FALSE(refused);
        CHECK(refused.error().message.find("would be sent in the clear to tools.example") != std::string::npos);
        auto lookalike =
            mcp::client::start(mcp::http_server{"far", "http://127.attacker.example/mcp", "AGENTRT_TEST_MCP_TOKEN"});
        REQUIRE_FALSE(lookalike); // a name that starts like a loopback address is not one
        CHECK(lookalike.error().message.find("would be sent in the clear to 127.attacker.example") !=
              std::string::npos);
        auto not_http = mcp::client::start(mcp::http_server{"odd", "ftp://127.0.0.1/mcp", ""});
        REQUIRE_FALSE(not_http);
        CHECK(not_http.error().message.find("is not an http:// or https:// URL") != std::string::npos);
    }

    TEST_CASE("a bearer token never shows, not even where an error page is cut short inside it") {
        mcp_support::scratch dir;
        auto script = shop(dir);
        script.bearer_token = "s3cret-token";
        script.gateway_echoes_authorization = true; // the token spans byte 200, where the page is cut
        stub_http_server server(script);
        environment_variable token("AGENTRT_TEST_MCP_TOKEN", "s3cret-token");
        auto c = connected(server, "AGENTRT_TEST_MCP_TOKEN"); // a notification's answer is not read
        auto tools = c->list_tools();
        REQUIRE_FALSE(tools);
        CHECK_MESSAGE(tools.error().message.find("HTTP 502") != std::string::npos, tools.error().message);
        CHECK_MESSAGE(tools.error().message.find("s3cret") == std::string::npos, tools.error().message);
    }

    TEST_CASE("over HTTP a JSON-RPC batch, as a JSON body or as an event, is read message by message under MCP "
              "2025-03-26") {
        mcp_support::scratch dir;
        auto script = shop(dir);
        script.protocol_version = "2025-03-26";
        script.batch_answers = true; // a notifications/message, then the answer and list_changed, in one array
        script.change_after_first_list = true;
        SUBCASE("a JSON body") {
            script.http_answer = stub_http_answer::json;
        }
        SUBCASE("an event's data") {
            script.http_answer = stub_http_answer::events;
        }
        stub_http_server server(script);
        auto c = connected(server);
        CHECK(c->protocol_version() == "2025-03-26");
        auto tools = c->list_tools();
        REQUIRE_MESSAGE(tools, (tools ? "" : tools.error().message));
        CHECK(tools->size() == 1);
        CHECK(c->tools_changed()); // the list_changed notification after the answer, in its batch
        auto reply = c->call_tool("lookup", {{"order_id", "ord-1"}}, within(5s));
        REQUIRE_MESSAGE(reply, (reply ? "" : reply.error().message));
        CHECK(reply->structured_content == json::value{{"order_id", "ord-1"}});
    }

    TEST_CASE("a session the server ended (HTTP 404) begins again with initialize, and the message it refused is "
              "sent once more, in the new session") {
        mcp_support::scratch dir;
        auto script = shop(dir);
        script.session_lifetime = 2; // notifications/initialized and one more message
        stub_http_server server(script);
        {
            auto c = connected(server);
            REQUIRE(c->list_tools());
            for (std::string order : {"ord-1", "ord-2", "ord-3"}) {
                auto reply = c->call_tool("lookup", {{"order_id", order}}, within(5s));
                REQUIRE_MESSAGE(reply, (reply ? "" : reply.error().message));
                CHECK(reply->structured_content == json::value{{"order_id", order}});
            }
        }
        auto journal = journal_of(dir);
        std::vector<std::string> methods;
        for (auto const& m : journal)
            methods.push_back(m.contains("method") ? std::string(m.at("method").as_string()) : "");
        // Each call found its session gone: a new one began, and the call went once, in it.
        std::vector<std::string> const expected{"initialize",
                                                "notifications/initialized",
                                                "tools/list",
                                                "initialize",
                                                "notifications/initialized",
                                                "tools/call",
                                                "initialize",
                                                "notifications/initialized",
                                                "tools/call",
                                                "initialize",
                                                "notifications/initialized",
                                                "tools/call",
                                                ""};
        CHECK(methods == expected);
        CHECK(journal.back() == json::object{{"deleted_session", "stub-session-4"}});
    }

    TEST_CASE("a server that ends each new session at once fails the call, and the client does not loop") {
        mcp_support::scratch dir;
        auto script = shop(dir);
        script.session_lifetime = 1; // notifications/initialized only
        stub_http_server server(script);
        auto c = connected(server);
        auto tools = c->list_tools();
        REQUIRE_FALSE(tools);
        CHECK(tools.error().code == agentrt::errc::server_failed);
        CHECK_MESSAGE(tools.error().message.find("it ended the session (HTTP 404 to a message of session "
                                                 "stub-session-2), right after it began") != std::string::npos,
                      tools.error().message);
        auto journal = journal_of(dir);
        CHECK(std::count_if(journal.begin(), journal.end(), [](json::object const& m) {
                  return m.contains("method") && m.at("method") == "initialize";
              }) == 2);
    }

    TEST_CASE("calls from many threads over sessions the server keeps ending each go once, and all get answers") {
        mcp_support::scratch dir;
        auto script = shop(dir);
        script.session_lifetime = 3; // notifications/initialized and two more messages
        stub_http_server server(script);
        auto c = connected(server);
        constexpr int threads = 4, calls = 5;
        std::vector<std::string> failures(threads);
        {
            std::vector<std::jthread> callers;
            for (int t = 0; t < threads; ++t)
                callers.emplace_back([&, t] {
                    for (int i = 0; i < calls; ++i) {
                        std::string order = "ord-" + std::to_string(t) + "-" + std::to_string(i);
                        auto reply = c->call_tool("lookup", {{"order_id", order}}, within(10s));
                        if (!reply)
                            failures[t] += reply.error().message + "\n";
                        else if (reply->structured_content != json::value{{"order_id", order}})
                            failures[t] += "the answer to " + order + " was another's\n";
                    }
                });
        }
        for (auto const& f : failures)
            CHECK_MESSAGE(f.empty(), f);
        std::map<std::string, int> calls_of;
        int sessions = 0;
        for (auto const& m : journal_of(dir)) {
            if (m.contains("method") && m.at("method") == "tools/call")
                ++calls_of[std::string(m.at("params").at("arguments").at("order_id").as_string())];
            sessions += m.contains("method") && m.at("method") == "initialize";
        }
        CHECK(calls_of.size() == std::size_t{threads * calls});
        CHECK(std::all_of(calls_of.begin(), calls_of.end(), [](auto const& c) { return c.second == 1; }));
        CHECK(sessions >= threads * calls / 2); // a session served at most two calls
    }

    TEST_CASE("a call that waits for another's new session keeps to its own deadline") {
        mcp_support::scratch dir;
        auto script = shop(dir);
        script.session_lifetime = 2; // notifications/initialized and one call
        script.new_session_delay_ms = 3'000;
        stub_http_server server(script);
        auto c = connected(server);
        REQUIRE(c->call_tool("lookup", {{"order_id", "ord-1"}}, within(5s)));
        std::atomic<bool> renewed{false};
        std::jthread renewing([&] {
            auto reply = c->call_tool("lookup", {{"order_id", "ord-2"}}, within(20s)); // begins the slow session
            CHECK_MESSAGE(reply, (reply ? "" : reply.error().message));
            renewed = true;
        });
        std::this_thread::sleep_for(500ms); // the session has ended, and the next is beginning
        auto waiting = c->call_tool("lookup", {{"order_id", "ord-3"}}, within(300ms));
        CHECK_FALSE(renewed); // it gave up before the new session began
        REQUIRE_FALSE(waiting);
        CHECK(waiting.error().code == agentrt::errc::timed_out);
        CHECK_MESSAGE(waiting.error().message.find("the call's deadline passed while another call began a new "
                                                   "session") != std::string::npos,
                      waiting.error().message);
        renewing.join();
        for (auto const& m : journal_of(dir)) // it was never sent
            if (m.contains("params") && m.at("params").as_object().contains("arguments"))
                CHECK(m.at("params").at("arguments").at("order_id") != "ord-3");
    }

    TEST_CASE("a notification the ended session refused leaves the next request to begin a new session") {
        mcp_support::scratch dir;
        auto script = shop(dir);
        script.tools.push_back({"wait", "Never answers.", mcp_support::order_schema(), {}, stub_behaviour::stall});
        script.session_lifetime = 2; // notifications/initialized and the stalled call
        stub_http_server server(script);
        auto c = connected(server);
        auto stalled = c->call_tool("wait", {{"order_id", "ord-1"}}, within(300ms));
        REQUIRE_FALSE(stalled);
        CHECK(stalled.error().code == agentrt::errc::timed_out); // its notifications/cancelled gets 404
        auto reply = c->call_tool("lookup", {{"order_id", "ord-2"}}, within(5s));
        REQUIRE_MESSAGE(reply, (reply ? "" : reply.error().message));
        CHECK(reply->structured_content == json::value{{"order_id", "ord-2"}});
        CHECK(c->tools_changed()); // a new session may serve other tools
    }

    TEST_CASE("an answer of a megabyte as server-sent events arrives whole, though it comes in many chunks") {
        mcp_support::scratch dir;
        auto script = shop(dir, stub_behaviour::oversized); // below the client's cap of 4 MiB here
        script.oversized_bytes = std::size_t{1} << 20;
        script.http_answer = stub_http_answer::events;
        stub_http_server server(script);
        auto c = connected(server);
        auto reply = c->call_tool("lookup", {{"order_id", "ord-1"}}, within(10s));
        REQUIRE_MESSAGE(reply, (reply ? "" : reply.error().message));
        REQUIRE(reply->content.size() == 1);
        CHECK(reply->content[0].at("text").as_string() == std::string(std::size_t{1} << 20, 'x'));
    }

    TEST_CASE("the cap is a message's: events each under it arrive, though together they pass it") {
        mcp_support::scratch dir;
        auto script = shop(dir, stub_behaviour::oversized);
        script.http_answer = stub_http_answer::events;
        script.notification_bytes = 55'000; // the notification's end and the answer's start share a chunk
        script.oversized_bytes = 30'000;
        stub_http_server server(script);
        mcp::client_options options;
        options.max_message_bytes = 60'000;
        auto c = connected(server, {}, options);
        auto reply = c->call_tool("lookup", {{"order_id", "ord-1"}}, within(10s));
        REQUIRE_MESSAGE(reply, (reply ? "" : reply.error().message));
        CHECK(reply->content[0].at("text").as_string().size() == 30'000);
    }

    TEST_CASE("a stalled call over HTTP ends at its deadline and is cancelled") {
        mcp_support::scratch dir;
        for (auto answer : {stub_http_answer::json, stub_http_answer::events}) {
            auto script = shop(dir, stub_behaviour::stall);
            script.http_answer = answer;
            stub_http_server server(script);
            auto c = connected(server);
            auto started = std::chrono::steady_clock::now();
            auto reply = c->call_tool("lookup", {{"order_id", "ord-1"}}, within(300ms));
            REQUIRE_FALSE(reply);
            CHECK_MESSAGE(reply.error().code == agentrt::errc::timed_out, reply.error().message);
            CHECK(std::chrono::steady_clock::now() - started < 5s);
            auto journal = mcp_support::journal_until(dir, "notifications/cancelled");
            CHECK(journal.back().at("params").at("requestId") == journal[journal.size() - 2].at("id"));
            std::filesystem::remove(dir.path / "journal");
        }
    }

    TEST_CASE("a malformed, oversized or cut-off answer over HTTP fails the call and cuts the server off") {
        mcp_support::scratch dir;
        struct fault {
            stub_behaviour behaviour;
            std::string said;
        };
        fault const faults[] = {
            {stub_behaviour::malformed, "not a JSON-RPC message"},
            {stub_behaviour::oversized, "over the cap of 65536 bytes"},
            {stub_behaviour::crash, "cannot reach"},
        };
        for (auto const& f : faults) {
            CAPTURE(f.said);
            stub_http_server server(shop(dir, f.behaviour));
            mcp::client_options options;
            options.max_message_bytes = 65536;
            auto c = connected(server, {}, options);
            auto reply = c->call_tool("lookup", {{"order_id", "ord-1"}}, within(5s));
            REQUIRE_FALSE(reply);
            CHECK(reply.error().code == agentrt::errc::server_failed);
            CHECK_MESSAGE(reply.error().message.find(f.said) != std::string::npos, reply.error().message);
        }
    }
}
