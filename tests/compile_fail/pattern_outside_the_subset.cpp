#include "common.hpp"

using order_id = agentrt::field<std::string, agentrt::pattern<"(?<=ord-)[0-9]+">>;

auto const& info = agentrt::type_info_of<order_id>();
