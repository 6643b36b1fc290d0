// The Streamable HTTP transport (MCP 2025-06-18, "Transports"): every message is a POST to the
// server's endpoint, answered by one JSON message, by a stream of server-sent events that ends with
// the answer, or by 202 Accepted for a notification. The session id the server gives at initialize
// goes with every later message; the bearer token, read from the environment, goes with every
// message and into nothing else: no error, no log.
#include "transport.hpp"

#include "sse.hpp"

#include <boost/json/parse.hpp>

#include <arpa/inet.h>
#include <curl/curl.h>

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

struct url_parts {
    std::string scheme, host;
};

std::optional<url_parts> parse_url(std::string const& url) {
    std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> u(curl_url(), curl_url_cleanup);
    if (!u || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
        return std::nullopt;
    url_parts parts;
    for (auto [part, into] : {std::pair{CURLUPART_SCHEME, &parts.scheme}, std::pair{CURLUPART_HOST, &parts.host}}) {
        char* text = nullptr;
        if (curl_url_get(u.get(), part, &text, 0) != CURLUE_OK)
            return std::nullopt;
        *into = lower(text);
        curl_free(text);
    }
    return parts;
}

// A loopback address by its literal, or localhost: never a name that merely starts like one.
bool loopback(std::string const& host) {
    in_addr v4{};
    if (::inet_pton(AF_INET, host.c_str(), &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127;
    return host == "localhost" || host == "[::1]" || host == "::1";
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
struct exchange {
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
        std::size_t end = 0;
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
                end = after;
            }
            i = next - 1;
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
};

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
    auto& x = *static_cast<exchange*>(user);
    std::string_view line(data, size * count);
    auto colon = line.find(':');
    if (colon == std::string_view::npos)
        return size * count;
    auto name = lower(line.substr(0, colon));
    auto value = trimmed(line.substr(colon + 1));
    if (name == "content-type")
        x.content_type = lower(value);
    else if (name == "mcp-session-id")
        x.session_id = value;
    else if (name == "www-authenticate")
        x.authenticate = value;
    return size * count;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
    auto& x = *static_cast<exchange*>(user);
    std::size_t const n = size * count;
    if (x.body.size() + n > x.cap) {
        x.over_cap = true;
        return 0; // libcurl ends the transfer
    }
    x.body.append(data, n);
    x.events = x.content_type.rfind("text/event-stream", 0) == 0;
    if (x.events)
        x.hand_up_events();
    return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto const& x = *static_cast<exchange const*>(user);
    return x.stop.stop_requested() || steady_clock::now() >= x.deadline ? 1 : 0;
}

class http_session final : public transport {
public:
    http_session(http_server server, client_options options, std::string token, bool loopback)
        : server_(std::move(server)), options_(options), token_(std::move(token)), loopback_(loopback) {}

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
            return failed("it answered HTTP " + std::to_string(x.status) + excerpt_of(x.body));
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

    std::string redacted(std::string text) const override {
        if (token_.empty())
            return text;
        constexpr std::string_view mark = "[redacted]";
        for (auto at = text.find(token_); at != std::string::npos; at = text.find(token_, at + mark.size()))
            text.replace(at, token_.size(), mark);
        return text;
    }

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
        char error_text[CURL_ERROR_SIZE] = {}; // written by libcurl until the handle is cleaned up
        std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> handle(curl_easy_init(), curl_easy_cleanup);
        if (!handle)
            return failed("libcurl could not make a handle");
        std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(nullptr, curl_slist_free_all);
        auto add = [&](std::string const& line) { headers.reset(curl_slist_append(headers.release(), line.c_str())); };
        add("Content-Type: application/json");
        add("Accept: application/json, text/event-stream");
        {
            // Checked as the id is taken, so that another thread's 404 cannot come in between.
            std::lock_guard lock(mutex_);
            if (x.in_session && !ended_.empty())
                return error{errc::not_found, "it ended the session (" + ended_ + ")", {}};
            x.sent_session = session_;
            if (!session_.empty()) {
                add("Mcp-Session-Id: " + session_);
                ++messages_in_session_;
            }
            if (!version_.empty())
                add("MCP-Protocol-Version: " + version_);
        }
        if (!token_.empty())
            add("Authorization: Bearer " + token_);
        auto* e = handle.get();
        curl_easy_setopt(e, CURLOPT_URL, server_.url.c_str());
        curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
        if (loopback_)
            curl_easy_setopt(e, CURLOPT_PROXY, ""); // a proxy variable must not carry a loopback request elsewhere
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
        if (std::string_view(method) == "POST") {
            curl_easy_setopt(e, CURLOPT_POSTFIELDS, body.data());
            curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
        }
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.get());
        curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(e, CURLOPT_HEADERDATA, &x);
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, &x);
        curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(e, CURLOPT_XFERINFODATA, &x);
        curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error_text);
        auto const rc = curl_easy_perform(e);
        curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &x.status);
        if (rc == CURLE_OK)
            return {};
        if (x.over_cap) {
            to_.broken("it sent an answer over the cap of " + std::to_string(x.cap) + " bytes");
            return failed("it sent an answer over the cap of " + std::to_string(x.cap) + " bytes");
        }
        if (rc == CURLE_ABORTED_BY_CALLBACK)
            return error{
                errc::timed_out, x.stop.stop_requested() ? "the call was stopped" : "the call's deadline passed", {}};
        return failed("cannot reach " + server_.url + ": " + (*error_text ? error_text : curl_easy_strerror(rc)));
    }

    http_server server_;
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
    static bool const ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    if (!ready)
        return failed("libcurl could not be initialised");
    auto parts = parse_url(server.url);
    if (!parts || (parts->scheme != "http" && parts->scheme != "https"))
        return failed("MCP server \"" + server.name + "\": its url \"" + server.url +
                      "\" is not an http:// or https:// URL");
    std::string token;
    if (!server.bearer_token_env.empty())
        if (char const* value = std::getenv(server.bearer_token_env.c_str()))
            token = value;
    bool const near = loopback(parts->host);
    if (!token.empty() && parts->scheme == "http" && !near)
        return failed("MCP server \"" + server.name + "\": the bearer token in " + server.bearer_token_env +
                      " would be sent in the clear to " + parts->host +
                      ": use https, or plain http only to a loopback address");
    return std::unique_ptr<transport>(new http_session(server, options, std::move(token), near));
}

} // namespace agentrt::mcp::detail
