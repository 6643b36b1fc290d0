#include "common.hpp"

#include <chrono>

struct order_args {
    BOOST_HANA_DEFINE_STRUCT(order_args, (std::string, id), (std::chrono::system_clock::time_point, placed_at));
};

auto const& info = agentrt::type_info_of<order_args>();
