#include "common.hpp"

struct by_mail {
    BOOST_HANA_DEFINE_STRUCT(by_mail, (std::string, address));
};
struct by_phone {
    BOOST_HANA_DEFINE_STRUCT(by_phone, (std::string, number));
};

auto const& info = agentrt::type_info_of<std::variant<by_mail, by_phone>>();
