#include "wire.hpp"

#include <boost/json/parse.hpp>

namespace agentrt::wire {

tool_shape neutral_tool(boost::json::value const& tool) {
    tool_shape out;
    auto const* o = tool.if_object();
    if (!o)
        return out;
    if (auto const* f = object_at(*o, "function")) { // OpenAI's shape
        out.name = string_at(*f, "name");
        out.description = string_at(*f, "description");
        if (auto const* p = f->if_contains("parameters"))
            out.input_schema = *p;
    } else {
        out.name = string_at(*o, "name");
        out.description = string_at(*o, "description");
        if (auto const* p = o->if_contains("input_schema"))
            out.input_schema = *p;
    }
    if (out.input_schema.is_null())
        out.input_schema = boost::json::object{{"type", "object"}};
    return out;
}

bool is_json_object(std::string_view arguments) {
    boost::system::error_code ec;
    auto v = boost::json::parse(arguments, ec);
    return !ec && v.is_object();
}

boost::json::value event_parser::parse(std::string_view text) {
    arena_.release();
    parser_.reset(&arena_);
    boost::system::error_code ec;
    parser_.write(text.data(), text.size(), ec); // the whole text: trailing bytes are an error
    if (ec)
        return nullptr;
    return parser_.release();
}

} // namespace agentrt::wire
