#include "common.hpp"

auto const& info = agentrt::type_info_of<agentrt::field<std::string, agentrt::min_length<9>, agentrt::max_length<8>>>();
