// pattern's \s, \S and `.` read as ECMA-262 (without the u flag) reads them, code point by code point.
#include "internal/regex.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace {

std::string utf8(char32_t c) {
    std::string out;
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
    return out;
}

// ECMA-262's WhiteSpace (12.2) and LineTerminator (12.3).
std::vector<char32_t> ecma_spaces() {
    std::vector<char32_t> out{0x09,   0x0A,   0x0B,   0x0C,   0x0D,   0x20,   0xA0,
                              0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF};
    for (char32_t c = 0x2000; c <= 0x200A; ++c)
        out.push_back(c);
    return out;
}

// What other flavours count as space, and ECMA-262 does not.
std::vector<char32_t> const not_spaces{'a', 0x00, 0x1C, 0x1D, 0x1E, 0x1F, 0x85, 0x180E, 0x200B, 0x2060, 0x1F600};

bool whole(std::string_view pattern, char32_t c) {
    return agentrt::internal::pattern_matches(pattern, utf8(c));
}

} // namespace

TEST_SUITE("catalog") {

    TEST_CASE("pattern: \\s is ECMA-262's white space and line terminators, each of them and nothing else") {
        for (auto c : ecma_spaces()) {
            CAPTURE(static_cast<std::uint32_t>(c));
            CHECK(whole("^\\s$", c));
            CHECK_FALSE(whole("^\\S$", c));
            CHECK(whole("^[\\s]$", c));
            CHECK(whole("^[a\\s]$", c));
            CHECK_FALSE(whole("^[^\\s]$", c));
        }
        for (auto c : not_spaces) {
            CAPTURE(static_cast<std::uint32_t>(c));
            CHECK_FALSE(whole("^\\s$", c));
            CHECK(whole("^\\S$", c));
            CHECK_FALSE(whole("^[\\s]$", c));
            CHECK(whole("^[^\\s]$", c));
        }
    }

    TEST_CASE("pattern: . is any code point but a line terminator") {
        for (char32_t c : {char32_t{0x0A}, char32_t{0x0D}, char32_t{0x2028}, char32_t{0x2029}})
            CHECK_FALSE(whole("^.$", c));
        for (char32_t c :
             {char32_t{'a'}, char32_t{0x0B}, char32_t{0x85}, char32_t{0xA0}, char32_t{0xFEFF}, char32_t{0x1F600}})
            CHECK(whole("^.$", c));
        CHECK(whole("^[.]$", '.')); // inside a class a dot is a dot
        CHECK_FALSE(whole("^[.]$", 'a'));
    }

    TEST_CASE("pattern: escapes other than \\s and \\S, and classes, reach RE2 as written") {
        CHECK(agentrt::internal::for_re2(R"(^\d+\.\w[a-z\]]$)") == R"(^\d+\.\w[a-z\]]$)");
        CHECK(agentrt::internal::for_re2("a.b") == R"(a[^\n\r\x{2028}\x{2029}]b)");
    }
}
