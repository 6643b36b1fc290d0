// agentrt/fuzz.hpp — property-based fuzzing from the catalogue's types (link agentrt::fuzz).
//
//     #include <agentrt/fuzz.hpp>
//     auto report = agentrt::fuzz::fuzz_check(catalogue.table());   // valid in, near misses out
//
// Pulls in RapidCheck; the headers a consumer includes to declare tools do not. The doctest
// adapter is separate: <agentrt/fuzz/doctest.hpp>. See docs/fuzz.md.
#pragma once

#include <agentrt/fuzz/check.hpp>
#include <agentrt/fuzz/generate.hpp>
#include <agentrt/fuzz/near_miss.hpp>
#include <agentrt/fuzz/options.hpp>
#include <agentrt/fuzz/view.hpp>
