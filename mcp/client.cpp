#include <agentrt/mcp/client.hpp>

#include "transport.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <stop_token>
#include <thread>

namespace agentrt::mcp {
namespace json = boost::json;
using namespace std::chrono;
using clock_type = steady_clock;

namespace {

std::string cut(std::string_view text, std::size_t most) {
    std::string out(text.substr(0, most));
    std::replace_if(
        out.begin(), out.end(), [](unsigned char c) { return c < 0x20; }, ' ');
    return text.size() > most ? out + "..." : out;
}

std::string in_quotes(std::string_view text) {
    return "\"" + std::string(text) + "\"";
}

} // namespace

json::object listed_tool::definition() const {
    return {{"name", name}, {"description", description}, {"inputSchema", input_schema}};
}

std::string const& name_of(server_address const& server) noexcept {
    return std::visit([](auto const& s) -> std::string const& { return s.name; }, server);
}

struct client::state {
    std::string name;
    client_options options;
    std::unique_ptr<detail::transport> transport;

    mutable std::mutex mutex;
    std::condition_variable_any answered;
    std::map<std::int64_t, std::optional<json::object>> pending; // an answer once it has come
    std::int64_t next_id = 1;
    std::optional<std::string> broken; // why nothing more will come from the server
    std::atomic<bool> list_changed{false};

    std::string protocol_version;
    json::object server_info;
    std::atomic<bool> batches_allowed{false}; // in the version agreed
    std::int64_t first_initialize = 0;        // its id: the answer that agrees the version
    std::mutex renewal_mutex;                 // one initialize for the requests that found the session gone
    std::condition_variable_any renewal_ended;
    bool renewing = false;
    std::atomic<std::uint64_t> sessions_begun{0}; // initialize answered, over this client's life

    ~state() {
        if (transport)
            transport->close(options.stop_grace);
    }

    // The start of what the server sent, its secret hidden before the cut: a secret cut in two
    // would leave a part that no redaction finds.
    std::string excerpt(std::string_view text, std::size_t most = 200) const {
        return cut(transport ? transport->redacted(std::string(text)) : std::string(text), most);
    }

    error failure(errc code, std::string what) const {
        std::string message = "MCP server " + in_quotes(name) + ": " + what;
        if (broken_now() && transport) { // what it said before it went is often why
            auto tail = transport->redacted(transport->diagnostics());
            if (!tail.empty())
                message +=
                    "; its stderr ends with: " +
                    cut(std::string_view(tail).substr(tail.size() - std::min<std::size_t>(tail.size(), 400)), 400);
        }
        return error{code, transport ? transport->redacted(std::move(message)) : std::move(message), {}};
    }

    bool broken_now() const {
        std::lock_guard lock(mutex);
        return broken.has_value();
    }

    void cut_off(std::string why) {
        std::lock_guard lock(mutex);
        if (!broken)
            broken = std::move(why);
        answered.notify_all();
        transport->stop_receiving();
    }

    void send_now(json::object const& message) {
        (void)transport->send(json::serialize(message), clock_type::now() + options.request_timeout, {});
    }

    void on_line(std::string_view line) {
        boost::system::error_code ec;
        json::value v = json::parse(line, ec);
        if (!ec && v.is_array()) {
            if (!batches_allowed)
                return cut_off("it sent a JSON-RPC batch, which of the versions agentrt speaks only MCP "
                               "2025-03-26 allows, and it agreed to another: " +
                               excerpt(line));
            if (v.get_array().empty())
                return cut_off("it sent an empty JSON-RPC batch");
            // A batch arrives as one: what it notifies is applied before any answer in it wakes its
            // caller, so the caller sees it (JSON-RPC leaves the order inside a batch open).
            auto is_answer = [](json::value const& m) { return m.is_object() && !m.get_object().contains("method"); };
            for (bool answers : {false, true})
                for (auto& message : v.get_array())
                    if (is_answer(message) == answers)
                        if (on_message(message, json::serialize(message)); broken_now())
                            return;
            return;
        }
        on_message(v, line, ec.failed());
    }

    static bool agrees_to_batches(json::object const& initialize_answer) {
        auto const* r = initialize_answer.if_contains("result");
        auto const* version = r && r->is_object() ? r->get_object().if_contains("protocolVersion") : nullptr;
        return version && *version == "2025-03-26";
    }

    void on_message(json::value& v, std::string_view line, bool unreadable = false) {
        if (unreadable || !v.is_object())
            return cut_off("it sent a line that is not a JSON-RPC message: " + excerpt(line));
        auto& o = v.get_object();
        auto const* version = o.if_contains("jsonrpc");
        if (!version || *version != "2.0")
            return cut_off("it sent a message without \"jsonrpc\": \"2.0\": " + excerpt(line));
        if (auto const* method = o.if_contains("method")) {
            if (!method->is_string())
                return cut_off("it sent a message whose method is not a string: " + excerpt(line));
            if (auto const* id = o.if_contains("id")) { // a request of the server's own
                if (method->get_string() == "ping")
                    return send_now({{"jsonrpc", "2.0"}, {"id", *id}, {"result", json::object{}}});
                return send_now({{"jsonrpc", "2.0"},
                                 {"id", *id},
                                 {"error",
                                  {{"code", -32601},
                                   {"message", "agentrt serves no method " + std::string(method->get_string())}}}});
            }
            if (method->get_string() == "notifications/tools/list_changed")
                list_changed = true;
            return;
        }
        auto const* id = o.if_contains("id");
        if (!id || !id->is_int64()) {
            if (auto const* e = o.if_contains("error"))
                return cut_off("it reported an error for no request: " + excerpt(json::serialize(*e)));
            return cut_off("it sent an answer to no request of ours: " + excerpt(line));
        }
        std::lock_guard lock(mutex);
        auto it = pending.find(id->get_int64());
        if (it == pending.end() || it->second) // late (cancelled) or repeated: nobody waits for it
            return;
        if (it->first == first_initialize) // before its caller wakes: a batch may follow at once
            batches_allowed = agrees_to_batches(o);
        it->second = std::move(o);
        answered.notify_all();
    }

    // Sends `method` and waits for its answer: its "result", or `refusal` naming the JSON-RPC error.
    result<json::value> request(std::string_view method, json::object params, clock_type::time_point deadline,
                                std::stop_token stop, std::string const& what, errc refusal = errc::server_failed) {
        std::unique_lock lock(mutex);
        if (broken) {
            std::string why = *broken;
            lock.unlock();
            return failure(errc::server_failed, "cannot send " + what + ": " + why);
        }
        std::int64_t id = next_id++;
        pending[id];
        if (method == "initialize" && sessions_begun == 0)
            first_initialize = id;
        lock.unlock();
        json::object message{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
        auto const text = json::serialize(message);
        auto session = sessions_begun.load();
        auto sent = transport->send(text, deadline, stop);
        // The server forgot the session (it expired it, or restarted) and took nothing of the
        // message: a new session, and the message once more, as the transport asks. (A server that
        // ends each new session at once is told apart by the transport: no loop.)
        constexpr int most_renewals = 8; // other requests may use up the sessions begun for this one
        for (int renewals = 0; !sent && sent.error().code == errc::not_found && method != "initialize"; ++renewals) {
            if (renewals == most_renewals) {
                sent = error{errc::server_failed, sent.error().message + ", as did each session begun since", {}};
                break;
            }
            if (auto renewed = renew_session(session, deadline, stop); !renewed) {
                if (renewed.error().code == errc::timed_out && !broken_now()) { // not sent: nothing to cancel
                    lock.lock();
                    pending.erase(id);
                    lock.unlock();
                    return failure(errc::timed_out, "cannot send " + what + ": " + sent.error().message + ", and " +
                                                        renewed.error().message);
                }
                sent = error{renewed.error().code,
                             sent.error().message + ", and a new one could not begin: " + renewed.error().message,
                             {}};
                break;
            }
            session = sessions_begun.load();
            sent = transport->send(text, deadline, stop);
        }
        lock.lock();
        if (!sent && sent.error().code != errc::timed_out) { // timed out: cancelled below, as a late answer is
            pending.erase(id);
            lock.unlock();
            return failure(sent.error().code, "cannot send " + what + ": " + sent.error().message);
        }
        auto arrived = [&] { return broken || pending[id].has_value(); };
        if (deadline == clock_type::time_point::max())
            answered.wait(lock, stop, arrived);
        else
            answered.wait_until(lock, stop, deadline, arrived);
        std::optional<json::object> answer = std::move(pending[id]);
        pending.erase(id);
        std::optional<std::string> gone = broken;
        lock.unlock();
        if (!answer) {
            if (gone)
                return failure(errc::server_failed, "no answer to " + what + ": " + *gone);
            std::string reason = stop.stop_requested() ? "the call was stopped" : "the call's deadline passed";
            if (method == "initialize") // which the protocol says a client must never cancel
                return failure(errc::timed_out, "no answer to " + what + " (" + reason + ")");
            send_now({{"jsonrpc", "2.0"},
                      {"method", "notifications/cancelled"},
                      {"params", {{"requestId", id}, {"reason", reason}}}});
            return failure(errc::timed_out, "no answer to " + what + " (" + reason + "); notifications/cancelled sent");
        }
        if (auto const* e = answer->if_contains("error")) {
            auto const* code = e->is_object() ? e->get_object().if_contains("code") : nullptr;
            auto const* text = e->is_object() ? e->get_object().if_contains("message") : nullptr;
            return failure(refusal, what + " was answered with error " +
                                        (code ? excerpt(json::serialize(*code), 40) : "?") +
                                        (text && text->is_string() ? ": " + excerpt(text->get_string(), 300) : ""));
        }
        auto const* r = answer->if_contains("result");
        if (!r || !r->is_object())
            return failure(errc::server_failed, "its answer to " + what + " has no result object");
        return std::move(*r);
    }

    void notify(std::string_view method, json::object params) {
        send_now({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
    }

    // Once for every request that found session `ended` gone at once: the first begins the next.
    // A session that cannot begin again ends the client: its requests would go nowhere.
    // A request waiting for another's initialize keeps to its own deadline and stop.
    result<void> renew_session(std::uint64_t ended, clock_type::time_point deadline, std::stop_token stop) {
        std::unique_lock lock(renewal_mutex);
        auto other_done = [&] { return !renewing; };
        bool const free = deadline == clock_type::time_point::max()
                              ? renewal_ended.wait(lock, stop, other_done)
                              : renewal_ended.wait_until(lock, stop, deadline, other_done);
        if (!free)
            return error{errc::timed_out,
                         std::string(stop.stop_requested() ? "the call was stopped" : "the call's deadline passed") +
                             " while another call began a new session",
                         {}};
        if (sessions_begun != ended)
            return {};
        renewing = true;
        lock.unlock();
        struct ended_on_every_path { // an exception from initialize too, or the waiters wait for ever
            state& s;
            ~ended_on_every_path() {
                std::lock_guard again(s.renewal_mutex);
                s.renewing = false;
                s.renewal_ended.notify_all();
            }
        };
        auto renewed = [&] {
            ended_on_every_path ending{*this};
            return initialize();
        }();
        if (!renewed)
            cut_off("a new session could not begin: " + renewed.error().message);
        return renewed;
    }

    // What the server answered at the first initialize stays: a later session must agree with it.
    result<void> initialize() {
        bool const first = sessions_begun == 0;
        json::object params{{"protocolVersion", first ? protocol_versions[0] : std::string_view(protocol_version)},
                            {"capabilities", json::object{}},
                            {"clientInfo", {{"name", "agentrt"}, {"version", "0.1.0"}}}};
        auto answer =
            request("initialize", std::move(params), clock_type::now() + options.request_timeout, {}, "initialize");
        if (!answer)
            return answer.error();
        auto const& r = answer->get_object();
        auto const* version = r.if_contains("protocolVersion");
        if (!version || !version->is_string())
            return failure(errc::server_failed, "its answer to initialize has no protocolVersion");
        std::string_view v = version->get_string();
        if (std::find(std::begin(protocol_versions), std::end(protocol_versions), v) == std::end(protocol_versions)) {
            std::string ours;
            for (auto o : protocol_versions)
                ours += (ours.empty() ? "" : ", ") + std::string(o);
            bool newer = v > protocol_versions[0];
            return failure(errc::server_failed, "it speaks MCP " + std::string(v) + ", " +
                                                    (newer ? "newer than" : "older than or unlike") +
                                                    " every version agentrt speaks (" + ours + ")");
        }
        auto const* capabilities = r.if_contains("capabilities");
        if (!capabilities || !capabilities->is_object() || !capabilities->get_object().contains("tools"))
            return failure(errc::server_failed, "it offers no tools (its capabilities have no \"tools\")");
        if (!first && v != protocol_version)
            return failure(errc::server_failed, "its new session speaks MCP " + std::string(v) + ", not " +
                                                    protocol_version + " as the session before did");
        if (first) {
            protocol_version = std::string(v);
            transport->negotiated(protocol_version);
            if (auto const* info = r.if_contains("serverInfo"); info && info->is_object())
                server_info = info->get_object();
        }
        notify("notifications/initialized", {});
        if (!first) // a new session may be a server started again, serving other tools
            list_changed = true;
        ++sessions_begun;
        return {};
    }
};

client::client(std::unique_ptr<state> s) : state_(std::move(s)) {}
client::~client() = default;

namespace {

// The client over a transport just made: receiving, then initialized.
result<std::shared_ptr<client>> connected(std::string name, client_options const& options,
                                          result<std::unique_ptr<detail::transport>> transport) {
    if (!transport)
        return transport.error();
    auto s = std::make_unique<client::state>();
    s->name = std::move(name);
    s->options = options;
    s->transport = std::move(*transport);
    auto* st = s.get();
    st->transport->receive({[st](std::string_view message) { st->on_line(message); },
                            [st](std::string why) { st->cut_off(std::move(why)); }});
    if (auto ready = st->initialize(); !ready)
        return ready.error();
    return client::adopt(std::move(s));
}

} // namespace

result<std::shared_ptr<client>> client::start(stdio_server server, client_options options) {
    auto transport = detail::stdio_transport(server, options);
    return connected(std::move(server.name), options, std::move(transport));
}

result<std::shared_ptr<client>> client::start(http_server server, client_options options) {
    auto transport = detail::http_transport(server, options);
    return connected(std::move(server.name), options, std::move(transport));
}

result<std::shared_ptr<client>> client::start(server_address server, client_options options) {
    return std::visit([&](auto& s) { return start(std::move(s), options); }, server);
}

std::shared_ptr<client> client::adopt(std::unique_ptr<state> s) {
    return std::shared_ptr<client>(new client(std::move(s)));
}

std::string const& client::name() const noexcept {
    return state_->name;
}
std::string const& client::protocol_version() const noexcept {
    return state_->protocol_version;
}
json::object const& client::server_info() const noexcept {
    return state_->server_info;
}
bool client::tools_changed() const noexcept {
    return state_->list_changed;
}
std::string client::stderr_tail() const {
    return state_->transport->diagnostics();
}

result<std::vector<listed_tool>> client::list_tools() {
    constexpr std::size_t most_pages = 1000;
    std::vector<listed_tool> tools;
    std::set<std::string> names, cursors;
    std::optional<std::string> cursor;
    state_->list_changed = false; // a change said while the pages come keeps it true
    for (std::size_t page = 0;; ++page) {
        if (page == most_pages)
            return state_->failure(errc::server_failed,
                                   "tools/list went on past " + std::to_string(most_pages) + " pages");
        json::object params;
        if (cursor)
            params["cursor"] = *cursor;
        auto answer = state_->request("tools/list", std::move(params),
                                      clock_type::now() + state_->options.request_timeout, {}, "tools/list");
        if (!answer)
            return answer.error();
        auto const& r = answer->get_object();
        auto bad = [&](std::string const& pointer, std::string const& what) {
            return state_->failure(errc::server_failed,
                                   "tools/list page " + std::to_string(page + 1) + ", " + pointer + ": " + what);
        };
        auto const* list = r.if_contains("tools");
        if (!list || !list->is_array())
            return bad("/tools", "not an array");
        for (std::size_t i = 0; i < list->get_array().size(); ++i) {
            auto const& t = list->get_array()[i];
            std::string at = "/tools/" + std::to_string(i);
            if (!t.is_object())
                return bad(at, "not an object");
            auto const& o = t.get_object();
            listed_tool tool;
            auto const* name = o.if_contains("name");
            if (!name || !name->is_string() || name->get_string().empty())
                return bad(at + "/name", "missing or not a string");
            tool.name = std::string(name->get_string());
            if (!names.insert(tool.name).second)
                return bad(at + "/name", "tool " + in_quotes(tool.name) + " is listed twice");
            if (auto const* d = o.if_contains("description")) {
                if (!d->is_string())
                    return bad(at + "/description", "not a string");
                tool.description = std::string(d->get_string());
            }
            auto const* schema = o.if_contains("inputSchema");
            if (!schema || !schema->is_object())
                return bad(at + "/inputSchema", "missing or not an object");
            tool.input_schema = schema->get_object();
            if (auto const* a = o.if_contains("annotations"); a && a->is_object())
                tool.annotations = a->get_object();
            tools.push_back(std::move(tool));
        }
        auto const* next = r.if_contains("nextCursor");
        if (!next || next->is_null())
            break;
        if (!next->is_string())
            return bad("/nextCursor", "not a string");
        cursor = std::string(next->get_string());
        if (!cursors.insert(*cursor).second)
            return bad("/nextCursor", "the cursor " + in_quotes(*cursor) + " came before: the pages would never end");
    }
    return tools;
}

result<tool_reply> client::call_tool(std::string_view tool, json::object arguments, call_context const& context) {
    json::object params{{"name", tool}, {"arguments", std::move(arguments)}};
    if (!context.idempotency_key.empty())
        params["_meta"] = json::object{{idempotency_key_meta, context.idempotency_key}};
    std::string what = "tools/call " + in_quotes(tool);
    auto answer =
        state_->request("tools/call", std::move(params), context.deadline, context.stop, what, errc::tool_failed);
    if (!answer)
        return answer.error();
    auto& r = answer->get_object();
    tool_reply reply;
    auto* content = r.if_contains("content");
    if (!content || !content->is_array())
        return state_->failure(errc::server_failed, "its answer to " + what + " has no content array");
    reply.content = std::move(content->get_array());
    if (auto* structured = r.if_contains("structuredContent"))
        reply.structured_content = std::move(*structured);
    if (auto const* e = r.if_contains("isError")) {
        if (!e->is_bool())
            return state_->failure(errc::server_failed,
                                   "its answer to " + what + " has an isError that is not a boolean");
        reply.is_error = e->get_bool();
    }
    return reply;
}

} // namespace agentrt::mcp
