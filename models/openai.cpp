#include <agentrt/models/openai.hpp>

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

stop_reason stop_of(std::string_view s) {
    if (s == "stop")
        return stop_reason::end_turn;
    if (s == "tool_calls" || s == "function_call")
        return stop_reason::tool_use;
    if (s == "length")
        return stop_reason::max_tokens;
    if (s == "content_filter")
        return stop_reason::refusal;
    return stop_reason::other;
}

// prompt_tokens counts the cached part too: it is taken out, as model_usage has it.
void read_usage(boost::json::object const& u, model_usage& usage) {
    auto const prompt = count_at(u, "prompt_tokens");
    std::uint64_t cached = 0;
    if (auto const* details = object_at(u, "prompt_tokens_details"))
        cached = count_at(*details, "cached_tokens");
    usage.cache_read_tokens = std::min(cached, prompt);
    usage.input_tokens = prompt - usage.cache_read_tokens;
    usage.output_tokens = count_at(u, "completion_tokens");
}

// The calls of a reply in the order they began. A delta belongs to the call its index names, unless
// it carries a new id: some compatible servers (Ollama among them) send index 0, or none, for every
// call, and only the id tells the calls apart.
struct call_list {
    std::vector<model_tool_call> calls;
    std::map<std::uint64_t, std::size_t> by_index;

    model_tool_call& at(std::uint64_t index, std::string const& id) {
        auto found = by_index.find(index);
        if (found == by_index.end() ||
            (!id.empty() && !calls[found->second].id.empty() && calls[found->second].id != id)) {
            calls.emplace_back();
            found = by_index.insert_or_assign(index, calls.size() - 1).first;
        }
        return calls[found->second];
    }
};

void read_message_into(boost::json::object const& message, model_response& out, call_list& calls, bool delta) {
    if (auto const* c = message.if_contains("content"); c && c->is_string())
        out.text += c->get_string();
    auto const* list = message.if_contains("tool_calls");
    if (!list || !list->is_array())
        return;
    std::uint64_t position = 0;
    for (auto const& item : list->get_array()) {
        auto const* call = item.if_object();
        if (!call)
            continue;
        auto id = string_at(*call, "id");
        auto& c = calls.at(delta ? count_at(*call, "index") : position++, id);
        if (!id.empty())
            c.id = std::move(id);
        if (auto const* f = object_at(*call, "function")) {
            c.name += string_at(*f, "name");
            c.arguments += string_at(*f, "arguments");
        }
    }
}

model_response finished(model_response out, call_list& calls) {
    for (auto& c : calls.calls) {
        if (c.arguments.empty())
            c.arguments = "{}";
        out.tool_calls.push_back(std::move(c));
    }
    return out;
}

// Arguments that are not a JSON object (the runtime refused them, and the call's result says why)
// are sent back as {}: compatible servers parse the history's arguments and refuse the request.
std::string arguments_for_history(std::string const& arguments) {
    return wire::is_json_object(arguments) ? arguments : std::string("{}");
}

model_result read_stream(std::string_view body, std::string const& where) {
    sse::reader stream(body);
    model_response out;
    call_list calls;
    std::size_t n = 0;
    wire::event_parser parser;
    while (auto const e = stream.next()) {
        ++n;
        if (e->data == "[DONE]")
            return finished(std::move(out), calls);
        auto at = [&] { return where + ": chunk " + std::to_string(n); };
        auto const v = parser.parse(e->data);
        auto const* o = v.if_object();
        if (!o)
            return wire::cut_off(at() + " is not a JSON object, so the reply is lost");
        if (auto const* error = object_at(*o, "error"))
            return wire::cut_off(at() + ": the stream ended in an error: " + string_at(*error, "message"));
        if (auto const* u = object_at(*o, "usage"))
            read_usage(*u, out.usage);
        auto const* choices = o->if_contains("choices");
        if (!choices || !choices->is_array())
            continue;
        for (auto const& choice : choices->get_array()) {
            auto const* c = choice.if_object();
            if (!c || count_at(*c, "index") != 0)
                continue;
            if (auto const* delta = object_at(*c, "delta"))
                read_message_into(*delta, out, calls, true);
            if (auto const* f = c->if_contains("finish_reason"); f && f->is_string())
                out.stop = stop_of(f->get_string());
        }
    }
    return wire::cut_off(where + ": the stream ended after " + std::to_string(n) + " chunks without [DONE]" +
                         (stream.ended_cleanly() ? "" : ", inside a chunk"));
}

model_result read_completion(std::string_view body, std::string const& where) {
    boost::system::error_code ec;
    auto v = boost::json::parse(body, ec);
    auto const* o = v.if_object();
    if (ec || !o)
        return wire::cut_off(where + ": the reply is not a JSON object, so it is lost");
    model_response out;
    call_list calls;
    if (auto const* u = object_at(*o, "usage"))
        read_usage(*u, out.usage);
    auto const* choices = o->if_contains("choices");
    if (!choices || !choices->is_array() || choices->get_array().empty() || !choices->get_array()[0].is_object())
        return wire::malformed(where + ": the reply has no choices");
    auto const& choice = choices->get_array()[0].get_object();
    if (auto const* m = object_at(choice, "message"))
        read_message_into(*m, out, calls, false);
    out.stop = stop_of(string_at(choice, "finish_reason"));
    return finished(std::move(out), calls);
}

} // namespace

openai_model::openai_model(openai_options options)
    : http_model(http_endpoint{options.base_url + "/chat/completions",
                               options.api_key_variable,
                               "authorization",
                               "Bearer ",
                               {},
                               options.max_body_bytes,
                               std::chrono::milliseconds(10'000)}),
      options_(std::move(options)) {}

std::string openai_model::body_of(model_request const& r) const {
    boost::json::monotonic_resource arena; // the body is built, written out and dropped
    boost::json::storage_ptr const sp(&arena);
    boost::json::array messages(sp);
    if (!r.system.empty())
        messages.push_back({{"role", "system"}, {"content", r.system}});
    for (auto const& m : r.messages) {
        std::string text;
        boost::json::array calls(sp);
        for (auto const& b : m.content) {
            if (auto const* t = std::get_if<text_block>(&b)) {
                text += t->text;
            } else if (auto const* c = std::get_if<model_tool_call>(&b)) {
                calls.push_back(
                    {{"id", c->id},
                     {"type", "function"},
                     {"function", {{"name", c->name}, {"arguments", arguments_for_history(c->arguments)}}}});
            } else if (auto const* result = std::get_if<tool_result_block>(&b)) {
                messages.push_back({{"role", "tool"},
                                    {"tool_call_id", result->call_id},
                                    {"content", result->is_error ? "error: " + result->content : result->content}});
            }
        }
        if (m.role == message_role::assistant) {
            auto& message = messages.emplace_back(boost::json::object(sp)).get_object();
            message.emplace("role", "assistant");
            message.emplace("content", text.empty() ? boost::json::value(nullptr) : boost::json::value(text));
            if (!calls.empty())
                message.emplace("tool_calls", std::move(calls)); // moved: an initializer list would copy it
        } else if (!text.empty()) {
            messages.push_back({{"role", "user"}, {"content", text}});
        }
    }
    boost::json::array tools(sp);
    for (auto const& t : r.tools) {
        auto shape = wire::neutral_tool(t);
        tools.push_back(
            {{"type", "function"},
             {"function",
              {{"name", shape.name}, {"description", shape.description}, {"parameters", shape.input_schema}}}});
    }
    boost::json::object body({{"model", r.model}}, sp);
    body.emplace("messages", std::move(messages));
    body[options_.max_tokens_key] = r.max_output_tokens;
    if (!tools.empty())
        body["tools"] = std::move(tools);
    if (options_.stream) {
        body["stream"] = true;
        body["stream_options"] = {{"include_usage", true}};
    }
    return boost::json::serialize(body);
}

model_result openai_model::read(http_reply const& reply) const {
    if (auto failure = failure_of(reply, "OpenAI-compatible server")) {
        if (reply.status == 429 && reply.body.find("insufficient_quota") != std::string::npos) {
            failure->kind = model_failure::permanent; // no retry pays a bill
            failure->retry_after.reset();
        }
        return *failure;
    }
    auto const where = "OpenAI-compatible server at " + url();
    return read_body(reply.body, where, read_completion, read_stream);
}

} // namespace agentrt
