// agentrt/mcp/client.hpp — a Model Context Protocol client: a tool server's tools, listed and called.
//
//     auto files = agentrt::mcp::client::start({.name = "files", .command = {"mcp-files", "/srv/share"}});
//     if (!files) std::cerr << files.error() << '\n';
//     auto tools = (*files)->list_tools();                     // every page
//     auto reply = (*files)->call_tool("read", {{"path", "a.txt"}}, context);
//
// JSON-RPC 2.0 over either transport. stdio: the client starts the server process in a process
// group of its own, speaks one message per line over its stdin and stdout, keeps the last bytes of
// its stderr for error messages, and stops it when the client goes (stdin closed, then SIGTERM,
// then SIGKILL). Streamable HTTP: every message is a POST, answered with JSON or a stream of
// server-sent events (both are read), under the session id the server gives at initialize, which
// is deleted when the client goes. Every message is capped in size; a server that sends something
// that is not JSON-RPC, or more than the cap, is cut off and every request waiting on it fails with
// errc::server_failed.
//
// A call waits until the call's deadline and watches the call's stop token: when either ends it, the
// client sends notifications/cancelled for the request and returns errc::timed_out. The request's
// `_meta` carries the step's idempotency key as "agentrt/idempotency-key", so a server can recognise
// an attempt it has seen. Nothing a server says about itself is trusted: its tools' annotations are
// kept to be shown to an operator, and the tools are pinned and classified elsewhere (tools.hpp).
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/catalog/tool.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace agentrt::mcp {

// The protocol versions this client speaks, newest first. It asks for the first; a server that
// answers with another of them is spoken to in that one.
inline constexpr std::string_view protocol_versions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

inline constexpr std::string_view idempotency_key_meta = "agentrt/idempotency-key";

struct stdio_server {
    std::string name;                     // how errors, pins and the operator's file call it
    std::vector<std::string> command;     // the program (looked up on PATH) and its arguments
    std::vector<std::string> environment; // "NAME=value" lines added to this process's environment
};

// A server at an HTTP endpoint (the Streamable HTTP transport). The bearer token is read from the
// environment variable named here when the client starts, sent with every message and written
// nowhere else; plain http carries it only to a loopback address.
struct http_server {
    std::string name;
    std::string url;              // "https://tools.example/mcp", "http://127.0.0.1:8931/mcp"
    std::string bearer_token_env; // empty: no token
};

using server_address = std::variant<stdio_server, http_server>;
std::string const& name_of(server_address const& server) noexcept;

struct client_options {
    std::chrono::milliseconds request_timeout{10'000}; // initialize and each tools/list page
    std::size_t max_message_bytes = std::size_t{4} << 20;
    std::size_t max_stderr_bytes = std::size_t{64} << 10; // the tail kept for errors
    std::chrono::milliseconds stop_grace{2'000};          // after stdin closes, and again after SIGTERM
};

struct listed_tool {
    std::string name;
    std::string description;
    boost::json::object input_schema;
    boost::json::object annotations; // the server's own hints (readOnlyHint...): shown, never trusted

    // {"name", "description", "inputSchema"}: what a pin covers.
    boost::json::object definition() const;
};

struct tool_reply {
    boost::json::array content;
    std::optional<boost::json::value> structured_content;
    bool is_error = false;
};

class client {
public:
    // Starts the server and negotiates the protocol version: errc::server_failed when the program
    // cannot be started, exits, answers with a version outside protocol_versions (saying whether it
    // is older or newer) or offers no tools.
    static result<std::shared_ptr<client>> start(stdio_server server, client_options options = {});
    // Connects over HTTP: errc::server_failed also when the server demands authorization (HTTP 401
    // or 403), saying whether the token is missing or was refused, never what it is.
    static result<std::shared_ptr<client>> start(http_server server, client_options options = {});
    static result<std::shared_ptr<client>> start(server_address server, client_options options = {});

    client(client const&) = delete;
    client& operator=(client const&) = delete;
    ~client();

    std::string const& name() const noexcept;
    std::string const& protocol_version() const noexcept;
    boost::json::object const& server_info() const noexcept;

    // Every tool, following nextCursor to the last page.
    result<std::vector<listed_tool>> list_tools();
    // errc::timed_out at the context's deadline or stop; a JSON-RPC error answer is errc::tool_failed.
    result<tool_reply> call_tool(std::string_view tool, boost::json::object arguments, call_context const& context);

    // True once the server has said notifications/tools/list_changed.
    bool tools_changed() const noexcept;
    // The last max_stderr_bytes a stdio server wrote to stderr; empty for an HTTP server.
    std::string stderr_tail() const;

    struct state;
    static std::shared_ptr<client> adopt(std::unique_ptr<state> s);

private:
    explicit client(std::unique_ptr<state> s);
    std::unique_ptr<state> state_;
};

} // namespace agentrt::mcp
