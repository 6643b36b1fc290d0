// Text helpers of the catalogue: UTF-8, JSON Pointer tokens, display of offending values.
#pragma once

#include <boost/json/fwd.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace agentrt::internal {

// Offset of the first byte that does not start or continue a well-formed UTF-8 sequence (overlong
// forms, surrogates and code points above U+10FFFF included), or npos.
std::size_t first_invalid_utf8(std::string_view text) noexcept;

// Code points in well-formed UTF-8: JSON Schema counts string lengths this way.
std::size_t code_points(std::string_view text) noexcept;

bool only_whitespace(std::string_view text) noexcept;
int hex_value(char c) noexcept;

// RFC 6901: "~" becomes "~0" and "/" becomes "~1".
std::string escape_pointer_token(std::string_view token);

// A JSON string literal for display, cut to head and tail with the length when long.
std::string quoted(std::string_view text, std::size_t max_bytes = 64);
std::string abbreviated(std::string_view text, std::size_t max_bytes = 64);

// Compact JSON text of a value for an error message, cut when long.
std::string display(boost::json::value const& v, std::size_t max_bytes = 64);

} // namespace agentrt::internal
