#include "regex.hpp"

#include <re2/re2.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>

namespace agentrt::internal {
namespace {

// ECMA-262's WhiteSpace and LineTerminator code points (sections 12.2 and 12.3), as RE2 spells them.
constexpr std::string_view ecma_space =
    R"(\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF})";
constexpr std::string_view ecma_not_line_terminator = R"([^\n\r\x{2028}\x{2029}])";

} // namespace

std::string for_re2(std::string_view pattern) {
    std::string out;
    out.reserve(pattern.size());
    bool in_class = false;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        char const c = pattern[i];
        if (c == '\\' && i + 1 < pattern.size()) {
            char const next = pattern[++i];
            if (next == 's' && in_class)
                out += ecma_space;
            else if (next == 's' || next == 'S')
                out += (next == 's' ? "[" : "[^") + std::string(ecma_space) + "]";
            else
                out += {c, next}; // inside a class \S stays RE2's: see pattern.hpp
        } else if (c == '.' && !in_class) {
            out += ecma_not_line_terminator;
        } else {
            if (c == '[' && !in_class)
                in_class = true;
            else if (c == ']' && in_class)
                in_class = false;
            out += c;
        }
    }
    return out;
}

bool pattern_matches(std::string_view pattern, std::string_view text) {
    // Per thread, so that matching takes no lock; a catalogue has few patterns. The last pattern
    // used is remembered, so that a run of one pattern skips the lookup.
    thread_local std::map<std::string, std::unique_ptr<re2::RE2>, std::less<>> compiled;
    thread_local std::string_view last_pattern;
    thread_local re2::RE2 const* last = nullptr;
    if (last && pattern == last_pattern)
        return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *last);
    auto it = compiled.find(pattern);
    if (it == compiled.end()) {
        re2::RE2::Options options;
        options.set_log_errors(false);
        auto const translated = for_re2(pattern);
        auto re = std::make_unique<re2::RE2>(re2::StringPiece(translated.data(), translated.size()), options);
        if (!re->ok())
            throw std::invalid_argument("agentrt: RE2 refused pattern \"" + std::string(pattern) +
                                        "\": " + re->error());
        it = compiled.emplace(std::string(pattern), std::move(re)).first;
    }
    last_pattern = it->first;
    last = it->second.get();
    return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *last);
}

} // namespace agentrt::internal
