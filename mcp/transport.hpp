// How the client's messages reach a server and the server's reach the client: a process's pipes
// (stdio) or HTTP POSTs (Streamable HTTP). The client above speaks JSON-RPC the same over either.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/mcp/client.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

namespace agentrt::mcp::detail {

using time_point = std::chrono::steady_clock::time_point;

// What the transport hands up: each message the server sends, and once, why nothing more will come.
struct receiver {
    std::function<void(std::string_view message)> message;
    std::function<void(std::string why)> broken;
};

class transport {
public:
    virtual ~transport() = default;

    // From here on, what the server sends goes to `to`.
    virtual void receive(receiver to) = 0;
    // Sends one message before `deadline` (errc::timed_out when it or `stop` ends the wait). Over
    // HTTP, what the server answers has gone to the receiver by the time this returns, and
    // errc::not_found says the server no longer knows the session (HTTP 404): it took nothing of the
    // message, and the transport has forgotten the session, so that an initialize starts another.
    virtual result<void> send(std::string_view message, time_point deadline, std::stop_token stop) = 0;
    // The protocol version agreed at initialize, for the transports that announce it.
    virtual void negotiated(std::string_view) {}
    // Nothing more is handed up.
    virtual void stop_receiving() noexcept = 0;
    // Ends the connection: the process stopped, the HTTP session deleted.
    virtual void close(std::chrono::milliseconds grace) = 0;
    // A process's stderr tail; empty for a transport without one.
    virtual std::string diagnostics() const = 0;
    // `text` with any secret of the transport's (a bearer token) blotted out, for an error message.
    virtual std::string redacted(std::string text) const { return text; }
};

result<std::unique_ptr<transport>> stdio_transport(stdio_server const& server, client_options const& options);
result<std::unique_ptr<transport>> http_transport(http_server const& server, client_options const& options);

} // namespace agentrt::mcp::detail
