// What is shown of text that came from a model, a tool or a consumer (the agentrt command, capped()).
// Internal.
//
//     std::cout << agentrt::display::sanitize(step.observation, 80);
//
// A terminal obeys control characters, and bidirectional overrides, zero-width characters and line
// separators make text read differently from what it is. Every such character is shown escaped
// (\n, \u001b, \u202e, \xff for a byte that is not UTF-8), so what an operator reads is what is stored.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace agentrt::display {

// `text` with every unsafe character escaped; when the result is longer than `max_bytes` (0: no
// limit), its head and tail around " … " followed by the original length: "abc … xyz (9000 bytes)".
std::string sanitize(std::string_view text, std::size_t max_bytes = 0);

// How many columns sanitised text takes (one per code point).
std::size_t display_width(std::string_view sanitized) noexcept;

} // namespace agentrt::display
