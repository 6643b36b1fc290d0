// What the compile-fail cases share: one valid tool, so each case changes one thing.
#pragma once

#include <agentrt/catalog.hpp>

struct lookup_args {
    BOOST_HANA_DEFINE_STRUCT(lookup_args, (std::string, id));
};

struct lookup {
    static constexpr std::string_view name = "lookup";
    static constexpr std::string_view description = "Look something up.";
    static constexpr agentrt::side_effect effect = agentrt::side_effect::read_only;
    static constexpr std::chrono::milliseconds timeout{100};
    using arguments = lookup_args;
    agentrt::tool_result operator()(lookup_args const&, agentrt::call_context const&) const {
        return agentrt::tool_output{};
    }
};
