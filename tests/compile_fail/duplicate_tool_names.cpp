#include "common.hpp"

struct lookup_again : lookup {};

agentrt::catalog<lookup, lookup_again> tools;
