#include "text.hpp"

#include <agentrt/catalog/canonical_json.hpp>

namespace agentrt::internal {

std::size_t first_invalid_utf8(std::string_view text) noexcept {
    auto const* s = reinterpret_cast<unsigned char const*>(text.data());
    std::size_t n = text.size(), i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t length;
        unsigned lo = 0x80, hi = 0xbf; // allowed range of the second byte
        if (c >= 0xc2 && c <= 0xdf)
            length = 2;
        else if (c >= 0xe0 && c <= 0xef) {
            length = 3;
            if (c == 0xe0)
                lo = 0xa0; // overlong
            if (c == 0xed)
                hi = 0x9f; // surrogates
        } else if (c >= 0xf0 && c <= 0xf4) {
            length = 4;
            if (c == 0xf0)
                lo = 0x90; // overlong
            if (c == 0xf4)
                hi = 0x8f; // above U+10FFFF
        } else
            return i;
        if (i + length > n)
            return i;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return i;
        for (std::size_t k = 2; k < length; ++k)
            if (s[i + k] < 0x80 || s[i + k] > 0xbf)
                return i;
        i += length;
    }
    return std::string_view::npos;
}

std::size_t code_points(std::string_view text) noexcept {
    std::size_t count = 0;
    for (char c : text)
        if ((static_cast<unsigned char>(c) & 0xc0) != 0x80)
            ++count;
    return count;
}

bool only_whitespace(std::string_view text) noexcept {
    return text.find_first_not_of(" \t\n\r") == std::string_view::npos;
}

int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

std::string escape_pointer_token(std::string_view token) {
    std::string out;
    out.reserve(token.size());
    for (char c : token) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

namespace {

// Cut at a code point boundary at or before `at`.
std::size_t boundary_before(std::string_view text, std::size_t at) {
    while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xc0) == 0x80)
        --at;
    return at;
}

std::size_t boundary_after(std::string_view text, std::size_t at) {
    while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xc0) == 0x80)
        ++at;
    return at;
}

} // namespace

std::string abbreviated(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes)
        return std::string(text);
    std::size_t half = max_bytes / 2;
    std::string out(text.substr(0, boundary_before(text, half)));
    out += "…";
    out += text.substr(boundary_after(text, text.size() - half));
    out += " (" + std::to_string(text.size()) + " bytes)";
    return out;
}

std::string quoted(std::string_view text, std::size_t max_bytes) {
    return abbreviated(json_string_literal(text), max_bytes);
}

std::string display(boost::json::value const& v, std::size_t max_bytes) {
    return abbreviated(canonical_json(v), max_bytes);
}

} // namespace agentrt::internal
