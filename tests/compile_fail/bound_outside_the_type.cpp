#include "common.hpp"

auto const& info = agentrt::type_info_of<agentrt::field<std::uint8_t, agentrt::maximum<300>>>();
