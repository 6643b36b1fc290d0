// The consumer's one tool, declared in a header as a consumer would.
#pragma once

#include <agentrt/agentrt.hpp>

struct ping_args {
    BOOST_HANA_DEFINE_STRUCT(ping_args, (agentrt::field<int, agentrt::minimum<1>>, times));
};

struct ping {
    static constexpr std::string_view name = "ping";
    static constexpr std::string_view description = "Ping.";
    static constexpr agentrt::side_effect effect = agentrt::side_effect::remote_mutation;
    static constexpr std::chrono::milliseconds timeout{1000};
    using arguments = ping_args;
    agentrt::tool_result operator()(ping_args const& a, agentrt::call_context const&) const {
        return agentrt::tool_output{a.times.get(), "pong"};
    }
};
