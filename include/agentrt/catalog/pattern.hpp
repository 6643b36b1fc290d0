// agentrt/catalog/pattern.hpp — the subset of ECMA-262 regular expressions agentrt accepts.
//
// `pattern` is matched as JSON Schema says (unanchored: use ^ and $) by RE2, which stays linear in
// the input whatever the pattern. The subset is what ECMA-262, RE2 and Python's `re` read alike on
// ASCII text (on other text Python's \d and \w also match Unicode; here, as in ECMA-262, they do not):
//   literals; `.` (any code point but a line terminator: \n \r U+2028 U+2029); `^` `$` (start and
//   end of the whole string); classes `[a-z]`, `[^...]` with ranges; `\d` = [0-9], `\w` =
//   [A-Za-z0-9_] (ASCII, inside classes too); `\s` = ECMA-262's WhiteSpace and LineTerminator, `\S`
//   its complement (translated for RE2; `\S` inside a class is RE2's ASCII one: docs/catalogue.md);
//   escapes `\n \r \t \f \v` and `\` before any of
//   ^ $ \ . * + ? ( ) [ ] { } | / -; groups `( )` and `(?: )`; alternation `|`; quantifiers
//   `* + ?` and `{n}` `{n,}` `{n,m}` up to 1000, each optionally lazy (`?`); nested counts (m, or
//   n for `{n,}`) multiply, and RE2 refuses a product above 1000, so the subset does too.
// Refused: backreferences, lookaround, named groups, \b, \p{..}, \u and \x escapes, flags, a
// literal `]` or `}` outside an escape, and an empty pattern piece a quantifier applies to.
// A typed catalogue refuses a pattern at compile time; a schema known at run time when it is
// registered.
#pragma once

#include <algorithm>
#include <string_view>

namespace agentrt {

// Why `pattern` is outside the subset, or an empty view when it is inside.
constexpr std::string_view pattern_problem(std::string_view pattern) noexcept;

namespace diagnostic {
void pattern_is_outside_the_supported_subset_see_agentrt_catalog_pattern_hpp();
} // namespace diagnostic

// For keywords: a compile error (naming the rule above) when the pattern is outside the subset.
consteval bool check_pattern(std::string_view pattern) {
    if (!pattern_problem(pattern).empty())
        diagnostic::pattern_is_outside_the_supported_subset_see_agentrt_catalog_pattern_hpp();
    return true;
}

namespace pattern_detail {

class parser {
public:
    constexpr explicit parser(std::string_view p) : p_(p) {}

    constexpr std::string_view run() {
        alternation();
        if (problem_.empty() && at_ < p_.size())
            fail(p_[at_] == ')' ? "an unbalanced ')'" : "an unexpected character");
        return problem_;
    }

private:
    constexpr bool done() const { return at_ >= p_.size() || !problem_.empty(); }
    constexpr void fail(std::string_view why) {
        if (problem_.empty())
            problem_ = why;
    }

    // Each returns the largest product of repetition counts nested inside what it parsed (1 for
    // none): RE2 refuses a pattern where that product passes 1000.
    constexpr long long alternation() {
        long long repeats = sequence();
        while (!done() && p_[at_] == '|') {
            ++at_;
            repeats = std::max(repeats, sequence());
        }
        return repeats;
    }

    constexpr long long sequence() {
        long long repeats = 1;
        while (!done() && p_[at_] != '|' && p_[at_] != ')') {
            atom_repeats_ = 1;
            bool quantifiable = atom();
            if (!problem_.empty())
                return repeats;
            long long here = atom_repeats_;
            if (at_ < p_.size() && is_quantifier_start(p_[at_])) {
                if (!quantifiable)
                    return fail("a quantifier after nothing it can repeat"), repeats;
                here *= std::max(quantifier(), 1LL);
                if (problem_.empty() && here > 1000)
                    fail("nested repetition counts whose product is above 1000");
            }
            repeats = std::max(repeats, here);
        }
        return repeats;
    }

    static constexpr bool is_quantifier_start(char c) { return c == '*' || c == '+' || c == '?' || c == '{'; }

    // Returns whether a quantifier may follow.
    constexpr bool atom() {
        char c = p_[at_];
        switch (c) {
        case '(':
            return group();
        case '[':
            return character_class();
        case '\\':
            return escape(false);
        case '^':
        case '$':
            ++at_;
            return false;
        case '.':
            ++at_;
            return true;
        case '*':
        case '+':
        case '?':
        case '{':
            fail("a quantifier after nothing it can repeat");
            return false;
        case ']':
        case '}':
            fail("a literal ']' or '}' (escape it)");
            return false;
        default:
            ++at_;
            return true;
        }
    }

    constexpr bool group() {
        ++at_;
        if (at_ < p_.size() && p_[at_] == '?') {
            if (at_ + 1 < p_.size() && p_[at_ + 1] == ':')
                at_ += 2;
            else {
                fail("lookaround, named groups and flags");
                return false;
            }
        }
        long long inner = alternation();
        if (!problem_.empty())
            return false;
        atom_repeats_ = inner;
        if (at_ >= p_.size() || p_[at_] != ')') {
            fail("an unclosed '('");
            return false;
        }
        ++at_;
        return true;
    }

    constexpr bool character_class() {
        ++at_;
        if (at_ < p_.size() && p_[at_] == '^')
            ++at_;
        bool first = true;
        while (at_ < p_.size() && (p_[at_] != ']' || first)) {
            if (p_[at_] == ']')
                return fail("an empty class '[]'"), false;
            if (p_[at_] == '[')
                return fail("a '[' inside a class (escape it)"), false;
            if (p_[at_] == '\\') {
                escape(true);
                if (!problem_.empty())
                    return false;
            } else
                ++at_;
            first = false;
        }
        if (at_ >= p_.size())
            return fail("an unclosed '['"), false;
        ++at_;
        return true;
    }

    constexpr bool escape(bool in_class) {
        ++at_;
        if (at_ >= p_.size())
            return fail("a pattern ending in '\\'"), false;
        char c = p_[at_++];
        constexpr std::string_view classes = "dDwWsS", controls = "nrtfv", punctuation = "^$\\.*+?()[]{}|/-";
        if (classes.find(c) != std::string_view::npos || controls.find(c) != std::string_view::npos ||
            punctuation.find(c) != std::string_view::npos)
            return true;
        if (c >= '0' && c <= '9')
            fail("a backreference or octal escape");
        else if (c == 'b' || c == 'B')
            fail(in_class ? "'\\b' in a class" : "a word boundary '\\b'");
        else
            fail("an escape outside the subset (\\p, \\u, \\x, \\c, \\k, ...)");
        return false;
    }

    // Returns the count RE2 multiplies nested repetitions by: m of {n,m}, n of {n,}, 1 for * + ?.
    constexpr long long quantifier() {
        long long count = 1;
        char c = p_[at_];
        if (c == '{') {
            ++at_;
            long long low = number();
            long long high = low;
            if (low < 0)
                return fail("a '{' that is not a {n}, {n,} or {n,m} quantifier"), count;
            if (at_ < p_.size() && p_[at_] == ',') {
                ++at_;
                high = (at_ < p_.size() && p_[at_] == '}') ? low : number();
                if (high < 0)
                    return fail("a '{' that is not a {n}, {n,} or {n,m} quantifier"), count;
            }
            if (at_ >= p_.size() || p_[at_] != '}')
                return fail("a '{' that is not a {n}, {n,} or {n,m} quantifier"), count;
            ++at_;
            if (high < low)
                return fail("a {n,m} quantifier with n > m"), count;
            if (high > 1000)
                return fail("a repetition count above 1000"), count;
            count = high;
        } else
            ++at_;
        if (at_ < p_.size() && p_[at_] == '?')
            ++at_; // lazy
        if (at_ < p_.size() && is_quantifier_start(p_[at_]))
            fail("two quantifiers in a row");
        return count;
    }

    constexpr long long number() {
        long long value = -1;
        while (at_ < p_.size() && p_[at_] >= '0' && p_[at_] <= '9') {
            value = (value < 0 ? 0 : value) * 10 + (p_[at_++] - '0');
            if (value > 100000)
                value = 100000;
        }
        return value;
    }

    std::string_view p_;
    std::size_t at_ = 0;
    std::string_view problem_;
    long long atom_repeats_ = 1; // set by atom(): the product nested inside a group
};

} // namespace pattern_detail

constexpr std::string_view pattern_problem(std::string_view pattern) noexcept {
    return pattern_detail::parser(pattern).run();
}

} // namespace agentrt
