#include "common.hpp"

struct bad : lookup {
    static constexpr std::string_view name = "bad name";
};

agentrt::catalog<lookup, bad> tools;
