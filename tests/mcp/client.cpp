// The MCP client against the test kit's stub server: a real process on real pipes, whose journal
// shows what reached it.
#include <agentrt/mcp/client.hpp>

#include <agentrt/testkit/stub_mcp_server.hpp>

#include "stdio.hpp"
#include "support/mcp.hpp"

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <stop_token>
#include <thread>

namespace json = boost::json;
using namespace std::chrono_literals;
using agentrt::testkit::stub_behaviour;
using agentrt::testkit::stub_script;
using mcp_support::journal_of;
using mcp_support::started;
using mcp_support::within;

namespace {

stub_script one_tool(stub_behaviour behaviour, mcp_support::scratch const& dir) {
    stub_script script;
    script.tools.push_back({"lookup", "Look an order up.", mcp_support::order_schema(), {}, behaviour});
    script.journal = dir.path / "journal";
    return script;
}

} // namespace

TEST_SUITE("mcp client over stdio") {

    TEST_CASE("the client negotiates the newest version and lists every tool through pagination") {
        mcp_support::scratch dir;
        stub_script script;
        for (char c : std::string("abcde"))
            script.tools.push_back({std::string("tool_") + c, "A tool.", mcp_support::order_schema(), {}, {}});
        script.page_size = 2;
        script.journal = dir.path / "journal";
        auto server = started(script);
        CHECK(server->protocol_version() == "2025-06-18");
        CHECK(server->server_info().at("name") == "agentrt-mcp-stub");

        auto tools = server->list_tools();
        REQUIRE(tools);
        REQUIRE(tools->size() == 5);
        CHECK(tools->front().name == "tool_a");
        CHECK(tools->back().name == "tool_e");
        CHECK(tools->front().input_schema == mcp_support::order_schema());

        auto journal = journal_of(dir);
        REQUIRE(journal.size() == 5); // initialize, initialized, three pages
        CHECK(journal[0].at("method") == "initialize");
        CHECK(journal[0].at("params").at("protocolVersion") == "2025-06-18");
        CHECK(journal[1].at("method") == "notifications/initialized");
        CHECK(journal[3].at("params").at("cursor") == "2");
        CHECK(journal[4].at("params").at("cursor") == "4");
    }

    TEST_CASE("a server answering an older version agentrt speaks is spoken to in it") {
        mcp_support::scratch dir;
        auto script = one_tool(stub_behaviour::echo, dir);
        script.protocol_version = "2024-11-05";
        auto server = started(script);
        CHECK(server->protocol_version() == "2024-11-05");
    }

    TEST_CASE("under MCP 2025-03-26 a JSON-RPC batch is read message by message, and under 2025-06-18 it cuts the "
              "server off") {
        mcp_support::scratch dir;
        auto script = one_tool(stub_behaviour::echo, dir);
        script.batch_answers = true; // a notifications/message, then the answer, in one array
        script.change_after_first_list = true;
        script.protocol_version = "2025-03-26";
        {
            auto server = started(script);
            auto tools = server->list_tools();
            REQUIRE_MESSAGE(tools, (tools ? "" : tools.error().message));
            CHECK(tools->size() == 1);
            CHECK(server->tools_changed()); // the list_changed notification after the answer, in its batch
            auto reply = server->call_tool("lookup", {{"order_id", "ord-1"}}, within(10s));
            REQUIRE_MESSAGE(reply, (reply ? "" : reply.error().message));
            CHECK(reply->structured_content == json::value{{"order_id", "ord-1"}});
        }
        script.protocol_version = "2025-06-18";
        auto server = started(script);
        auto tools = server->list_tools();
        REQUIRE_FALSE(tools);
        CHECK(tools.error().code == agentrt::errc::server_failed);
        CHECK_MESSAGE(tools.error().message.find("it sent a JSON-RPC batch, which of the versions agentrt speaks only "
                                                 "MCP 2025-03-26 allows") != std::string::npos,
                      tools.error().message);
    }

    TEST_CASE("a batch that follows the answer to initialize at once is read under the version that answer "
              "agreed") {
        mcp_support::scratch dir;
        auto script = one_tool(stub_behaviour::echo, dir);
        script.protocol_version = "2025-03-26";
        script.batch_after_initialize = true; // in the same write as the answer
        for (int i = 0; i < 20; ++i) {        // the reader must not outrun the version it agreed
            auto server = started(script);
            auto tools = server->list_tools();
            REQUIRE_MESSAGE(tools, (tools ? "" : tools.error().message));
            CHECK(tools->size() == 1);
        }
    }

    TEST_CASE("a server too new or too old is refused, saying which") {
        mcp_support::scratch dir;
        auto script = one_tool(stub_behaviour::echo, dir);
        script.protocol_version = "2099-01-01";
        auto newer = agentrt::mcp::client::start(agentrt::testkit::stub_server("future", script));
        REQUIRE_FALSE(newer);
        CHECK(newer.error().code == agentrt::errc::server_failed);
        CHECK(newer.error().message ==
              "MCP server \"future\": it speaks MCP 2099-01-01, newer than every version agentrt speaks "
              "(2025-06-18, 2025-03-26, 2024-11-05)");
        script.protocol_version = "2023-01-01";
        auto older = agentrt::mcp::client::start(agentrt::testkit::stub_server("past", script));
        REQUIRE_FALSE(older);
        CHECK(older.error().message.find("it speaks MCP 2023-01-01, older than") != std::string::npos);
    }

    TEST_CASE("a call carries the step's idempotency key in _meta and returns structuredContent") {
        mcp_support::scratch dir;
        auto server = started(one_tool(stub_behaviour::echo, dir));
        auto reply = server->call_tool("lookup", {{"order_id", "ord-1"}}, within(5s, "run-7/3"));
        REQUIRE(reply);
        CHECK_FALSE(reply->is_error);
        CHECK(reply->structured_content == json::value{{"order_id", "ord-1"}});
        CHECK(reply->content.at(0).at("text") == R"({"order_id":"ord-1"})");
        auto call = journal_of(dir).back();
        CHECK(call.at("method") == "tools/call");
        CHECK(call.at("params").at("_meta").at("agentrt/idempotency-key") == "run-7/3");
    }

    TEST_CASE("isError is the tool's own failure, and a JSON-RPC error names the server's words") {
        mcp_support::scratch dir;
        auto server = started(one_tool(stub_behaviour::fail, dir));
        auto reply = server->call_tool("lookup", {{"order_id", "ord-1"}}, within(5s));
        REQUIRE(reply);
        CHECK(reply->is_error);
        auto unknown = server->call_tool("no_such_tool", {}, within(5s));
        REQUIRE_FALSE(unknown);
        CHECK(unknown.error().code == agentrt::errc::tool_failed);
        CHECK(unknown.error().message ==
              "MCP server \"shop\": tools/call \"no_such_tool\" was answered with error -32602: "
              "Unknown tool: \"no_such_tool\"");
    }

    TEST_CASE("a stalled call ends at its deadline and is cancelled with notifications/cancelled") {
        mcp_support::scratch dir;
        auto server = started(one_tool(stub_behaviour::stall, dir));
        auto begun = std::chrono::steady_clock::now();
        auto reply = server->call_tool("lookup", {{"order_id", "ord-1"}}, within(300ms));
        REQUIRE_FALSE(reply);
        CHECK(reply.error().code == agentrt::errc::timed_out);
        CHECK(std::chrono::steady_clock::now() - begun >= 300ms);
        auto journal = mcp_support::journal_until(dir, "notifications/cancelled");
        REQUIRE(journal.size() >= 2);
        auto const& call = journal[journal.size() - 2];
        CHECK(call.at("method") == "tools/call");
        CHECK(journal.back().at("params").at("requestId") == call.at("id"));
        CHECK(journal.back().at("params").at("reason") == "the call's deadline passed");
        // The server is still there for the next request.
        CHECK(server->list_tools());
    }

    TEST_CASE("the call's stop token cancels its request") {
        mcp_support::scratch dir;
        auto server = started(one_tool(stub_behaviour::stall, dir));
        std::stop_source stop;
        auto context = within(60s);
        context.stop = stop.get_token();
        std::jthread canceller([&] {
            std::this_thread::sleep_for(100ms);
            stop.request_stop();
        });
        auto reply = server->call_tool("lookup", {{"order_id", "ord-1"}}, context);
        REQUIRE_FALSE(reply);
        CHECK(reply.error().code == agentrt::errc::timed_out);
        CHECK(mcp_support::journal_until(dir, "notifications/cancelled").back().at("params").at("reason") ==
              "the call was stopped");
    }

    TEST_CASE("a server that crashes mid-call fails the call with its exit status and stderr") {
        mcp_support::scratch dir;
        auto server = started(one_tool(stub_behaviour::crash, dir));
        auto reply = server->call_tool("lookup", {{"order_id", "ord-1"}}, within(10s));
        REQUIRE_FALSE(reply);
        CHECK(reply.error().code == agentrt::errc::server_failed);
        CHECK(reply.error().message.find("it exited with status 3") != std::string::npos);
        CHECK(reply.error().message.find("its stderr ends with: agentrt-mcp-stub: serving 1 tools") !=
              std::string::npos);
        auto next = server->list_tools();
        REQUIRE_FALSE(next);
        CHECK(next.error().code == agentrt::errc::server_failed);
    }

    TEST_CASE("an answer that is not JSON-RPC cuts the server off") {
        mcp_support::scratch dir;
        auto server = started(one_tool(stub_behaviour::malformed, dir));
        auto reply = server->call_tool("lookup", {{"order_id", "ord-1"}}, within(10s));
        REQUIRE_FALSE(reply);
        CHECK(reply.error().code == agentrt::errc::server_failed);
        CHECK(reply.error().message.find("it sent a line that is not a JSON-RPC message") != std::string::npos);
    }

    TEST_CASE("a message over the cap is refused") {
        mcp_support::scratch dir;
        auto script = one_tool(stub_behaviour::oversized, dir);
        script.oversized_bytes = 100'000;
        agentrt::mcp::client_options options;
        options.max_message_bytes = 64 * 1024;
        auto server = agentrt::mcp::client::start(agentrt::testkit::stub_server("shop", script), options);
        REQUIRE(server);
        auto reply = (*server)->call_tool("lookup", {{"order_id", "ord-1"}}, within(10s));
        REQUIRE_FALSE(reply);
        CHECK(reply.error().code == agentrt::errc::server_failed);
        CHECK(reply.error().message.find("over the cap of 65536") != std::string::npos);
    }

    TEST_CASE("a program that cannot be started is a clear error") {
        auto server = agentrt::mcp::client::start(
            agentrt::mcp::stdio_server{"ghost", {"/nonexistent/agentrt-no-such-server"}, {}});
        REQUIRE_FALSE(server);
        CHECK(server.error().code == agentrt::errc::server_failed);
        CHECK(server.error().message.find("MCP server \"ghost\"") == 0);
    }

    TEST_CASE("the server says its tools changed, and the client knows until it lists them again") {
        mcp_support::scratch dir;
        auto script = one_tool(stub_behaviour::echo, dir);
        script.change_after_first_list = true;
        auto server = started(script);
        auto first = server->list_tools();
        REQUIRE(first);
        CHECK(first->front().description == "Look an order up.");
        for (int i = 0; i < 200 && !server->tools_changed(); ++i)
            std::this_thread::sleep_for(5ms);
        CHECK(server->tools_changed());
        auto second = server->list_tools();
        REQUIRE(second);
        CHECK(second->front().description == "Look an order up. (changed)");
        CHECK_FALSE(server->tools_changed());
    }

    TEST_CASE("the server process is stopped when its client goes") {
        mcp_support::scratch dir;
        auto script = one_tool(stub_behaviour::stall, dir);
        {
            auto server = started(script);
            auto reply = server->call_tool("lookup", {{"order_id", "ord-1"}}, within(50ms));
            CHECK_FALSE(reply);
        }
        // Its stdin closed, the stub read to its end: the journal ends where the client stopped talking.
        auto journal = journal_of(dir);
        REQUIRE_FALSE(journal.empty());
        CHECK(journal.back().at("method") == "notifications/cancelled");
        CHECK(mcp_support::stub_processes_running(dir) == 0);
    }

    TEST_CASE("what the server started is stopped with it, even when it holds the server's stderr open") {
        mcp_support::scratch dir;
        auto stub = agentrt::testkit::stub_server("shop", one_tool(stub_behaviour::echo, dir));
        // A helper that outlives its parent and keeps stderr open: a reader waiting on it would wait forever.
        stub.command = {"sh", "-c", "sleep 299.25 & exec \"$0\" \"$1\"", stub.command[0], stub.command[1]};
        {
            auto server = agentrt::mcp::client::start(stub);
            REQUIRE(server);
            CHECK((*server)->list_tools());
        }
        int helpers = 0;
        for (auto const& entry : std::filesystem::directory_iterator("/proc")) {
            std::ifstream in(entry.path() / "cmdline", std::ios::binary);
            std::string command((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            helpers += command.find("299.25") != std::string::npos;
        }
        CHECK(helpers == 0);
    }

    TEST_CASE("the operator's environment replaces an inherited variable of the same name") {
        mcp_support::scratch dir;
        ::setenv("AGENTRT_TEST_LOG", "debug", 1);
        auto stub = agentrt::testkit::stub_server("shop", one_tool(stub_behaviour::echo, dir));
        stub.command = {"sh", "-c", "printf '%s;' \"$AGENTRT_TEST_LOG\" >&2; exec \"$0\" \"$1\"", stub.command[0],
                        stub.command[1]};
        stub.environment = {"AGENTRT_TEST_LOG=quiet"};
        auto server = agentrt::mcp::client::start(stub);
        ::unsetenv("AGENTRT_TEST_LOG");
        REQUIRE(server);
        for (int i = 0; i < 100 && (*server)->stderr_tail().empty(); ++i)
            std::this_thread::sleep_for(10ms);
        CHECK((*server)->stderr_tail().find("quiet;") == 0);
    }

    TEST_CASE("a message the server stops reading halfway closes its stdin, so nothing is glued to the half") {
        auto process = agentrt::mcp::detail::stdio_process::spawn({"deaf", {"sleep", "30"}, {}}, 1024);
        REQUIRE(process);
        std::string big(std::size_t{1} << 20, 'x'); // far more than a pipe holds
        auto half = (*process)->write_line(big, std::chrono::steady_clock::now() + 200ms);
        REQUIRE_FALSE(half);
        CHECK(half.error().code == agentrt::errc::server_failed);
        CHECK(half.error().message ==
              "it stopped reading its stdin in the middle of a message, so its stdin was closed");
        auto next = (*process)->write_line("{}", std::chrono::steady_clock::now() + 200ms);
        REQUIRE_FALSE(next);
        CHECK(next.error().message == "its stdin is closed");

        auto quiet = agentrt::mcp::detail::stdio_process::spawn({"deaf", {"sleep", "30"}, {}}, 1024);
        REQUIRE(quiet);
        std::stop_source stop;
        stop.request_stop();
        auto stopped = (*quiet)->write_line(big + big, std::chrono::steady_clock::time_point::max(), stop.get_token());
        REQUIRE_FALSE(stopped); // the stop ends the wait whatever the deadline
        CHECK(stopped.error().code == agentrt::errc::server_failed);
        (*quiet)->stop(100ms);
        (*process)->stop(100ms);
    }
}
