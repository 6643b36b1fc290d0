#include "common.hpp"

struct no_timeout {
    static constexpr std::string_view name = "no_timeout";
    static constexpr std::string_view description = "Forgot its timeout.";
    static constexpr agentrt::side_effect effect = agentrt::side_effect::read_only;
    using arguments = lookup_args;
    agentrt::tool_result operator()(lookup_args const&, agentrt::call_context const&) const {
        return agentrt::tool_output{};
    }
};

agentrt::catalog<lookup, no_timeout> tools;
