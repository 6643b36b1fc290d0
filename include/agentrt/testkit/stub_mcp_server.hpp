// agentrt/testkit/stub_mcp_server.hpp — a scripted MCP server for tests: a real process on real pipes.
//
//     agentrt::testkit::stub_script script;
//     script.tools.push_back({.name = "lookup", .description = "Look an order up.", .input_schema = schema});
//     script.tools.push_back({.name = "hang", .description = "Never answers.", .input_schema = schema,
//                             .on_call = agentrt::testkit::stub_behaviour::stall});
//     script.journal = dir / "journal";       // every message the server received, one per line
//     auto server = agentrt::mcp::client::start(agentrt::testkit::stub_server("shop", script));
//
// The stub is the agentrt-mcp-stub program (or any program whose main calls run_stub_mcp_server)
// started with its script as JSON. It answers initialize with the script's protocol version,
// tools/list in pages of page_size, and each tools/call as the tool's behaviour says: faults are
// scripted by name, so a test reads as the fault it is about.
#pragma once

#include <agentrt/mcp/client.hpp>

#include <boost/json/object.hpp>

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace agentrt::testkit {

enum class stub_behaviour {
    echo,      // content: the arguments as text; structuredContent: the arguments
    fail,      // isError: true, with a text naming the tool
    stall,     // never answers (a notifications/cancelled for it lands in the journal)
    crash,     // the server exits with status 3 in the middle of the call, answering nothing
    malformed, // the server answers with a line that is not JSON-RPC
    oversized, // the answer's text is oversized_bytes long
};

struct stub_tool {
    std::string name;
    std::string description;
    boost::json::object input_schema{{"type", "object"}};
    boost::json::object annotations;
    stub_behaviour on_call = stub_behaviour::echo;
};

// How the stub answers a POST over HTTP: one JSON message, or a stream of server-sent events (a
// notifications/message first, then what stdio would send, list_changed included).
enum class stub_http_answer {
    json,      // one JSON message
    events,    // server-sent events, lines ending in \n
    events_cr, // server-sent events, lines ending in a bare \r (which the SSE standard allows)
};

struct stub_script {
    std::vector<stub_tool> tools;
    std::size_t page_size = 0;                   // tools per tools/list page; 0 for one page
    std::string protocol_version = "2025-06-18"; // what initialize answers
    bool change_after_first_list = false;        // the first tool's description changes once listed, with list_changed
    std::size_t oversized_bytes = std::size_t{1} << 20;
    std::filesystem::path journal; // empty for none
    // What the stub sends for a request after initialize goes as one JSON-RPC batch, a
    // notifications/message first, as MCP 2025-03-26 allows (and 2025-06-18 no longer does).
    bool batch_answers = false;
    // Over stdio, the answer to initialize is followed in the same write by a batch of one
    // notifications/message, before the client could say notifications/initialized.
    bool batch_after_initialize = false;
    // Over HTTP only:
    stub_http_answer http_answer = stub_http_answer::json;
    std::string bearer_token; // when not empty, a POST without "Authorization: Bearer <it>" gets 401
    // Messages a session takes after initialize before the stub forgets it, as a server expires an
    // idle session: a message of a session it forgot gets 404. 0 for never.
    std::size_t session_lifetime = 0;
    // Milliseconds the answer to each initialize after the first waits: a session slow to begin again.
    std::size_t new_session_delay_ms = 0;
    // As events: the notifications/message sent before each answer carries this many bytes of data.
    std::size_t notification_bytes = 0;
    // A request after initialize gets HTTP 502 with a page that echoes its Authorization header, as
    // a careless gateway's might, the bearer token beginning at byte 190 of the page.
    bool gateway_echoes_authorization = false;

    boost::json::object to_json() const;
    static stub_script from_json(boost::json::object const& script); // throws std::invalid_argument
};

// How to start the stub with `script`: the agentrt-mcp-stub program (the AGENTRT_MCP_STUB
// environment variable names another) and the script as its one argument.
mcp::stdio_server stub_server(std::string name, stub_script const& script);

// The stub serving `script` over HTTP on a loopback port of its own, in a process of its own, for
// as long as this object lives. Over HTTP the stub keeps to the transport strictly: a message
// without the session id initialize gave, or without the MCP-Protocol-Version agreed, gets 400;
// each initialize starts a session ("stub-session-1", then -2...); the session's DELETE is
// journaled as {"deleted_session": ID}.
class stub_http_server {
public:
    // Throws std::runtime_error when the stub does not start or says no address.
    explicit stub_http_server(stub_script const& script);
    ~stub_http_server();
    stub_http_server(stub_http_server const&) = delete;
    stub_http_server& operator=(stub_http_server const&) = delete;

    std::string const& url() const noexcept { return url_; } // "http://127.0.0.1:PORT/mcp"
    mcp::http_server address(std::string name, std::string bearer_token_env = {}) const;

private:
    struct process;
    std::unique_ptr<process> process_;
    std::string url_;
};

// The stub's main: `agentrt-mcp-stub SCRIPT` serves stdin and stdout until stdin closes;
// `agentrt-mcp-stub --http SCRIPT` prints its URL on stdout and serves HTTP until stdin closes.
int run_stub_mcp_server(int argc, char** argv);

} // namespace agentrt::testkit
