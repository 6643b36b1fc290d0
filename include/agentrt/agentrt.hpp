// agentrt/agentrt.hpp — every public header of agentrt.
#pragma once

#include <agentrt/catalog.hpp>
