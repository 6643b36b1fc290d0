// The Streamable HTTP transport (MCP 2025-06-18, "Transports"): every message is a POST to the
// server's endpoint, answered by one JSON message, by a stream of server-sent events that ends with
// the answer, or by 202 Accepted for a notification. The session id the server gives at initialize
// goes with every later message; the bearer token, read from the environment, goes with every
// message and into nothing else: no error, no log.
#include "transport.hpp"

#include "http_transfer.hpp"
#include "sse.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <utility>

namespace agentrt::mcp::detail {
namespace {

using namespace std::chrono;

error failed(std::string message) {
    return error{errc::server_failed, std::move(message), {}};
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

std::string trimmed(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    return std::string(text);
}

// What a message asks: a request (a method and an id) wants an answer; a notification or an
// answer does not; initialize begins a session.
struct message_kind {
    bool request = false, initialize = false;
};

message_kind kind_of(std::string_view message) {
    boost::system::error_code ec;
    auto v = boost::json::parse(message, ec);
    auto const* o = ec ? nullptr : v.if_object();
    auto const* method = o ? o->if_contains("method") : nullptr;
    return {method && o->contains("id"), method && *method == "initialize"};
}

// The bytes of one response, handed up as messages as soon as each is whole.
struct exchange final : http::response_reader {
    receiver const* to = nullptr;
    std::size_t cap = 0;
    std::stop_token stop;
    time_point deadline;

    long status = 0;
    bool in_session = false;  // the message belongs to the session: it cannot go once that ended
    std::string sent_session; // the Mcp-Session-Id the message went with
    std::string content_type, session_id, authenticate;
    std::string body;        // JSON: the whole body; events: what follows the last whole event
    std::size_t scanned = 0; // events: where the search for a blank line goes on from
    bool events = false, over_cap = false;

    // `stream_ended`: nothing follows, so a \r at the very end is a whole line ending.
    void hand_up_events(bool stream_ended = false) {
        // The end of the last whole event: a blank line (a line ending right after a line ending).
        // The search goes on where the last chunk's ended, so that an event in many chunks is read
        // once, not once per chunk.
        std::size_t end = 0, largest = 0;                       // the largest whole event, framing included
        auto line_end_at = [&](std::size_t at) -> std::size_t { // where the line ending at `at` ends; 0 when unknown
            if (body[at] == '\n')
                return at + 1;
            if (at + 1 < body.size())
                return at + (body[at + 1] == '\n' ? 2 : 1);
            return stream_ended ? at + 1 : 0; // a \r that may be the first half of \r\n
        };
        for (std::size_t i = scanned; i < body.size(); ++i) {
            if (body[i] != '\n' && body[i] != '\r')
                continue;
            std::size_t const next = line_end_at(i);
            if (next == 0)
                break;
            if (next < body.size() && (body[next] == '\n' || body[next] == '\r')) {
                std::size_t const after = line_end_at(next);
                if (after == 0)
                    break;
                largest = std::max(largest, after - end);
                end = after;
            }
            i = next - 1;
        }
        if (largest > cap) {
            over_cap = true; // handed up, the event would be a message over the cap
            return;
        }
        auto const resume_from = [&] { // the line endings at the end may pair with what comes next
            std::size_t at = body.size();
            while (at > 0 && (body[at - 1] == '\n' || body[at - 1] == '\r'))
                --at;
            return at;
        };
        if (end == 0) {
            scanned = resume_from();
            return;
        }
        auto whole = sse::parse(std::string_view(body).substr(0, end));
        body.erase(0, end);
        scanned = resume_from();
        for (auto const& e : whole.events)
            if (e.type == "message" && !e.data.empty())
                to->message(e.data);
    }

    bool header_line(std::string_view line) override {
        auto colon = line.find(':');
        if (colon == std::string_view::npos)
            return true;
        auto name = lower(line.substr(0, colon));
        auto value = trimmed(line.substr(colon + 1));
        if (name == "content-type")
            content_type = lower(value);
        else if (name == "mcp-session-id")
            session_id = value;
        else if (name == "www-authenticate")
            authenticate = value;
        return true;
    }
    // The cap is a message's: a JSON body's, or one event's as it is sent. A chunk can end one
    // event and begin the next, so events are handed up before what is left is measured.
    bool body_bytes(std::string_view bytes) override {
        events = content_type.rfind("text/event-stream", 0) == 0;
        if (!events && body.size() + bytes.size() > cap) {
            over_cap = true;
            return false;
        }
        body.append(bytes);
        if (events) {
            hand_up_events();
            if (body.size() > cap)
                over_cap = true;
        }
        return !over_cap;
    }
    bool go_on() override { return !stop.stop_requested() && steady_clock::now() < deadline; }
};

class http_session final : public transport {
public:
    http_session(http_server server, std::string shown_url, client_options options, std::string token, bool loopback)
        : server_(std::move(server)), shown_url_(std::move(shown_url)), options_(options), token_(std::move(token)),
          loopback_(loopback) {}

    ~http_session() override { close(milliseconds(1'000)); }

    void receive(receiver to) override { to_ = std::move(to); }

    void negotiated(std::string_view version) override {
        std::lock_guard lock(mutex_);
        version_ = std::string(version);
    }

    void stop_receiving() noexcept override {
        std::lock_guard lock(mutex_);
        stopped_ = true;
    }

    // A session the server ended stays ended until an initialize begins the next: until then a
    // message goes nowhere and says not_found at once, so that its sender begins the next session
    // (a message sent without the session id would only be refused, HTTP 400).
    result<void> send(std::string_view message, time_point deadline, std::stop_token stop) override {
        if (receiving_stopped())
            return failed("the connection is closed");
        auto const kind = kind_of(message);
        exchange x;
        x.in_session = !kind.initialize;
        x.to = &to_;
        x.cap = options_.max_message_bytes;
        x.stop = std::move(stop);
        x.deadline = deadline;
        auto done = perform("POST", message, x);
        if (!done)
            return done;
        if (kind.initialize && x.status >= 200 && x.status < 300) { // the id of the session it began, if any
            std::lock_guard lock(mutex_);
            replacement_ = !ended_.empty();
            session_ = x.session_id;
            ended_.clear();
            messages_in_session_ = 0;
        }
        if (x.status == 202 || x.status == 204) {
            if (kind.request) // nothing would ever answer it
                return failed("it answered a request with HTTP " + std::to_string(x.status) + " and no message");
            return {};
        }
        if (x.status == 401 || x.status == 403)
            return failed(authorization_demand(x));
        if (x.status == 404 && !x.sent_session.empty()) {
            std::string said = "HTTP 404 to a message of session " + x.sent_session;
            std::lock_guard lock(mutex_);
            if (session_ != x.sent_session) // a session begun since, which a late 404 must not end
                return error{errc::not_found, "it ended the session (" + said + ")", {}};
            session_.clear();
            ended_ = said;
            // A session begun for an ended one that refuses the first message after
            // notifications/initialized: a server that ends each session at once.
            if (replacement_ && messages_in_session_ <= 2)
                return failed("it ended the session (" + said + "), right after it began");
            return error{errc::not_found, "it ended the session (" + said + ")", {}};
        }
        if (x.status < 200 || x.status >= 300)
            return failed("it answered HTTP " + std::to_string(x.status) + excerpt_of(redacted(x.body)));
        if (x.events) {
            x.hand_up_events(true); // a last event that ends the stream with a bare \r
            // What follows the last blank line is an event cut off, which the SSE standard discards.
        } else if (x.content_type.rfind("application/json", 0) == 0) {
            if (!x.body.empty())
                to_.message(x.body);
        } else if (!x.body.empty()) {
            to_.broken("it answered with content type \"" + x.content_type +
                       "\", neither application/json nor text/event-stream");
        }
        return {};
    }

    void close(milliseconds grace) override {
        std::string id;
        {
            std::lock_guard lock(mutex_);
            if (closed_)
                return;
            closed_ = stopped_ = true;
            id = session_;
        }
        if (id.empty())
            return;
        exchange x; // the session's end, as the transport asks: a DELETE, whose answer matters to no one
        receiver none{[](std::string_view) {}, [](std::string) {}};
        x.to = &none;
        x.cap = 1 << 16;
        x.deadline = steady_clock::now() + grace;
        (void)perform("DELETE", {}, x);
    }

    std::string diagnostics() const override { return {}; }

    std::string redacted(std::string text) const override { return http::redacted(std::move(text), token_); }

private:
    bool receiving_stopped() const {
        std::lock_guard lock(mutex_);
        return stopped_;
    }
    static std::string excerpt_of(std::string const& body) {
        if (body.empty())
            return "";
        std::string out = body.substr(0, 200);
        std::replace_if(
            out.begin(), out.end(), [](unsigned char c) { return c < 0x20; }, ' ');
        return ": " + out + (body.size() > 200 ? "..." : "");
    }

    std::string authorization_demand(exchange const& x) const {
        std::string said = x.authenticate.empty() ? "" : " (WWW-Authenticate: " + x.authenticate + ")";
        std::string code = "HTTP " + std::to_string(x.status);
        if (server_.bearer_token_env.empty())
            return "it demands authorization (" + code + ")" + said +
                   ": name the environment variable that holds its bearer token (bearer_token_env)";
        if (token_.empty())
            return "it demands authorization (" + code + ")" + said + " and " + server_.bearer_token_env +
                   ", which should hold its bearer token, is empty or unset";
        return "it refused the bearer token in " + server_.bearer_token_env + " (" + code + ")" + said;
    }

    result<void> perform(char const* method, std::string_view body, exchange& x) {
        http::request r{.url = server_.url, .method = method, .body = body, .loopback = loopback_};
        r.headers = {"Content-Type: application/json", "Accept: application/json, text/event-stream"};
        {
            // Checked as the id is taken, so that another thread's 404 cannot come in between.
            std::lock_guard lock(mutex_);
            if (x.in_session && !ended_.empty())
                return error{errc::not_found, "it ended the session (" + ended_ + ")", {}};
            x.sent_session = session_;
            if (!session_.empty()) {
                r.headers.push_back("Mcp-Session-Id: " + session_);
                ++messages_in_session_;
            }
            if (!version_.empty())
                r.headers.push_back("MCP-Protocol-Version: " + version_);
        }
        if (!token_.empty())
            r.headers.push_back("Authorization: Bearer " + token_);
        auto const done = http::perform(r, x);
        x.status = done.status;
        if (done.code == CURLE_OK)
            return {};
        if (x.over_cap) {
            to_.broken("it sent an answer over the cap of " + std::to_string(x.cap) + " bytes");
            return failed("it sent an answer over the cap of " + std::to_string(x.cap) + " bytes");
        }
        if (done.code == CURLE_ABORTED_BY_CALLBACK)
            return error{
                errc::timed_out, x.stop.stop_requested() ? "the call was stopped" : "the call's deadline passed", {}};
        return failed("cannot reach " + shown_url_ + ": " + done.error);
    }

    http_server server_;
    std::string shown_url_; // the server's URL as messages name it, without what may be a secret
    client_options options_;
    std::string const token_;
    bool const loopback_;
    receiver to_;
    mutable std::mutex mutex_;
    std::string session_, version_;
    std::string ended_;                   // how the last session ended, until the next begins
    bool replacement_ = false;            // the session was begun for one that ended
    std::size_t messages_in_session_ = 0; // sent with its id, by every thread
    bool stopped_ = false, closed_ = false;
};

} // namespace

result<std::unique_ptr<transport>> http_transport(http_server const& server, client_options const& options) {
    if (!http::curl_ready())
        return failed("libcurl could not be initialised");
    auto parts = http::parse_url(server.url);
    if (!parts || (parts->scheme != "http" && parts->scheme != "https"))
        return failed("MCP server \"" + server.name + "\": its url \"" + server.url +
                      "\" is not an http:// or https:// URL");
    std::string token;
    if (!server.bearer_token_env.empty())
        if (char const* value = std::getenv(server.bearer_token_env.c_str()))
            token = value;
    bool const near = http::is_loopback(parts->host);
    if (!token.empty() && parts->scheme == "http" && !near)
        return failed("MCP server \"" + server.name + "\": the bearer token in " + server.bearer_token_env +
                      " would be sent in the clear to " + parts->host +
                      ": use https, or plain http only to a loopback address");
    return std::unique_ptr<transport>(new http_session(server, parts->shown, options, std::move(token), near));
}

} // namespace agentrt::mcp::detail
