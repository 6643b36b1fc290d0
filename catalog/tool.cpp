#include <agentrt/catalog/tool.hpp>

namespace agentrt {

std::string_view to_string(side_effect effect) noexcept {
    switch (effect) {
    case side_effect::read_only:
        return "read_only";
    case side_effect::local_mutation:
        return "local_mutation";
    case side_effect::remote_mutation:
        return "remote_mutation";
    case side_effect::destructive:
        return "destructive";
    case side_effect::unknown:
        break;
    }
    return "unknown";
}

std::optional<side_effect> parse_side_effect(std::string_view text) noexcept {
    for (auto e : {side_effect::read_only, side_effect::local_mutation, side_effect::remote_mutation,
                   side_effect::destructive, side_effect::unknown})
        if (to_string(e) == text)
            return e;
    return std::nullopt;
}

error tool_error(std::string message) {
    error e;
    e.code = errc::tool_failed;
    e.message = std::move(message);
    return e;
}

} // namespace agentrt
