#include "common.hpp"

// No float holds 1e39: decoding a value up to it would convert an out-of-range double to float.
auto const& info = agentrt::type_info_of<agentrt::field<float, agentrt::maximum<"1e39">>>();
