#include <agentrt/models/anthropic.hpp>

#include "sse.hpp"
#include "wire.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <map>

namespace agentrt {
namespace {

using wire::count_at;
using wire::object_at;
using wire::string_at;

// A tool call's input must be an object on this wire: arguments that are not one (the runtime
// refused them, and the tool result says why) are sent as {}.
boost::json::value input_of(std::string const& arguments, boost::json::storage_ptr const& sp) {
    boost::system::error_code ec;
    auto v = boost::json::parse(arguments, ec, sp);
    if (ec || !v.is_object())
        return boost::json::object(sp);
    return v;
}

// Every value of a request body lives in one arena: the body is built, written out and dropped.
struct block_json {
    boost::json::storage_ptr sp;
    boost::json::value operator()(text_block const& b) const {
        return boost::json::object({{"type", "text"}, {"text", b.text}}, sp);
    }
    boost::json::value operator()(model_tool_call const& b) const {
        boost::json::object o({{"type", "tool_use"}, {"id", b.id}, {"name", b.name}}, sp);
        o.emplace("input", input_of(b.arguments, sp));
        return o;
    }
    boost::json::value operator()(tool_result_block const& b) const {
        return boost::json::object(
            {{"type", "tool_result"}, {"tool_use_id", b.call_id}, {"content", b.content}, {"is_error", b.is_error}},
            sp);
    }
};

stop_reason stop_of(std::string_view s) {
    if (s == "end_turn")
        return stop_reason::end_turn;
    if (s == "tool_use")
        return stop_reason::tool_use;
    if (s == "max_tokens")
        return stop_reason::max_tokens;
    if (s == "stop_sequence")
        return stop_reason::stop_sequence;
    if (s == "refusal")
        return stop_reason::refusal;
    return stop_reason::other;
}

void read_usage(boost::json::object const& u, model_usage& usage) {
    if (u.contains("input_tokens"))
        usage.input_tokens = count_at(u, "input_tokens");
    if (u.contains("output_tokens"))
        usage.output_tokens = count_at(u, "output_tokens");
    if (u.contains("cache_read_input_tokens"))
        usage.cache_read_tokens = count_at(u, "cache_read_input_tokens");
    if (u.contains("cache_creation_input_tokens"))
        usage.cache_write_tokens = count_at(u, "cache_creation_input_tokens");
}

struct block {
    std::string type;
    std::string text;
    model_tool_call call;
    bool input_streamed = false;
};

model_response response_of(std::map<std::uint64_t, block>& blocks, model_usage usage, stop_reason stop) {
    model_response out;
    out.usage = usage;
    out.stop = stop;
    for (auto& [index, b] : blocks) {
        if (b.type == "text")
            out.text += b.text;
        else if (b.type == "tool_use")
            out.tool_calls.push_back(std::move(b.call));
    }
    return out;
}

model_result read_stream(std::string_view body, std::string const& where) {
    sse::reader stream(body);
    std::map<std::uint64_t, block> blocks;
    model_usage usage;
    auto stop = stop_reason::other;
    std::size_t n = 0;
    wire::event_parser parser;
    while (auto const e = stream.next()) {
        ++n;
        auto at = [&] { return where + ": event " + std::to_string(n) + " (" + std::string(e->type) + ")"; };
        auto const v = parser.parse(e->data);
        auto const* o = v.if_object();
        if (!o)
            return wire::cut_off(at() + " is not a JSON object, so the reply is lost");
        auto const type = string_at(*o, "type");
        if (type == "ping")
            continue;
        if (type == "error") {
            auto const* error = object_at(*o, "error");
            return wire::cut_off(at() + ": the stream ended in an error: " +
                                 (error ? string_at(*error, "type") + ": " + string_at(*error, "message")
                                        : std::string("with no detail")));
        }
        if (type == "message_start") {
            if (auto const* m = object_at(*o, "message"))
                if (auto const* u = object_at(*m, "usage"))
                    read_usage(*u, usage);
        } else if (type == "content_block_start") {
            auto const* content = object_at(*o, "content_block");
            if (!content)
                return wire::cut_off(at() + " has no content_block");
            auto& b = blocks[count_at(*o, "index")];
            b.type = string_at(*content, "type");
            b.text = string_at(*content, "text");
            b.call.id = string_at(*content, "id");
            b.call.name = string_at(*content, "name");
            if (auto const* input = content->if_contains("input");
                input && !(input->is_object() && input->get_object().empty()))
                b.call.arguments = boost::json::serialize(*input);
        } else if (type == "content_block_delta") {
            auto found = blocks.find(count_at(*o, "index"));
            auto const* delta = object_at(*o, "delta");
            if (found == blocks.end() || !delta)
                return wire::cut_off(at() + " is a delta of a block that never started");
            auto const kind = string_at(*delta, "type");
            if (kind == "text_delta") {
                found->second.text += string_at(*delta, "text");
            } else if (kind == "input_json_delta") {
                if (!found->second.input_streamed)
                    found->second.call.arguments.clear();
                found->second.input_streamed = true;
                found->second.call.arguments += string_at(*delta, "partial_json");
            }
        } else if (type == "message_delta") {
            if (auto const* delta = object_at(*o, "delta"))
                if (auto const* s = delta->if_contains("stop_reason"); s && s->is_string())
                    stop = stop_of(s->get_string());
            if (auto const* u = object_at(*o, "usage"))
                read_usage(*u, usage);
        } else if (type == "message_stop") {
            for (auto& [index, b] : blocks)
                if (b.type == "tool_use" && b.call.arguments.empty())
                    b.call.arguments = "{}";
            return response_of(blocks, usage, stop);
        }
    }
    return wire::cut_off(where + ": the stream ended after " + std::to_string(n) + " events without message_stop" +
                         (stream.ended_cleanly() ? "" : ", inside an event"));
}

model_result read_message(std::string_view body, std::string const& where) {
    boost::system::error_code ec;
    auto v = boost::json::parse(body, ec);
    auto const* o = v.if_object();
    if (ec || !o)
        return wire::cut_off(where + ": the reply is not a JSON object, so it is lost");
    model_response out;
    if (auto const* u = object_at(*o, "usage"))
        read_usage(*u, out.usage);
    out.stop = stop_of(string_at(*o, "stop_reason"));
    auto const* content = o->if_contains("content");
    if (!content || !content->is_array())
        return wire::malformed(where + ": the reply has no content array");
    for (auto const& c : content->get_array()) {
        auto const* b = c.if_object();
        if (!b)
            continue;
        auto const type = string_at(*b, "type");
        if (type == "text")
            out.text += string_at(*b, "text");
        else if (type == "tool_use")
            out.tool_calls.push_back({string_at(*b, "id"), string_at(*b, "name"),
                                      b->contains("input") ? boost::json::serialize(b->at("input")) : "{}"});
    }
    return out;
}

} // namespace

anthropic_model::anthropic_model(anthropic_options options)
    : http_model(http_endpoint{options.base_url + "/v1/messages",
                               options.api_key_variable,
                               "x-api-key",
                               "",
                               {"anthropic-version: " + options.version},
                               options.max_body_bytes,
                               std::chrono::milliseconds(10'000)}),
      options_(std::move(options)) {}

std::string anthropic_model::body_of(model_request const& r) const {
    boost::json::monotonic_resource arena;
    boost::json::storage_ptr const sp(&arena);
    boost::json::array messages(sp);
    for (auto const& m : r.messages) {
        boost::json::array content(sp);
        for (auto const& b : m.content) {
            if (auto const* t = std::get_if<text_block>(&b);
                t && t->text.find_first_not_of(" \t\r\n") == std::string::npos)
                continue; // the API refuses text blocks of white space only, such as the "\n\n" before a call
            content.push_back(std::visit(block_json{sp}, b));
        }
        auto& message = messages.emplace_back(boost::json::object(sp)).get_object();
        message.emplace("role", m.role == message_role::user ? "user" : "assistant");
        message.emplace("content", std::move(content)); // moved: an initializer list would copy it
    }
    boost::json::array tools(sp);
    for (auto const& t : r.tools) {
        auto shape = wire::neutral_tool(t);
        tools.push_back(
            {{"name", shape.name}, {"description", shape.description}, {"input_schema", shape.input_schema}});
    }
    boost::json::object body({{"model", r.model}, {"max_tokens", r.max_output_tokens}}, sp);
    body.emplace("messages", std::move(messages));
    if (!r.system.empty())
        body["system"] = r.system;
    if (!tools.empty())
        body["tools"] = std::move(tools);
    if (options_.stream)
        body["stream"] = true;
    return boost::json::serialize(body);
}

model_result anthropic_model::read(http_reply const& reply) const {
    if (auto failure = failure_of(reply, "Anthropic"))
        return *failure;
    auto const where = "Anthropic at " + url();
    return read_body(reply.body, where, read_message, read_stream);
}

} // namespace agentrt
