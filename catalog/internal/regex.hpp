// Pattern matching with RE2 (linear in the input), compiled once per pattern and thread.
#pragma once

#include <string_view>

namespace agentrt::internal {

// JSON Schema `pattern`: true when the pattern matches anywhere in `text`. The pattern is inside
// the subset of pattern.hpp.
bool pattern_matches(std::string_view pattern, std::string_view text);

} // namespace agentrt::internal
