#include "common.hpp"

struct refund_args {
    BOOST_HANA_DEFINE_STRUCT(refund_args, (int, cents));
};

struct refund : lookup {
    static constexpr std::string_view name = "refund";
    using arguments = refund_args;
    agentrt::tool_result operator()(refund_args const&, agentrt::call_context const&) const {
        return agentrt::tool_output{};
    }
};

struct lookups_only {
    static constexpr std::string_view identity = "lookups-only/1";
    agentrt::verdict operator()(lookup_args const&, agentrt::run_view const&) const { return agentrt::allow(); }
};

auto policy = agentrt::lower_policy(lookups_only{}, agentrt::catalog<lookup, refund>{});
