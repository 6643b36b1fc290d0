#include <agentrt/testkit/fake_provider.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace agentrt::testkit {
namespace {

namespace net = boost::asio;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;
using boost::json::object;

std::string json(object const& o) {
    return boost::json::serialize(o);
}

std::string sse(std::string_view type, object const& data) {
    return "event: " + std::string(type) + "\ndata: " + json(data) + "\n\n";
}
std::string chunk(object const& data) {
    return "data: " + json(data) + "\n\n";
}

// Splits `text` into fragments of 1 to 7 bytes, never inside a UTF-8 sequence, differently per seed.
std::vector<std::string> fragments(std::string_view text, std::uint64_t seed) {
    std::vector<std::string> out;
    std::uint64_t state = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    while (!text.empty()) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        auto n = std::min<std::size_t>(text.size(), 1 + (state >> 33) % 7);
        while (n < text.size() && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80)
            ++n;
        out.emplace_back(text.substr(0, n));
        text.remove_prefix(n);
    }
    return out;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string status_line(int status) {
    switch (status) {
    case 200:
        return "200 OK";
    case 400:
        return "400 Bad Request";
    case 401:
        return "401 Unauthorized";
    case 404:
        return "404 Not Found";
    case 429:
        return "429 Too Many Requests";
    case 500:
        return "500 Internal Server Error";
    case 503:
        return "503 Service Unavailable";
    case 529:
        return "529 Overloaded";
    default:
        return std::to_string(status) + " Status";
    }
}

std::string head(int status, std::string_view content_type, std::vector<std::string> const& extra = {}) {
    std::string h = "HTTP/1.1 " + status_line(status) + "\r\ncontent-type: " + std::string(content_type) +
                    "\r\ncache-control: no-cache\r\nconnection: close\r\n";
    for (auto const& line : extra)
        h += line + "\r\n";
    return h + "\r\n";
}

// --- what each provider refuses, as its documentation says ---

std::string anthropic_refusal(received_request const& r, fake_provider_options const& options) {
    if (r.method != "POST" || r.target != "/v1/messages")
        return "not_found_error: " + r.method + " " + r.target + " is not an endpoint; POST /v1/messages is";
    if (!r.headers.contains("anthropic-version"))
        return "invalid_request_error: the anthropic-version header is required";
    if (!options.expected_key.empty()) {
        auto key = r.headers.find("x-api-key");
        if (key == r.headers.end() || key->second != options.expected_key)
            return "authentication_error: invalid x-api-key";
    }
    boost::system::error_code ec;
    auto v = boost::json::parse(r.body, ec);
    auto const* body = v.if_object();
    if (ec || !body)
        return "invalid_request_error: the body is not a JSON object";
    if (!body->contains("model") || !body->at("model").is_string())
        return "invalid_request_error: model: field required";
    auto const* max = body->if_contains("max_tokens");
    if (!max || !max->is_int64() || max->get_int64() < 1)
        return "invalid_request_error: max_tokens: field required, at least 1";
    auto const* messages = body->if_contains("messages");
    if (!messages || !messages->is_array() || messages->get_array().empty())
        return "invalid_request_error: messages: at least one message is required";
    std::string expected_role = "user";
    std::vector<std::string> open_calls;
    std::size_t i = 0;
    for (auto const& m : messages->get_array()) {
        auto const at = "messages." + std::to_string(i++);
        auto const* message = m.if_object();
        if (!message || !message->contains("role") || !message->at("role").is_string())
            return "invalid_request_error: " + at + ": role is required";
        auto const role = std::string(message->at("role").get_string());
        if (role != expected_role)
            return "invalid_request_error: " + at +
                   ": roles must alternate between user and assistant, starting "
                   "with user";
        expected_role = role == "user" ? "assistant" : "user";
        auto const* content = message->if_contains("content");
        if (!content || (!content->is_string() && !content->is_array()))
            return "invalid_request_error: " + at + ".content: a string or a list of blocks is required";
        std::vector<std::string> calls, answered;
        if (content->is_array()) {
            std::size_t k = 0;
            for (auto const& b : content->get_array()) {
                auto const where = at + ".content." + std::to_string(k++);
                auto const* block = b.if_object();
                auto const type = block && block->contains("type") && block->at("type").is_string()
                                      ? std::string(block->at("type").get_string())
                                      : std::string();
                if (type == "text") {
                    auto const* text = block->if_contains("text");
                    if (!text || !text->is_string() ||
                        std::string_view(text->get_string()).find_first_not_of(" \t\r\n") == std::string_view::npos)
                        return "invalid_request_error: " + where +
                               ": text content blocks must contain non-whitespace text";
                } else if (type == "tool_use") {
                    if (role != "assistant")
                        return "invalid_request_error: " + where + ": tool_use blocks belong to assistant messages";
                    auto const* id = block->if_contains("id");
                    if (!id || !id->is_string() || !block->contains("name") || !block->contains("input") ||
                        !block->at("input").is_object())
                        return "invalid_request_error: " + where + ": tool_use needs id, name and an object input";
                    calls.emplace_back(id->get_string());
                } else if (type == "tool_result") {
                    auto const* id = block->if_contains("tool_use_id");
                    if (!id || !id->is_string() ||
                        std::find(open_calls.begin(), open_calls.end(), std::string(id->get_string())) ==
                            open_calls.end())
                        return "invalid_request_error: " + where +
                               ": each tool_result block must have a corresponding tool_use block in the "
                               "previous message";
                    answered.emplace_back(id->get_string());
                } else {
                    return "invalid_request_error: " + where + ": unknown content block type '" + type + "'";
                }
            }
        }
        for (auto const& id : open_calls)
            if (std::find(answered.begin(), answered.end(), id) == answered.end())
                return "invalid_request_error: " + at +
                       ": tool_use ids were found without tool_result blocks immediately after: " + id;
        open_calls = std::move(calls);
    }
    if (expected_role != "assistant")
        return "invalid_request_error: the last message must be the user's";
    if (auto const* tools = body->if_contains("tools")) {
        if (!tools->is_array())
            return "invalid_request_error: tools: a list is required";
        for (auto const& t : tools->get_array())
            if (!t.is_object() || !t.get_object().contains("name") || !t.get_object().contains("input_schema"))
                return "invalid_request_error: tools: each tool needs a name and an input_schema";
    }
    return {};
}

std::string openai_refusal(received_request const& r, fake_provider_options const& options) {
    if (r.method != "POST" || r.target != "/v1/chat/completions")
        return "invalid_request_error: " + r.method + " " + r.target +
               " is not an endpoint; POST /v1/chat/completions is";
    if (!options.expected_key.empty()) {
        auto key = r.headers.find("authorization");
        if (key == r.headers.end() || key->second != "Bearer " + options.expected_key)
            return "invalid_api_key: Incorrect API key provided";
    }
    boost::system::error_code ec;
    auto v = boost::json::parse(r.body, ec);
    auto const* body = v.if_object();
    if (ec || !body)
        return "invalid_request_error: the body is not a JSON object";
    if (!body->contains("model") || !body->at("model").is_string())
        return "invalid_request_error: you must provide a model parameter";
    auto const* messages = body->if_contains("messages");
    if (!messages || !messages->is_array() || messages->get_array().empty())
        return "invalid_request_error: messages: at least one message is required";
    std::vector<std::string> open_calls;
    std::size_t i = 0;
    for (auto const& m : messages->get_array()) {
        auto const at = "messages[" + std::to_string(i++) + "]";
        auto const* message = m.if_object();
        if (!message || !message->contains("role") || !message->at("role").is_string())
            return "invalid_request_error: " + at + ": role is required";
        auto const role = std::string(message->at("role").get_string());
        if (role == "tool") {
            auto const* id = message->if_contains("tool_call_id");
            auto const open = id && id->is_string()
                                  ? std::find(open_calls.begin(), open_calls.end(), std::string(id->get_string()))
                                  : open_calls.end();
            if (open == open_calls.end())
                return "invalid_request_error: " + at +
                       ": messages with role 'tool' must be a response to a preceeding message with 'tool_calls'";
            open_calls.erase(open);
            continue;
        }
        if (!open_calls.empty())
            return "invalid_request_error: " + at +
                   ": an assistant message with 'tool_calls' must be followed by tool messages responding to each "
                   "'tool_call_id'; " +
                   open_calls.front() + " has none";
        if (role == "assistant") {
            if (auto const* calls = message->if_contains("tool_calls")) {
                if (!calls->is_array())
                    return "invalid_request_error: " + at + ".tool_calls: a list is required";
                for (auto const& c : calls->get_array()) {
                    auto const* call = c.if_object();
                    auto const* f = call ? call->if_contains("function") : nullptr;
                    if (!call || !call->contains("id") || !f || !f->is_object() ||
                        !f->get_object().contains("arguments") || !f->get_object().at("arguments").is_string())
                        return "invalid_request_error: " + at +
                               ".tool_calls: each needs an id and a function with "
                               "string arguments";
                    auto const* id = call->at("id").if_string();
                    if (!id)
                        return "invalid_request_error: " + at + ".tool_calls: an id is a string";
                    open_calls.emplace_back(*id);
                }
            }
        } else if (role != "user" && role != "system" && role != "developer") {
            return "invalid_request_error: " + at + ": '" + role + "' is not a role";
        }
    }
    if (!open_calls.empty())
        return "invalid_request_error: an assistant message with 'tool_calls' must be followed by tool messages "
               "responding to each 'tool_call_id'; " +
               open_calls.front() + " has none";
    return {};
}

int refusal_status(std::string_view refused) {
    if (refused.starts_with("authentication") || refused.starts_with("invalid_api_key"))
        return 401;
    if (refused.starts_with("not_found"))
        return 404;
    return 400;
}

object anthropic_error_body(std::string_view type, std::string_view message) {
    return {{"type", "error"}, {"error", {{"type", type}, {"message", message}}}};
}
object openai_error_body(std::string_view type, std::string_view message) {
    return {{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}}}};
}

} // namespace

// --- replies ---

provider_reply provider_reply::text(std::string text) {
    provider_reply r("text");
    r.text_ = std::move(text);
    return r;
}
provider_reply provider_reply::call(std::string tool, std::string arguments) {
    return calls({{std::move(tool), std::move(arguments)}});
}
provider_reply provider_reply::calls(std::vector<scripted_call> calls, std::string text) {
    provider_reply r(calls.size() == 1 ? "call" : "calls");
    r.calls_ = std::move(calls);
    r.text_ = std::move(text);
    return r;
}
provider_reply provider_reply::raw(int status, std::string body, std::vector<std::string> headers) {
    provider_reply r("raw");
    r.status_ = status;
    r.body_ = std::move(body);
    r.headers_ = std::move(headers);
    return r;
}
provider_reply provider_reply::rate_limited(std::chrono::seconds retry_after) {
    provider_reply r("rate_limited");
    r.status_ = 429;
    r.headers_ = {"retry-after: " + std::to_string(retry_after.count())};
    return r;
}
provider_reply provider_reply::server_error() {
    provider_reply r("server_error");
    r.status_ = 500;
    return r;
}
provider_reply provider_reply::overloaded() {
    provider_reply r("overloaded");
    r.status_ = 529;
    return r;
}
provider_reply provider_reply::cut_mid_event() {
    provider_reply r("cut_mid_event");
    r.text_ = "The order ord-1 has";
    return r;
}
provider_reply provider_reply::malformed_json() {
    provider_reply r("malformed_json");
    r.text_ = "Looking";
    return r;
}
provider_reply provider_reply::error_event() {
    provider_reply r("error_event");
    r.text_ = "Let me";
    return r;
}
provider_reply provider_reply::invalid_arguments(std::string tool, std::string bytes) {
    auto r = call(std::move(tool), std::move(bytes));
    r.kind_ = "invalid_arguments";
    return r;
}
provider_reply provider_reply::unknown_tool(std::string tool) {
    auto r = call(std::move(tool), "{}");
    r.kind_ = "unknown_tool";
    return r;
}
provider_reply provider_reply::stall(std::chrono::milliseconds length) {
    provider_reply r("stall");
    r.stall_ = length;
    return r;
}

namespace {

struct named_fault {
    std::string_view name;
    provider_reply (*make)();
};
std::array<named_fault, 9> const faults{{
    {"rate_limited", [] { return provider_reply::rate_limited(); }},
    {"server_error", [] { return provider_reply::server_error(); }},
    {"overloaded", [] { return provider_reply::overloaded(); }},
    {"cut_mid_event", [] { return provider_reply::cut_mid_event(); }},
    {"malformed_json", [] { return provider_reply::malformed_json(); }},
    {"error_event", [] { return provider_reply::error_event(); }},
    {"invalid_arguments", [] { return provider_reply::invalid_arguments(); }},
    {"unknown_tool", [] { return provider_reply::unknown_tool(); }},
    {"stall", [] { return provider_reply::stall(); }},
}};

} // namespace

std::vector<std::string_view> const& provider_reply::fault_names() {
    static std::vector<std::string_view> const names = [] {
        std::vector<std::string_view> out;
        for (auto const& f : faults)
            out.push_back(f.name);
        return out;
    }();
    return names;
}

provider_reply provider_reply::fault(std::string_view name) {
    for (auto const& f : faults)
        if (f.name == name)
            return f.make();
    std::string known;
    for (auto n : fault_names())
        known += (known.empty() ? "" : ", ") + std::string(n);
    throw std::invalid_argument("fake_provider: no fault is named '" + std::string(name) + "'; the faults are " +
                                known);
}

provider_reply provider_reply::with_usage(std::uint64_t input, std::uint64_t output, std::uint64_t cache_read,
                                          std::uint64_t cache_write) const {
    auto r = *this;
    r.input_tokens_ = input;
    r.output_tokens_ = output;
    r.cache_read_ = cache_read;
    r.cache_write_ = cache_write;
    return r;
}

// --- the server ---

struct fake_provider::impl {
    wire_format wire;
    fake_provider_options options;
    std::vector<provider_reply> script;
    net::io_context io;
    tcp::acceptor acceptor{io};
    std::uint16_t port = 0;

    mutable std::mutex mutex;
    std::condition_variable stopping_changed;
    bool stopping = false;
    std::size_t next = 0;
    std::vector<received_request> received;
    std::thread accepting;
    std::vector<std::thread> serving;

    void accept_loop() {
        for (;;) {
            tcp::socket socket(io);
            boost::system::error_code ec;
            acceptor.accept(socket, ec);
            std::lock_guard lock(mutex);
            if (stopping)
                return;
            if (!ec)
                serving.emplace_back([this, s = std::move(socket)]() mutable { serve(std::move(s)); });
        }
    }

    void serve(tcp::socket socket) {
        boost::system::error_code ec;
        boost::beast::flat_buffer buffer;
        http::request_parser<http::string_body> parser;
        parser.body_limit(std::uint64_t{64} << 20);
        http::read(socket, buffer, parser, ec);
        if (ec)
            return;
        auto const& message = parser.get();
        received_request r;
        r.method = std::string(message.method_string());
        r.target = std::string(message.target());
        for (auto const& field : message)
            r.headers[lower(std::string(field.name_string()))] = std::string(field.value());
        r.body = message.body();
        r.refused = wire == wire_format::anthropic ? anthropic_refusal(r, options) : openai_refusal(r, options);

        provider_reply const* reply = nullptr;
        std::size_t number = 0;
        {
            std::lock_guard lock(mutex);
            number = received.size() + 1;
            if (r.refused.empty() && next < script.size())
                reply = &script[next++];
            else if (r.refused.empty())
                r.refused = "invalid_request_error: fake_provider: request " + std::to_string(number) +
                            " is past the script of " + std::to_string(script.size()) + " replies";
            r.status = reply ? reply->status_ : refusal_status(r.refused);
            received.push_back(r);
        }
        std::string sent;
        auto write = [&](std::string const& bytes) {
            net::write(socket, net::buffer(bytes), ec);
            if (!ec)
                sent += bytes;
            return !ec;
        };
        if (!reply) {
            auto colon = r.refused.find(':');
            auto type = r.refused.substr(0, colon), text = r.refused.substr(colon + 2);
            write(head(r.status, "application/json") + json(wire == wire_format::anthropic
                                                                ? anthropic_error_body(type, text)
                                                                : openai_error_body(type, text)));
        } else {
            boost::system::error_code parse_error;
            auto request_body = boost::json::parse(r.body, parse_error);
            bool stream = !parse_error && request_body.is_object() && request_body.get_object().contains("stream") &&
                          request_body.get_object().at("stream") == true;
            auto const* named =
                !parse_error && request_body.is_object() ? request_body.get_object().if_contains("model") : nullptr;
            std::string model = named && named->is_string() ? std::string(named->get_string()) : "fake";
            play(*reply, number, stream, model, socket, write);
        }
        { // before the close, which ends the client's transfer: a test reading requests() sees it all
            std::lock_guard lock(mutex);
            received[number - 1].sent = std::move(sent);
        }
        socket.shutdown(tcp::socket::shutdown_both, ec);
        socket.close(ec);
    }

    // Waits `length`, or until the server stops or the client goes away.
    void stall_for(std::chrono::milliseconds length, tcp::socket& socket) {
        auto const until = std::chrono::steady_clock::now() + length;
        boost::system::error_code ec;
        socket.non_blocking(true, ec);
        std::unique_lock lock(mutex);
        while (!stopping && std::chrono::steady_clock::now() < until) {
            stopping_changed.wait_for(lock, std::chrono::milliseconds(20));
            char byte;
            auto const n = socket.receive(net::buffer(&byte, 1), tcp::socket::message_peek, ec);
            if (ec != net::error::would_block && (ec || n == 0))
                return; // the client closed its end
        }
    }

    template <class Write>
    void play(provider_reply const& p, std::size_t number, bool stream, std::string const& model, tcp::socket& socket,
              Write const& write) {
        bool const anthropic = wire == wire_format::anthropic;
        if (p.kind_ == "raw") {
            write(head(p.status_, p.body_.starts_with("{") ? "application/json" : "text/event-stream", p.headers_) +
                  p.body_);
            return;
        }
        if (p.status_ != 200) {
            auto status = p.status_;
            object body;
            if (p.kind_ == "rate_limited")
                body = anthropic
                           ? anthropic_error_body("rate_limit_error", "Number of requests has exceeded your rate limit")
                           : openai_error_body("requests", "Rate limit reached for requests");
            else if (p.kind_ == "overloaded")
                body = anthropic ? anthropic_error_body("overloaded_error", "Overloaded")
                                 : openai_error_body("server_error", "The server is overloaded");
            else
                body = anthropic ? anthropic_error_body("api_error", "Internal server error")
                                 : openai_error_body("server_error", "The server had an error processing your request");
            if (!anthropic && status == 529)
                status = 503;
            write(head(status, "application/json", p.headers_) + json(body));
            return;
        }
        if (!stream) {
            write(head(200, "application/json") +
                  (anthropic ? anthropic_message(p, number, model) : openai_completion(p, number, model)));
            return;
        }
        write(head(200, "text/event-stream"));
        auto events = anthropic ? anthropic_events(p, number, model) : openai_events(p, number, model);
        for (auto const& e : events) {
            if (e.empty()) {
                stall_for(p.stall_, socket);
                return;
            }
            if (!write(e))
                return; // the client went away
        }
    }

    std::string anthropic_message(provider_reply const& p, std::size_t number, std::string const& model) const {
        boost::json::array content;
        if (!p.text_.empty())
            content.push_back({{"type", "text"}, {"text", p.text_}});
        std::size_t k = 0;
        for (auto const& c : p.calls_) {
            boost::system::error_code ec;
            auto input = boost::json::parse(c.arguments, ec);
            content.push_back({{"type", "tool_use"},
                               {"id", "toolu_fake_" + std::to_string(number) + "_" + std::to_string(k++)},
                               {"name", c.tool},
                               {"input", ec ? boost::json::value(object{}) : input}});
        }
        return json({{"id", "msg_fake_" + std::to_string(number)},
                     {"type", "message"},
                     {"role", "assistant"},
                     {"model", model},
                     {"content", std::move(content)},
                     {"stop_reason", p.calls_.empty() ? "end_turn" : "tool_use"},
                     {"stop_sequence", nullptr},
                     {"usage", usage_anthropic(p)}});
    }

    static object usage_anthropic(provider_reply const& p) {
        return {{"input_tokens", p.input_tokens_},
                {"cache_creation_input_tokens", p.cache_write_},
                {"cache_read_input_tokens", p.cache_read_},
                {"output_tokens", p.output_tokens_}};
    }

    std::vector<std::string> anthropic_events(provider_reply const& p, std::size_t number,
                                              std::string const& model) const {
        std::vector<std::string> out;
        auto start_usage = usage_anthropic(p);
        start_usage["output_tokens"] = 1;
        out.push_back(sse("message_start", {{"type", "message_start"},
                                            {"message",
                                             {{"id", "msg_fake_" + std::to_string(number)},
                                              {"type", "message"},
                                              {"role", "assistant"},
                                              {"model", model},
                                              {"content", boost::json::array{}},
                                              {"stop_reason", nullptr},
                                              {"stop_sequence", nullptr},
                                              {"usage", start_usage}}}}));
        if (p.kind_ == "stall") {
            out.emplace_back();
            return out;
        }
        out.push_back(sse("ping", {{"type", "ping"}}));
        std::uint64_t index = 0;
        if (!p.text_.empty()) {
            out.push_back(sse("content_block_start", {{"type", "content_block_start"},
                                                      {"index", index},
                                                      {"content_block", {{"type", "text"}, {"text", ""}}}}));
            for (auto const& f : fragments(p.text_, number))
                out.push_back(sse("content_block_delta", {{"type", "content_block_delta"},
                                                          {"index", index},
                                                          {"delta", {{"type", "text_delta"}, {"text", f}}}}));
            if (p.kind_ == "cut_mid_event") {
                auto whole = sse("content_block_delta", {{"type", "content_block_delta"},
                                                         {"index", index},
                                                         {"delta", {{"type", "text_delta"}, {"text", " shipped."}}}});
                out.push_back(whole.substr(0, whole.size() / 2));
                return out;
            }
            if (p.kind_ == "malformed_json")
                out.push_back("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                              "\"delta\":{\"type\":\"text_delta\",\"text\":\"up\"\n\n");
            if (p.kind_ == "error_event") {
                out.push_back(sse("error", anthropic_error_body("overloaded_error", "Overloaded")));
                return out;
            }
            out.push_back(sse("content_block_stop", {{"type", "content_block_stop"}, {"index", index}}));
            ++index;
        }
        std::size_t k = 0;
        for (auto const& c : p.calls_) {
            out.push_back(sse("content_block_start",
                              {{"type", "content_block_start"},
                               {"index", index},
                               {"content_block",
                                {{"type", "tool_use"},
                                 {"id", "toolu_fake_" + std::to_string(number) + "_" + std::to_string(k++)},
                                 {"name", c.tool},
                                 {"input", object{}}}}}));
            for (auto const& f : fragments(c.arguments, number * 31 + index))
                out.push_back(
                    sse("content_block_delta", {{"type", "content_block_delta"},
                                                {"index", index},
                                                {"delta", {{"type", "input_json_delta"}, {"partial_json", f}}}}));
            out.push_back(sse("content_block_stop", {{"type", "content_block_stop"}, {"index", index}}));
            ++index;
        }
        out.push_back(
            sse("message_delta",
                {{"type", "message_delta"},
                 {"delta", {{"stop_reason", p.calls_.empty() ? "end_turn" : "tool_use"}, {"stop_sequence", nullptr}}},
                 {"usage", {{"output_tokens", p.output_tokens_}}}}));
        out.push_back(sse("message_stop", {{"type", "message_stop"}}));
        return out;
    }

    static object openai_usage(provider_reply const& p) {
        return {{"prompt_tokens", p.input_tokens_ + p.cache_read_},
                {"completion_tokens", p.output_tokens_},
                {"total_tokens", p.input_tokens_ + p.cache_read_ + p.output_tokens_},
                {"prompt_tokens_details", {{"cached_tokens", p.cache_read_}}}};
    }

    std::string openai_completion(provider_reply const& p, std::size_t number, std::string const& model) const {
        object message{{"role", "assistant"}};
        message["content"] = p.text_.empty() ? boost::json::value(nullptr) : boost::json::value(p.text_);
        if (!p.calls_.empty()) {
            boost::json::array calls;
            std::size_t k = 0;
            for (auto const& c : p.calls_)
                calls.push_back({{"id", "call_fake_" + std::to_string(number) + "_" + std::to_string(k++)},
                                 {"type", "function"},
                                 {"function", {{"name", c.tool}, {"arguments", c.arguments}}}});
            message["tool_calls"] = std::move(calls);
        }
        return json({{"id", "chatcmpl-fake-" + std::to_string(number)},
                     {"object", "chat.completion"},
                     {"created", 0},
                     {"model", model},
                     {"choices", boost::json::array{{{"index", 0},
                                                     {"message", std::move(message)},
                                                     {"finish_reason", p.calls_.empty() ? "stop" : "tool_calls"}}}},
                     {"usage", openai_usage(p)}});
    }

    std::vector<std::string> openai_events(provider_reply const& p, std::size_t number,
                                           std::string const& model) const {
        std::vector<std::string> out;
        auto const id = "chatcmpl-fake-" + std::to_string(number);
        auto with_choice = [&](object delta, boost::json::value finish) {
            return chunk(
                {{"id", id},
                 {"object", "chat.completion.chunk"},
                 {"created", 0},
                 {"model", model},
                 {"choices", boost::json::array{
                                 {{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", std::move(finish)}}}}});
        };
        out.push_back(with_choice({{"role", "assistant"}, {"content", ""}}, nullptr));
        if (p.kind_ == "stall") {
            out.emplace_back();
            return out;
        }
        for (auto const& f : fragments(p.text_, number))
            out.push_back(with_choice({{"content", f}}, nullptr));
        if (p.kind_ == "cut_mid_event") {
            auto whole = with_choice({{"content", " shipped."}}, nullptr);
            out.push_back(whole.substr(0, whole.size() / 2));
            return out;
        }
        if (p.kind_ == "malformed_json")
            out.push_back("data: {\"id\":\"" + id + "\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"up\"\n\n");
        if (p.kind_ == "error_event") {
            out.push_back(chunk(openai_error_body("server_error", "The server had an error while streaming")));
            return out;
        }
        std::uint64_t index = 0;
        for (auto const& c : p.calls_) {
            out.push_back(with_choice(
                {{"tool_calls",
                  boost::json::array{{{"index", index},
                                      {"id", "call_fake_" + std::to_string(number) + "_" + std::to_string(index)},
                                      {"type", "function"},
                                      {"function", {{"name", c.tool}, {"arguments", ""}}}}}}},
                nullptr));
            for (auto const& f : fragments(c.arguments, number * 31 + index))
                out.push_back(with_choice(
                    {{"tool_calls", boost::json::array{{{"index", index}, {"function", {{"arguments", f}}}}}}},
                    nullptr));
            ++index;
        }
        out.push_back(with_choice(object{}, p.calls_.empty() ? "stop" : "tool_calls"));
        out.push_back(chunk({{"id", id},
                             {"object", "chat.completion.chunk"},
                             {"created", 0},
                             {"model", model},
                             {"choices", boost::json::array{}},
                             {"usage", openai_usage(p)}}));
        out.push_back("data: [DONE]\n\n");
        return out;
    }
};

fake_provider::fake_provider(wire_format wire, std::vector<provider_reply> script, fake_provider_options options)
    : impl_(std::make_unique<impl>()) {
    impl_->wire = wire;
    impl_->options = std::move(options);
    impl_->script = std::move(script);
    tcp::endpoint loopback(net::ip::address_v4::loopback(), 0);
    impl_->acceptor.open(loopback.protocol());
    impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
    impl_->acceptor.bind(loopback);
    impl_->acceptor.listen();
    impl_->port = impl_->acceptor.local_endpoint().port();
    impl_->accepting = std::thread([this] { impl_->accept_loop(); });
}

fake_provider::~fake_provider() {
    {
        std::lock_guard lock(impl_->mutex);
        impl_->stopping = true;
    }
    impl_->stopping_changed.notify_all();
    { // wakes the blocked accept
        boost::system::error_code ec;
        tcp::socket wake(impl_->io);
        wake.connect(tcp::endpoint(net::ip::address_v4::loopback(), impl_->port), ec);
    }
    impl_->accepting.join();
    for (auto& t : impl_->serving)
        t.join();
}

std::string fake_provider::base_url() const {
    auto base = "http://127.0.0.1:" + std::to_string(impl_->port);
    return impl_->wire == wire_format::openai ? base + "/v1" : base;
}
std::uint16_t fake_provider::port() const noexcept {
    return impl_->port;
}

std::vector<received_request> fake_provider::requests() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->received;
}
std::size_t fake_provider::remaining() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->script.size() - impl_->next;
}

} // namespace agentrt::testkit
