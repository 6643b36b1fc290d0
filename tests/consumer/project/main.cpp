#include "ping.hpp"

int main() {
    auto table = agentrt::catalog<ping>{}.table();
    bool validated = table.accept("ping", R"({"times":2})") && !table.accept("ping", R"({"times":0})");
    // The runtime from the installed package: a store nobody created is refused to an operator.
    agentrt::store_options operator_only;
    operator_only.access = agentrt::store_access::operator_only;
    bool refused = !agentrt::store::open("/nonexistent/agentrt-store", operator_only);
    return validated && refused ? 0 : 1;
}
