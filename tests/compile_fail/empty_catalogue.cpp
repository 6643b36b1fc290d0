#include "common.hpp"

agentrt::catalog<> tools;
