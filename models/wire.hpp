// What the two wire formats share: reading JSON leniently where a provider may leave fields out. Internal.
#pragma once

#include <agentrt/runtime/model.hpp>

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parser.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace agentrt::wire {

inline boost::json::object const* object_at(boost::json::object const& o, std::string_view key) {
    auto const* v = o.if_contains(key);
    return v ? v->if_object() : nullptr;
}
inline std::string string_at(boost::json::object const& o, std::string_view key) {
    auto const* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}
inline std::uint64_t count_at(boost::json::object const& o, std::string_view key) {
    auto const* v = o.if_contains(key);
    if (v && v->is_uint64())
        return v->get_uint64();
    if (v && v->is_int64() && v->get_int64() >= 0)
        return static_cast<std::uint64_t>(v->get_int64());
    return 0;
}

// The neutral shape of a tool definition (name, description, input_schema), from either shape.
struct tool_shape {
    std::string name;
    std::string description;
    boost::json::value input_schema;
};
tool_shape neutral_tool(boost::json::value const& tool);

// Parses the events of one reply with one parser and one arena, both reused from event to event:
// a stream is thousands of small events.
class event_parser {
public:
    // The event's JSON, null when it is not JSON. It lives in the arena: drop it before the next call.
    boost::json::value parse(std::string_view text);

private:
    unsigned char buffer_[4096];
    boost::json::monotonic_resource arena_{buffer_, sizeof buffer_};
    boost::json::parser parser_;
};

// Whether a call's arguments are a JSON object: the runtime refused any that are not, and a wire
// that carries arguments back in the history sends {} for them.
bool is_json_object(std::string_view arguments);

inline model_error cut_off(std::string message) {
    return model_error{model_failure::cut_off, std::move(message), std::nullopt};
}
inline model_error malformed(std::string message) {
    return model_error{model_failure::permanent, std::move(message), std::nullopt};
}

} // namespace agentrt::wire
