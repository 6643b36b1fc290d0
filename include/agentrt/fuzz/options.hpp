// agentrt/fuzz/options.hpp — how much the generators make, and from which seed.
//
//     agentrt::fuzz::options o;
//     o.max_items = 4;          // at most 4 array items / map entries beyond a min_items
//     o.seed = 42;              // same seed, same cases (fuzz_check, never; sample takes its own)
//
// A constraint always wins over an option: a min_length of 40 gives 40 code points even when
// max_string_length is 16.
#pragma once

#include <cstddef>
#include <cstdint>

namespace agentrt::fuzz {

struct options {
    std::size_t max_items = 6;          // array items and map entries, beyond what min_items asks
    std::size_t max_string_length = 24; // code points, beyond what min_length asks
    std::size_t max_depth = 8;          // nesting of arrays, maps and optional members
    std::size_t max_pattern_repeat = 4; // repetitions of `*`, `+` and `{n,}` beyond n
    std::uint64_t seed = 0;             // for fuzz_check() and never(); sample() takes its own
    int cases = 100;                    // property cases per check
};

} // namespace agentrt::fuzz
