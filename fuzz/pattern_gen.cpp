// Strings that match a pattern, built by walking the pattern's syntax (the subset of
// agentrt/catalog/pattern.hpp): each piece becomes a generator, so a failing string shrinks piece by
// piece (fewer repetitions, earlier alternatives, earlier class members).
#include "internal.hpp"

#include <agentrt/catalog/pattern.hpp>

#include <stdexcept>
#include <utility>

namespace agentrt::fuzz::detail {
namespace {

using text_gen = rc::Gen<std::string>;

struct char_class {
    std::vector<std::pair<char32_t, char32_t>> ranges;
    std::vector<char_class> negated_parts; // \D, \W, \S inside a class
    bool negated = false;

    bool contains(char32_t c) const {
        bool in = false;
        for (auto const& [lo, hi] : ranges)
            in = in || (c >= lo && c <= hi);
        for (auto const& part : negated_parts)
            in = in || !part.contains(c);
        return negated ? !in : in;
    }
};

// Every code point a class could yield, in the order it shrinks toward.
std::vector<char32_t> const& universe() {
    static std::vector<char32_t> const all = [] {
        std::vector<char32_t> u;
        for (char32_t c = 'a'; c <= 'z'; ++c)
            u.push_back(c);
        for (char32_t c = '0'; c <= '9'; ++c)
            u.push_back(c);
        for (char32_t c = 'A'; c <= 'Z'; ++c)
            u.push_back(c);
        for (char32_t c = 0x20; c < 0x7f; ++c)
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
                u.push_back(c);
        for (char32_t c : special_alphabet())
            if (c >= 0x7f || c < 0x20)
                u.push_back(c);
        return u;
    }();
    return all;
}

text_gen one_of_chars(char_class const& cls) {
    std::vector<std::string> candidates;
    auto add = [&](char32_t c) {
        std::string s;
        append_utf8(s, c);
        for (auto const& known : candidates)
            if (known == s)
                return;
        candidates.push_back(std::move(s));
    };
    for (auto const& [lo, hi] : cls.ranges)
        if (!cls.negated && (lo > 0x7e || hi > 0x7e))
            for (char32_t c : {lo, char32_t(lo + (hi - lo) / 2), hi})
                add(c);
    for (char32_t c : universe())
        if (cls.contains(c))
            add(c);
    if (candidates.empty())
        throw std::invalid_argument("agentrt: a character class of the pattern matches nothing the fuzzer can draw");
    return pick(std::move(candidates));
}

text_gen concatenation(std::vector<text_gen> parts) {
    text_gen out = rc::gen::just(std::string());
    for (auto& part : parts)
        out = rc::gen::map(rc::gen::pair(out, part),
                           [](std::pair<std::string, std::string> const& p) { return p.first + p.second; });
    return out;
}

class walker {
public:
    walker(std::string_view p, options const& opts) : p_(p), opts_(opts) {}

    text_gen run() {
        if (auto problem = pattern_problem(p_); !problem.empty())
            throw std::invalid_argument("agentrt: pattern \"" + std::string(p_) + "\" uses " + std::string(problem) +
                                        ", outside the subset agentrt supports (see agentrt/catalog/pattern.hpp)");
        return alternation();
    }

private:
    text_gen alternation() {
        std::vector<text_gen> choices{sequence()};
        while (at_ < p_.size() && p_[at_] == '|') {
            ++at_;
            choices.push_back(sequence());
        }
        if (choices.size() == 1)
            return choices.front();
        return rc::gen::mapcat(rc::gen::inRange<std::size_t>(0, choices.size()),
                               [choices](std::size_t i) { return choices[i]; });
    }

    text_gen sequence() {
        std::vector<text_gen> parts;
        while (at_ < p_.size() && p_[at_] != '|' && p_[at_] != ')') {
            text_gen piece = atom();
            if (at_ < p_.size() && (p_[at_] == '*' || p_[at_] == '+' || p_[at_] == '?' || p_[at_] == '{'))
                piece = quantified(std::move(piece));
            parts.push_back(std::move(piece));
        }
        return concatenation(std::move(parts));
    }

    text_gen quantified(text_gen piece) {
        std::size_t low = 0, high = 0;
        char c = p_[at_++];
        bool unbounded = false;
        if (c == '*')
            unbounded = true;
        else if (c == '+')
            low = 1, unbounded = true;
        else if (c == '?')
            high = 1;
        else {
            low = number();
            high = low;
            if (p_[at_] == ',') {
                ++at_;
                if (p_[at_] == '}')
                    unbounded = true;
                else
                    high = number();
            }
            ++at_; // '}'
        }
        if (at_ < p_.size() && p_[at_] == '?')
            ++at_;
        std::size_t extra = unbounded ? opts_.max_pattern_repeat : high - low;
        return rc::gen::map(list_of(std::move(piece), low, low + extra), [](std::vector<std::string> const& parts) {
            std::string out;
            for (auto const& s : parts)
                out += s;
            return out;
        });
    }

    std::size_t number() {
        std::size_t n = 0;
        while (at_ < p_.size() && p_[at_] >= '0' && p_[at_] <= '9')
            n = n * 10 + std::size_t(p_[at_++] - '0');
        return n;
    }

    text_gen atom() {
        char c = p_[at_];
        if (c == '(') {
            ++at_;
            if (p_[at_] == '?')
                at_ += 2; // (?:
            text_gen inner = alternation();
            ++at_; // ')'
            return inner;
        }
        if (c == '^' || c == '$') {
            ++at_;
            return rc::gen::just(std::string());
        }
        if (c == '.') {
            ++at_;
            char_class any;
            any.negated = true;
            any.ranges = {{U'\n', U'\n'}, {U'\r', U'\r'}, {0x2028, 0x2029}};
            return one_of_chars(any);
        }
        char_class cls;
        if (c == '[')
            cls = bracket();
        else if (c == '\\')
            cls = escape();
        else {
            char32_t cp = literal();
            cls.ranges.push_back({cp, cp});
        }
        return one_of_chars(cls);
    }

    // One UTF-8 code point of the pattern text.
    char32_t literal() {
        auto b = static_cast<unsigned char>(p_[at_++]);
        if (b < 0x80)
            return b;
        int more = b >= 0xf0 ? 3 : (b >= 0xe0 ? 2 : 1);
        char32_t cp = b & (0x3f >> more);
        for (int i = 0; i < more && at_ < p_.size(); ++i)
            cp = (cp << 6) | (static_cast<unsigned char>(p_[at_++]) & 0x3f);
        return cp;
    }

    static char_class shorthand(char c) {
        char_class cls;
        switch (c) {
        case 'd':
        case 'D':
            cls.ranges = {{'0', '9'}};
            break;
        case 'w':
        case 'W':
            cls.ranges = {{'a', 'z'}, {'A', 'Z'}, {'0', '9'}, {'_', '_'}};
            break;
        default: // s, S
            cls.ranges = {{' ', ' '}, {'\t', '\t'}, {'\n', '\n'}, {'\f', '\f'}, {'\r', '\r'}};
            // Other flavours count \v and Unicode spaces as \s too: never draw them for \S.
            if (c == 'S')
                cls.ranges.insert(cls.ranges.end(), {{'\v', '\v'}, {0x85, 0x85}, {0xa0, 0xa0}, {0x2028, 0x2029}});
        }
        cls.negated = c == 'D' || c == 'W' || c == 'S';
        return cls;
    }

    // The class of an escape at p_[at_] == '\\'.
    char_class escape() {
        ++at_;
        char c = p_[at_++];
        char_class cls;
        if (std::string_view("dDwWsS").find(c) != std::string_view::npos)
            return shorthand(c);
        char32_t cp = c == 'n' ? U'\n' : c == 'r' ? U'\r' : c == 't' ? U'\t' : c == 'f' ? U'\f' : c == 'v' ? U'\v' : c;
        cls.ranges.push_back({cp, cp});
        return cls;
    }

    char_class bracket() {
        ++at_;
        char_class cls;
        if (p_[at_] == '^')
            cls.negated = true, ++at_;
        bool first = true;
        while (p_[at_] != ']' || first) {
            first = false;
            char32_t low;
            if (p_[at_] == '\\') {
                char_class e = escape();
                if (e.negated) {
                    e.negated = false;
                    cls.negated_parts.push_back(e);
                    continue;
                }
                if (e.ranges.size() != 1 || e.ranges[0].first != e.ranges[0].second) {
                    cls.ranges.insert(cls.ranges.end(), e.ranges.begin(), e.ranges.end());
                    continue;
                }
                low = e.ranges[0].first;
            } else
                low = literal();
            char32_t high = low;
            if (p_[at_] == '-' && at_ + 1 < p_.size() && p_[at_ + 1] != ']') {
                ++at_;
                if (p_[at_] == '\\') {
                    char_class e = escape();
                    high = e.ranges.empty() ? low : e.ranges[0].first;
                } else
                    high = literal();
            }
            cls.ranges.push_back({low, high});
        }
        ++at_;
        return cls;
    }

    std::string_view p_;
    options const& opts_;
    std::size_t at_ = 0;
};

} // namespace

rc::Gen<std::string> pattern_gen(std::string_view pattern, options const& opts) {
    return walker(pattern, opts).run();
}

} // namespace agentrt::fuzz::detail
