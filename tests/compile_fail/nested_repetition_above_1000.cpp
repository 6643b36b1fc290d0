#include "common.hpp"

// Each count is within 1000, but RE2 refuses nested counts whose product (64 × 20) passes 1000.
using domain = agentrt::field<std::string, agentrt::pattern<"^([a-z]{1,64}\\.){1,20}$">>;

auto const& info = agentrt::type_info_of<domain>();
