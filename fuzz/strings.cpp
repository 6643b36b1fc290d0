#include "internal.hpp"

#include "internal/regex.hpp"
#include "internal/text.hpp"

namespace agentrt::fuzz::detail {

std::vector<char32_t> const& special_alphabet() {
    // What breaks naive escaping and length counting: quotes, backslash, slash, controls (escaped
    // as \n, \t, \u0001, \u0000), DEL, and code points of two, three and four UTF-8 bytes.
    static std::vector<char32_t> const specials{U'"', U'\\', U'/', U'\n', U'\t', U'\r',  0x01,   0x00,
                                                0x7f, U' ',  U'~', 0xe9,  0xdf,  0x4e2d, 0x1f600};
    return specials;
}

void append_utf8(std::string& out, char32_t c) {
    if (c < 0x80)
        out += char(c);
    else if (c < 0x800) {
        out += char(0xc0 | (c >> 6));
        out += char(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        out += char(0xe0 | (c >> 12));
        out += char(0x80 | ((c >> 6) & 0x3f));
        out += char(0x80 | (c & 0x3f));
    } else {
        out += char(0xf0 | (c >> 18));
        out += char(0x80 | ((c >> 12) & 0x3f));
        out += char(0x80 | ((c >> 6) & 0x3f));
        out += char(0x80 | (c & 0x3f));
    }
}

namespace {

rc::Gen<char32_t> code_point() {
    return weighted<char32_t>({{3, rc::gen::inRange<char32_t>(U'a', U'z' + 1)},
                               {1, rc::gen::inRange<char32_t>(U'0', U'9' + 1)},
                               {2, pick(special_alphabet())}});
}

} // namespace

rc::Gen<std::string> string_gen(schema_node const& node, options const& opts) {
    constraints const& k = node.keywords;
    std::size_t low = k.min_length.value_or(0);
    std::size_t high = std::max(low, opts.max_string_length);
    if (k.max_length)
        high = std::min(high, *k.max_length);
    if (!node.pattern.empty()) {
        // The pattern's own repetition bound caps the length; the option does not.
        high = k.max_length.value_or(std::size_t(-1));
        std::string pattern = node.pattern;
        // A constraint wins over an option: unbounded repeats may go as far as min_length needs, drawn
        // at full size (RapidCheck narrows a range at small sizes, where every draw would be too short).
        options reach = opts;
        reach.max_pattern_repeat += low;
        if (k.max_length)
            reach.max_pattern_repeat = std::min(reach.max_pattern_repeat, *k.max_length);
        auto drawn =
            low > 0 ? rc::gen::resize(rc::kNominalSize, pattern_gen(pattern, reach)) : pattern_gen(pattern, reach);
        return rc::gen::suchThat(std::move(drawn), [pattern, low, high](std::string const& s) {
            std::size_t n = internal::code_points(s);
            return n >= low && n <= high && internal::pattern_matches(pattern, s);
        });
    }
    return rc::gen::map(list_of(code_point(), low, high), [](std::vector<char32_t> const& cps) {
        std::string out;
        for (char32_t c : cps)
            append_utf8(out, c);
        return out;
    });
}

} // namespace agentrt::fuzz::detail
