#include "common.hpp"

struct order_args {
    BOOST_HANA_DEFINE_STRUCT(order_args, (agentrt::field<int, agentrt::max_length<3>>, quantity));
};

auto const& info = agentrt::type_info_of<order_args>();
