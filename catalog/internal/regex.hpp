// Pattern matching with RE2 (linear in the input), compiled once per pattern and thread.
#pragma once

#include <string>
#include <string_view>

namespace agentrt::internal {

// JSON Schema `pattern`: true when the pattern matches anywhere in `text`. The pattern is inside
// the subset of pattern.hpp.
bool pattern_matches(std::string_view pattern, std::string_view text);

// The pattern as RE2 reads it with ECMA-262's meaning: \s and \S as ECMA-262's WhiteSpace and
// LineTerminator code points, `.` as any code point but a line terminator.
std::string for_re2(std::string_view pattern);

} // namespace agentrt::internal
