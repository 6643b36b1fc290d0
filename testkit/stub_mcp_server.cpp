#include <agentrt/testkit/stub_mcp_server.hpp>

#include "stdio.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value_to.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>

#ifndef AGENTRT_MCP_STUB_PROGRAM
#define AGENTRT_MCP_STUB_PROGRAM "agentrt-mcp-stub"
#endif

namespace agentrt::testkit {
namespace json = boost::json;
namespace {

constexpr std::pair<stub_behaviour, char const*> behaviour_names[] = {
    {stub_behaviour::echo, "echo"},           {stub_behaviour::fail, "fail"},
    {stub_behaviour::stall, "stall"},         {stub_behaviour::crash, "crash"},
    {stub_behaviour::malformed, "malformed"}, {stub_behaviour::oversized, "oversized"}};

char const* name_of(stub_behaviour b) {
    for (auto const& [value, name] : behaviour_names)
        if (value == b)
            return name;
    return "echo";
}

stub_behaviour behaviour_named(std::string_view text) {
    for (auto const& [value, name] : behaviour_names)
        if (text == name)
            return value;
    throw std::invalid_argument("stub script: unknown behaviour \"" + std::string(text) + "\"");
}

class stub {
public:
    explicit stub(stub_script script) : script_(std::move(script)) {
        if (!script_.journal.empty())
            journal_.open(script_.journal, std::ios::app);
    }

    stub_script const& script() const noexcept { return script_; }

    void journal(std::string_view line) {
        std::lock_guard lock(mutex_);
        if (journal_.is_open())
            journal_ << line << std::endl;
    }

    // What the stub sends for one message it received, each a line of text (JSON-RPC, unless scripted not to be).
    std::vector<std::string> handle(std::string_view line) {
        journal(line);
        boost::system::error_code ec;
        json::value v = json::parse(line, ec);
        if (ec || !v.is_object())
            return {};
        auto const& message = v.get_object();
        auto const* id = message.if_contains("id");
        auto const* method = message.if_contains("method");
        if (!id || !method || !method->is_string())
            return {}; // a notification or an answer: nothing to say
        auto const* params = message.if_contains("params");
        json::object none;
        std::lock_guard lock(mutex_);
        out_.clear();
        answer(*id, method->get_string(), params && params->is_object() ? params->get_object() : none);
        if (script_.batch_answers && !out_.empty() && method->get_string() != "initialize") {
            std::string batch =
                "[" + json::serialize(json::object{{"jsonrpc", "2.0"},
                                                   {"method", "notifications/message"},
                                                   {"params", {{"level", "info"}, {"data", "batched"}}}});
            for (auto const& line : out_)
                batch += "," + line;
            out_.assign(1, batch + "]");
        }
        if (script_.batch_after_initialize && method->get_string() == "initialize")
            out_.push_back("[" +
                           json::serialize(json::object{{"jsonrpc", "2.0"},
                                                        {"method", "notifications/message"},
                                                        {"params", {{"level", "info"}, {"data", "starting"}}}}) +
                           "]");
        return std::move(out_);
    }

    int serve_stdio() {
        for (std::string line; std::getline(std::cin, line);) {
            for (auto const& out : handle(line))
                std::cout << out << '\n';
            std::cout.flush(); // what one message brings goes in one write
        }
        return 0;
    }

private:
    void send(json::object const& message) { out_.push_back(json::serialize(message)); }
    void result(json::value const& id, json::object r) {
        send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(r)}});
    }
    void refuse(json::value const& id, int code, std::string message) {
        send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", std::move(message)}}}});
    }

    void answer(json::value const& id, std::string_view method, json::object const& params) {
        if (method == "initialize")
            return result(id, {{"protocolVersion", script_.protocol_version},
                               {"capabilities", {{"tools", {{"listChanged", true}}}}},
                               {"serverInfo", {{"name", "agentrt-mcp-stub"}, {"version", "1"}}}});
        if (method == "ping")
            return result(id, {});
        if (method == "tools/list")
            return list(id, params);
        if (method == "tools/call")
            return call(id, params);
        refuse(id, -32601, "Method not found: " + std::string(method));
    }

    void list(json::value const& id, json::object const& params) {
        std::size_t first = 0;
        if (auto const* cursor = params.if_contains("cursor"); cursor && cursor->is_string())
            first = std::stoul(std::string(cursor->get_string()));
        std::size_t size = script_.page_size ? script_.page_size : script_.tools.size();
        json::array tools;
        for (std::size_t i = first; i < std::min(first + size, script_.tools.size()); ++i) {
            auto const& t = script_.tools[i];
            json::object tool{{"name", t.name}, {"description", t.description}, {"inputSchema", t.input_schema}};
            if (!t.annotations.empty())
                tool["annotations"] = t.annotations;
            tools.push_back(std::move(tool));
        }
        json::object page{{"tools", std::move(tools)}};
        if (first + size < script_.tools.size())
            page["nextCursor"] = std::to_string(first + size);
        result(id, std::move(page));
        if (first + size >= script_.tools.size() && script_.change_after_first_list && !changed_ &&
            !script_.tools.empty()) {
            changed_ = true;
            script_.tools.front().description += " (changed)";
            send({{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}});
        }
    }

    void call(json::value const& id, json::object const& params) {
        auto const* name = params.if_contains("name");
        stub_tool const* tool = nullptr;
        for (auto const& t : script_.tools)
            if (name && name->is_string() && name->get_string() == t.name)
                tool = &t;
        if (!tool)
            return refuse(id, -32602, "Unknown tool: " + (name ? json::serialize(*name) : std::string("(none)")));
        json::value arguments = json::object{};
        if (auto const* a = params.if_contains("arguments"))
            arguments = *a;
        auto text = [](std::string t) { return json::array{json::object{{"type", "text"}, {"text", std::move(t)}}}; };
        switch (tool->on_call) {
        case stub_behaviour::echo:
            return result(id, {{"content", text(json::serialize(arguments))}, {"structuredContent", arguments}});
        case stub_behaviour::fail:
            return result(id, {{"content", text(tool->name + " failed, as scripted")}, {"isError", true}});
        case stub_behaviour::stall:
            return;
        case stub_behaviour::crash:
            std::cout.flush();
            std::_Exit(3);
        case stub_behaviour::malformed:
            out_.push_back("{\"jsonrpc\": \"2.0\", \"id\": " + json::serialize(id) + ", \"result\": ");
            return;
        case stub_behaviour::oversized:
            return result(id, {{"content", text(std::string(script_.oversized_bytes, 'x'))}});
        }
    }

    stub_script script_;
    std::mutex mutex_;
    std::ofstream journal_;
    std::vector<std::string> out_;
    bool changed_ = false;
};

namespace net = boost::asio;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

// The stub over HTTP: one thread per connection, each POST one message, as the Streamable HTTP
// transport says, and every rule of it kept strictly so that a client that breaks one is seen to.
class http_front {
public:
    explicit http_front(stub& s) : stub_(s) {}

    // Binds a loopback port; the URL to print.
    std::string listen() {
        acceptor_.open(tcp::v4());
        acceptor_.bind({net::ip::make_address("127.0.0.1"), 0});
        acceptor_.listen();
        return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()) + "/mcp";
    }

    void accept_forever() {
        for (;;) {
            tcp::socket socket(io_);
            boost::system::error_code ec;
            acceptor_.accept(socket, ec);
            if (!ec)
                std::thread([this, s = std::move(socket)]() mutable { serve(std::move(s)); }).detach();
        }
    }

private:
    using request = http::request<http::string_body>;
    using response = http::response<http::string_body>;

    static response reply(request const& r, http::status status, std::string content_type = {}, std::string body = {}) {
        response out{status, r.version()};
        if (!content_type.empty())
            out.set(http::field::content_type, content_type);
        out.body() = std::move(body);
        out.keep_alive(r.keep_alive());
        out.prepare_payload();
        return out;
    }

    static bool closed_by_client(tcp::socket& socket) {
        boost::system::error_code ec, ignored;
        socket.non_blocking(true, ignored);
        char byte;
        auto n = socket.receive(net::buffer(&byte, 1), tcp::socket::message_peek, ec);
        socket.non_blocking(false, ignored);
        return ec != net::error::would_block && (ec || n == 0);
    }

    void serve(tcp::socket socket) {
        boost::beast::flat_buffer buffer;
        for (;;) {
            boost::system::error_code ec;
            http::request_parser<http::string_body> parser;
            parser.body_limit(std::uint64_t{64} << 20);
            http::read(socket, buffer, parser, ec);
            if (ec)
                return;
            auto const& r = parser.get();
            auto out = answer(r, socket);
            if (!out)
                return; // stalled until the client went
            http::write(socket, *out, ec);
            if (ec || !r.keep_alive())
                return;
        }
    }

    std::optional<response> answer(request const& r, tcp::socket& socket) {
        auto const& script = stub_.script();
        if (!script.bearer_token.empty() && r[http::field::authorization] != "Bearer " + script.bearer_token) {
            auto out = reply(r, http::status::unauthorized, "application/json", R"({"error":"invalid_token"})");
            out.set(http::field::www_authenticate, R"(Bearer realm="agentrt-mcp-stub", error="invalid_token")");
            return out;
        }
        if (r.target() != "/mcp")
            return reply(r, http::status::not_found);
        std::string const session = std::string(r["Mcp-Session-Id"]);
        std::unique_lock sessions(sessions_mutex_);
        if (r.method() == http::verb::delete_) {
            stub_.journal(json::serialize(json::object{{"deleted_session", session}}));
            return reply(r, http::status::ok);
        }
        if (r.method() != http::verb::post)
            return reply(r, http::status::method_not_allowed);
        boost::system::error_code ec;
        json::value message = json::parse(r.body(), ec);
        auto const* method = !ec && message.is_object() ? message.get_object().if_contains("method") : nullptr;
        bool const initialize = method && *method == "initialize";
        if (!initialize && script.gateway_echoes_authorization) {
            std::string page =
                "<html><body><h1>502 Bad Gateway</h1><p>The upstream server refused the request:</p><pre>";
            page.resize(190 - std::string_view("Authorization: Bearer ").size(), ' ');
            page += "Authorization: " + std::string(r[http::field::authorization]) + "</pre></body></html>";
            return reply(r, http::status::bad_gateway, "text/html", std::move(page));
        }
        if (!initialize) {
            std::string const version = std::string(r["MCP-Protocol-Version"]);
            if (session.empty() || session != current_session_) {
                if (session.starts_with(session_prefix))
                    return reply(r, http::status::not_found, "text/plain", "session " + session + " has ended");
                return reply(r, http::status::bad_request, "text/plain", "missing or unknown Mcp-Session-Id");
            }
            if (script.session_lifetime != 0 && served_ == script.session_lifetime) {
                current_session_.clear();
                return reply(r, http::status::not_found, "text/plain", "session " + session + " has ended");
            }
            ++served_;
            if (version != script.protocol_version)
                return reply(r, http::status::bad_request, "text/plain",
                             "MCP-Protocol-Version is \"" + version + "\", not the one agreed");
        }
        if (initialize) {
            current_session_ = std::string(session_prefix) + std::to_string(++sessions_started_);
            served_ = 0;
        }
        std::string const this_session = current_session_;
        bool const begun_again = initialize && sessions_started_ > 1;
        sessions.unlock(); // a stalled call must not hold up the others
        if (begun_again)
            std::this_thread::sleep_for(std::chrono::milliseconds(script.new_session_delay_ms));
        auto lines = stub_.handle(r.body());
        bool const request = method && message.get_object().contains("id");
        if (!request)
            return reply(r, http::status::accepted);
        auto const& id = message.get_object().at("id");
        bool const answered = std::any_of(lines.begin(), lines.end(), [&](std::string const& line) {
            boost::system::error_code bad;
            auto v = json::parse(line, bad);
            auto answers = [&](json::value const& m) {
                return m.is_object() && m.get_object().contains("id") && m.get_object().at("id") == id;
            };
            return bad || answers(v) ||
                   (v.is_array() && std::any_of(v.get_array().begin(), v.get_array().end(), answers));
        });
        if (!answered) { // a stall: hold the request until the client gives up on it
            while (!closed_by_client(socket))
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            return std::nullopt;
        }
        response out;
        if (script.http_answer != stub_http_answer::json) {
            char const end = script.http_answer == stub_http_answer::events_cr ? '\r' : '\n';
            auto event = [&](std::string const& data) {
                return "event: message" + std::string(1, end) + "data: " + data + std::string(2, end);
            };
            std::string stream = event(json::serialize(json::object{
                {"jsonrpc", "2.0"},
                {"method", "notifications/message"},
                {"params",
                 {{"level", "info"},
                  {"data", script.notification_bytes == 0 ? std::string("working")
                                                          : std::string(script.notification_bytes, 'w')}}}}));
            for (auto const& line : lines)
                stream += event(line);
            out = reply(r, http::status::ok, "text/event-stream", std::move(stream));
        } else {
            auto whole = std::find_if(lines.begin(), lines.end(),
                                      [](std::string const& line) { return line.find("\"id\"") != std::string::npos; });
            out = reply(r, http::status::ok, "application/json", *whole);
        }
        if (initialize)
            out.set("Mcp-Session-Id", this_session);
        return out;
    }

    static constexpr std::string_view session_prefix = "stub-session-";
    stub& stub_;
    std::mutex sessions_mutex_;
    std::string current_session_;
    std::size_t sessions_started_ = 0, served_ = 0; // served_: messages of the current session
    net::io_context io_;
    tcp::acceptor acceptor_{io_};
};

} // namespace

json::object stub_script::to_json() const {
    json::array list;
    for (auto const& t : tools)
        list.push_back({{"name", t.name},
                        {"description", t.description},
                        {"input_schema", t.input_schema},
                        {"annotations", t.annotations},
                        {"on_call", name_of(t.on_call)}});
    return {{"tools", std::move(list)},
            {"page_size", page_size},
            {"protocol_version", protocol_version},
            {"change_after_first_list", change_after_first_list},
            {"oversized_bytes", oversized_bytes},
            {"journal", journal.string()},
            {"batch_answers", batch_answers},
            {"batch_after_initialize", batch_after_initialize},
            {"http_answer", http_answer == stub_http_answer::events      ? "events"
                            : http_answer == stub_http_answer::events_cr ? "events_cr"
                                                                         : "json"},
            {"bearer_token", bearer_token},
            {"session_lifetime", session_lifetime},
            {"new_session_delay_ms", new_session_delay_ms},
            {"notification_bytes", notification_bytes},
            {"gateway_echoes_authorization", gateway_echoes_authorization}};
}

stub_script stub_script::from_json(json::object const& o) {
    try {
        stub_script s;
        for (auto const& v : o.at("tools").as_array()) {
            auto const& t = v.as_object();
            s.tools.push_back({std::string(t.at("name").as_string()), std::string(t.at("description").as_string()),
                               t.at("input_schema").as_object(), t.at("annotations").as_object(),
                               behaviour_named(t.at("on_call").as_string())});
        }
        s.page_size = json::value_to<std::size_t>(o.at("page_size"));
        s.protocol_version = std::string(o.at("protocol_version").as_string());
        s.change_after_first_list = o.at("change_after_first_list").as_bool();
        s.oversized_bytes = json::value_to<std::size_t>(o.at("oversized_bytes"));
        s.journal = std::string(o.at("journal").as_string());
        s.batch_answers = o.at("batch_answers").as_bool();
        s.batch_after_initialize = o.at("batch_after_initialize").as_bool();
        auto const& answer = o.at("http_answer");
        s.http_answer = answer == "events"      ? stub_http_answer::events
                        : answer == "events_cr" ? stub_http_answer::events_cr
                                                : stub_http_answer::json;
        s.bearer_token = std::string(o.at("bearer_token").as_string());
        s.session_lifetime = json::value_to<std::size_t>(o.at("session_lifetime"));
        s.new_session_delay_ms = json::value_to<std::size_t>(o.at("new_session_delay_ms"));
        s.notification_bytes = json::value_to<std::size_t>(o.at("notification_bytes"));
        s.gateway_echoes_authorization = o.at("gateway_echoes_authorization").as_bool();
        return s;
    } catch (std::invalid_argument const&) {
        throw;
    } catch (std::exception const& e) {
        throw std::invalid_argument(std::string("stub script: ") + e.what());
    }
}

namespace {

std::string stub_program() {
    if (char const* named = std::getenv("AGENTRT_MCP_STUB"); named && *named)
        return named;
    if (std::error_code ec; std::filesystem::exists(AGENTRT_MCP_STUB_PROGRAM, ec))
        return AGENTRT_MCP_STUB_PROGRAM;
    return "agentrt-mcp-stub";
}

} // namespace

mcp::stdio_server stub_server(std::string name, stub_script const& script) {
    return {std::move(name), {stub_program(), json::serialize(script.to_json())}, {}};
}

struct stub_http_server::process {
    std::unique_ptr<mcp::detail::stdio_process> child;
    std::thread reader;
};

stub_http_server::stub_http_server(stub_script const& script) : process_(std::make_unique<process>()) {
    auto child = mcp::detail::stdio_process::spawn(
        {"stub-http", {stub_program(), "--http", json::serialize(script.to_json())}, {}}, 1 << 16);
    if (!child)
        throw std::runtime_error("the HTTP stub did not start: " + child.error().message);
    process_->child = std::move(*child);
    std::mutex mutex;
    std::condition_variable said;
    std::optional<std::string> first; // the URL, or why there is none
    process_->reader = std::thread([&, p = process_.get()] {
        bool told = false;
        auto tell = [&](std::string what) {
            if (told)
                return;
            told = true;
            std::lock_guard lock(mutex);
            first = std::move(what);
            said.notify_all();
        };
        p->child->read_lines(
            1 << 16, [&](std::string_view line) { tell(std::string(line)); },
            [&](std::string why) { tell("error: " + why); });
    });
    std::unique_lock lock(mutex);
    said.wait_for(lock, std::chrono::seconds(10), [&] { return first.has_value(); });
    std::string got = first.value_or("error: it said no address within 10 s");
    lock.unlock();
    if (got.rfind("http://", 0) != 0) {
        process_->child->stop(std::chrono::milliseconds(500));
        process_->child->stop_reading();
        process_->reader.join();
        throw std::runtime_error("the HTTP stub did not start: " + got + "; " + process_->child->stderr_tail());
    }
    url_ = got;
}

stub_http_server::~stub_http_server() {
    process_->child->stop(std::chrono::milliseconds(1'000));
    process_->child->stop_reading();
    if (process_->reader.joinable())
        process_->reader.join();
}

mcp::http_server stub_http_server::address(std::string name, std::string bearer_token_env) const {
    return {std::move(name), url_, std::move(bearer_token_env)};
}

int run_stub_mcp_server(int argc, char** argv) {
    bool const over_http = argc == 3 && std::string_view(argv[1]) == "--http";
    if (argc != 2 && !over_http) {
        std::cerr << "usage: " << (argc ? argv[0] : "agentrt-mcp-stub") << " [--http] SCRIPT-JSON\n";
        return 2;
    }
    try {
        boost::system::error_code ec;
        json::value script = json::parse(argv[argc - 1], ec);
        if (ec || !script.is_object())
            throw std::invalid_argument("stub script: not a JSON object");
        std::cerr << "agentrt-mcp-stub: serving " << script.at("tools").as_array().size() << " tools\n";
        stub served(stub_script::from_json(script.get_object()));
        if (!over_http)
            return served.serve_stdio();
        http_front front(served);
        std::cout << front.listen() << std::endl;
        std::thread([&] { front.accept_forever(); }).detach();
        for (std::string line; std::getline(std::cin, line);) {
        }
        std::_Exit(0); // stdin closed: the one who started it has gone
    } catch (std::exception const& e) {
        std::cerr << e.what() << '\n';
        return 2;
    }
}

} // namespace agentrt::testkit
