#include <agentrt/runtime/decision.hpp>

#include <agentrt/catalog/canonical_json.hpp>

#include <boost/json/object.hpp>

namespace agentrt {

decision decision::call(std::string tool, std::string arguments, std::uint64_t ignored_calls) {
    return {decision_kind::tool_call, std::move(tool), std::move(arguments), {}, ignored_calls};
}
decision decision::complete(std::string summary) {
    return {decision_kind::complete, {}, {}, std::move(summary), 0};
}
decision decision::fail(std::string reason) {
    return {decision_kind::fail, {}, {}, std::move(reason), 0};
}

std::string decision::to_text() const {
    // Arguments are kept as the text that was sent, even when it is not JSON at all.
    return canonical_json(boost::json::object{{"kind", to_string(kind)},
                                              {"tool", tool},
                                              {"arguments", arguments},
                                              {"summary", summary},
                                              {"ignored_calls", ignored_calls}});
}

} // namespace agentrt
