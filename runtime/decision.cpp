#include <agentrt/runtime/decision.hpp>

#include <agentrt/catalog/canonical_json.hpp>

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

namespace agentrt {

decision decision::call(std::string tool, std::string arguments, std::vector<ignored_call> ignored) {
    return {decision_kind::tool_call, std::move(tool), std::move(arguments), {}, std::move(ignored)};
}
decision decision::complete(std::string summary) {
    return {decision_kind::complete, {}, {}, std::move(summary), {}};
}
decision decision::fail(std::string reason) {
    return {decision_kind::fail, {}, {}, std::move(reason), {}};
}

std::size_t decision::size() const noexcept {
    auto n = tool.size() + arguments.size() + summary.size();
    for (auto const& c : ignored)
        n += c.tool.size() + c.arguments.size();
    return n;
}

std::string decision::to_text() const {
    // Arguments are kept as the text that was sent, even when it is not JSON at all.
    boost::json::object text{{"kind", to_string(kind)},
                             {"tool", tool},
                             {"arguments", arguments},
                             {"summary", summary},
                             {"ignored_calls", ignored.size()}};
    if (!ignored.empty()) {
        auto& list = text["ignored"].emplace_array();
        for (auto const& c : ignored)
            list.push_back(boost::json::object{{"tool", c.tool}, {"arguments", c.arguments}});
    }
    return canonical_json(text);
}

std::optional<decision> decision::from_text(std::string_view text) {
    unsigned char buffer[2048];
    boost::json::monotonic_resource arena(buffer, sizeof buffer);
    boost::system::error_code ec;
    auto parsed = boost::json::parse(text, ec, &arena);
    auto const* object = parsed.if_object();
    if (ec || !object)
        return std::nullopt;
    auto string_at = [](boost::json::object const& o, std::string_view key) -> std::optional<std::string> {
        auto const* v = o.if_contains(key);
        if (!v || !v->is_string())
            return std::nullopt;
        return std::string(v->get_string());
    };
    auto kind = string_at(*object, "kind");
    auto tool = string_at(*object, "tool");
    auto arguments = string_at(*object, "arguments");
    auto summary = string_at(*object, "summary");
    if (!kind || !tool || !arguments || !summary)
        return std::nullopt;
    decision out;
    for (auto k : {decision_kind::tool_call, decision_kind::complete, decision_kind::fail})
        if (*kind == to_string(k))
            out.kind = k;
    out.tool = std::move(*tool);
    out.arguments = std::move(*arguments);
    out.summary = std::move(*summary);
    if (auto const* list = object->if_contains("ignored"); list && list->is_array())
        for (auto const& c : list->get_array()) {
            auto const* call = c.if_object();
            if (!call)
                return std::nullopt;
            auto name = string_at(*call, "tool");
            auto args = string_at(*call, "arguments");
            if (!name || !args)
                return std::nullopt;
            out.ignored.push_back({std::move(*name), std::move(*args)});
        }
    return out;
}

} // namespace agentrt
