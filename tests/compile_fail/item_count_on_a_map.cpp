#include "common.hpp"

#include <map>

struct order_args {
    BOOST_HANA_DEFINE_STRUCT(order_args, (agentrt::field<std::map<std::string, int>, agentrt::max_items<3>>, counts));
};

auto const& info = agentrt::type_info_of<order_args>();
