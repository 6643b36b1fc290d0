// agentrt/agentrt.hpp — what a program that runs agents includes: the catalogue and the runtime.
//
// Fuzzing (<agentrt/fuzz.hpp>) and the test kit (<agentrt/testkit/...>) are for test suites: they
// bring RapidCheck and doctest, so test suites include them where they use them.
#pragma once

#include <agentrt/catalog.hpp>
#include <agentrt/runtime.hpp>
