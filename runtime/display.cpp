#include "display.hpp"

#include <cstdio>
#include <vector>

namespace agentrt::display {
namespace {

// Characters that change how the text around them reads, or are invisible.
bool invisible_or_reordering(char32_t c) {
    return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F || c == 0x061C ||
           (c >= 0x200B && c <= 0x200D) || c == 0x2060 || c == 0xFEFF || c == 0x2028 || c == 0x2029 || c == 0x00AD ||
           (c >= 0xE0000 && c <= 0xE007F);
}

std::string escaped(char32_t c) {
    switch (c) {
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    default:
        break;
    }
    char buffer[16];
    if (c > 0xFFFF)
        std::snprintf(buffer, sizeof buffer, "\\U%08x", static_cast<unsigned>(c));
    else
        std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
    return buffer;
}

// The length of the valid UTF-8 sequence at `i` and its code point, or 0 when the byte there starts none.
std::size_t decode(std::string_view s, std::size_t i, char32_t& out) {
    auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char lead = byte(i);
    std::size_t n = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size())
        return 0;
    char32_t c = n == 1 ? lead : lead & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (byte(i + k) & 0x3F);
    }
    static constexpr char32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < smallest[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    out = c;
    return n;
}

// One shown piece per character of the input, so a cut never splits an escape or a code point.
std::vector<std::string> pieces_of(std::string_view text) {
    std::vector<std::string> pieces;
    pieces.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        char32_t c = 0;
        std::size_t n = decode(text, i, c);
        if (n == 0) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(text[i])));
            pieces.emplace_back(buffer);
            ++i;
            continue;
        }
        bool control = c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F);
        pieces.push_back(control || invisible_or_reordering(c) ? escaped(c) : std::string(text.substr(i, n)));
        i += n;
    }
    return pieces;
}

} // namespace

std::string sanitize(std::string_view text, std::size_t max_bytes) {
    auto pieces = pieces_of(text);
    std::size_t total = 0;
    for (auto const& p : pieces)
        total += p.size();
    std::string out;
    if (max_bytes == 0 || total <= max_bytes) {
        out.reserve(total);
        for (auto const& p : pieces)
            out += p;
        return out;
    }
    std::size_t tail_budget = max_bytes / 3, head_budget = max_bytes - tail_budget;
    std::size_t head_end = 0, used = 0;
    while (head_end < pieces.size() && used + pieces[head_end].size() <= head_budget)
        used += pieces[head_end++].size();
    std::size_t tail_begin = pieces.size();
    used = 0;
    while (tail_begin > head_end && used + pieces[tail_begin - 1].size() <= tail_budget)
        used += pieces[--tail_begin].size();
    for (std::size_t i = 0; i < head_end; ++i)
        out += pieces[i];
    out += " \xE2\x80\xA6 ";
    for (std::size_t i = tail_begin; i < pieces.size(); ++i)
        out += pieces[i];
    out += " (" + std::to_string(text.size()) + " bytes)";
    return out;
}

std::size_t display_width(std::string_view sanitized) noexcept {
    std::size_t width = 0;
    for (char c : sanitized)
        width += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return width;
}

} // namespace agentrt::display
