#include "common.hpp"

auto const& info = agentrt::type_info_of<agentrt::field<double, agentrt::minimum<"1,5">>>();
