#include "common.hpp"

struct anonymous {
    agentrt::verdict operator()(lookup_args const&, agentrt::run_view const&) const { return agentrt::allow(); }
};

auto policy = agentrt::lower_policy(anonymous{}, agentrt::catalog<lookup>{});
