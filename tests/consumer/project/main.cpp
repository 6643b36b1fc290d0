#include <agentrt/agentrt.hpp>

struct ping_args {
    BOOST_HANA_DEFINE_STRUCT(ping_args, (agentrt::field<int, agentrt::minimum<1>>, times));
};

struct ping {
    static constexpr std::string_view name = "ping";
    static constexpr std::string_view description = "Ping.";
    static constexpr agentrt::side_effect effect = agentrt::side_effect::read_only;
    static constexpr std::chrono::milliseconds timeout{100};
    using arguments = ping_args;
    agentrt::tool_result operator()(ping_args const& a, agentrt::call_context const&) const {
        return agentrt::tool_output{a.times.get(), "pong"};
    }
};

int main() {
    auto table = agentrt::catalog<ping>{}.table();
    bool validated = table.accept("ping", R"({"times":2})") && !table.accept("ping", R"({"times":0})");
    // The runtime from the installed package: a store nobody created is refused to an operator.
    agentrt::store_options operator_only;
    operator_only.access = agentrt::store_access::operator_only;
    bool refused = !agentrt::store::open("/nonexistent/agentrt-store", operator_only);
    return validated && refused ? 0 : 1;
}
