// agentrt/catalog/keywords.hpp — JSON Schema keywords carried as template arguments.
//
//     agentrt::field<int, agentrt::minimum<1>, agentrt::maximum<100>>
//     agentrt::field<double, agentrt::exclusive_minimum<0>, agentrt::multiple_of<"0.01">>
//     agentrt::field<std::string, agentrt::max_length<64>, agentrt::pattern<"^[a-z]+$">>
//     agentrt::field<std::vector<int>, agentrt::min_items<1>, agentrt::unique_items>
//
// Numbers are exact decimals: an integer, or a string literal ("0.01", "-2.5", "1e-3"). Keywords
// that contradict each other (a minimum above the maximum) or do not apply to the member's type are
// compile errors; so is a pattern outside the supported subset (see pattern.hpp).
#pragma once

#include <agentrt/catalog/pattern.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace agentrt {

namespace diagnostic {
// Called in a constant expression only when a literal is wrong: the compiler's error names them.
void decimal_literal_is_not_a_plain_decimal_number();
void decimal_literal_has_more_than_19_significant_digits();
} // namespace diagnostic

// An exact decimal usable as a template argument: magnitude * 10^exponent, with a sign.
struct decimal {
    bool negative = false;
    std::uint64_t magnitude = 0;
    int exponent = 0;

    template <std::integral I>
    constexpr decimal(I value) noexcept // NOLINT: implicit, so that minimum<1> reads naturally
        : negative(value < 0), magnitude(value < 0 ? std::uint64_t(0) - std::uint64_t(value) : std::uint64_t(value)) {
        normalise();
    }

    template <std::size_t N>
    consteval decimal(char const (&text)[N]) { // NOLINT: implicit, for multiple_of<"0.01">
        std::size_t i = 0;
        if (text[i] == '-')
            negative = (++i, true);
        bool digits = false, in_fraction = false;
        int fraction = 0;
        for (; i + 1 < N && text[i] != 'e' && text[i] != 'E'; ++i) {
            if (text[i] == '.' && !in_fraction) {
                in_fraction = true;
                continue;
            }
            if (text[i] < '0' || text[i] > '9')
                diagnostic::decimal_literal_is_not_a_plain_decimal_number();
            if (magnitude > (UINT64_MAX - 9) / 10)
                diagnostic::decimal_literal_has_more_than_19_significant_digits();
            magnitude = magnitude * 10 + std::uint64_t(text[i] - '0');
            digits = true;
            if (in_fraction)
                ++fraction;
        }
        if (!digits)
            diagnostic::decimal_literal_is_not_a_plain_decimal_number();
        int exp = 0;
        bool negative_exp = false;
        if (i + 1 < N) {
            ++i;
            if (text[i] == '-' || text[i] == '+')
                negative_exp = text[i++] == '-';
            if (i + 1 >= N)
                diagnostic::decimal_literal_is_not_a_plain_decimal_number();
            for (; i + 1 < N; ++i) {
                if (text[i] < '0' || text[i] > '9' || exp > 10000)
                    diagnostic::decimal_literal_is_not_a_plain_decimal_number();
                exp = exp * 10 + (text[i] - '0');
            }
        }
        exponent = (negative_exp ? -exp : exp) - fraction;
        normalise();
    }

    constexpr bool is_zero() const noexcept { return magnitude == 0; }
    friend constexpr bool operator==(decimal const&, decimal const&) = default;

private:
    constexpr void normalise() noexcept {
        if (magnitude == 0) {
            negative = false;
            exponent = 0;
        }
        while (magnitude != 0 && magnitude % 10 == 0) {
            magnitude /= 10;
            ++exponent;
        }
    }
};

// -1, 0 or 1 as a < b, exactly.
constexpr int compare(decimal const& a, decimal const& b) noexcept {
    int sa = a.is_zero() ? 0 : (a.negative ? -1 : 1);
    int sb = b.is_zero() ? 0 : (b.negative ? -1 : 1);
    if (sa != sb)
        return sa < sb ? -1 : 1;
    if (sa == 0)
        return 0;
    auto digits = [](std::uint64_t m) {
        int n = 0;
        for (; m != 0; m /= 10)
            ++n;
        return n;
    };
    int order_a = digits(a.magnitude) + a.exponent, order_b = digits(b.magnitude) + b.exponent;
    int c = 0;
    if (order_a != order_b)
        c = order_a < order_b ? -1 : 1;
    else {
        // Same order of magnitude: align both to 20 significant digits and compare.
        unsigned __int128 ma = a.magnitude, mb = b.magnitude;
        for (int k = digits(a.magnitude); k < 20; ++k)
            ma *= 10;
        for (int k = digits(b.magnitude); k < 20; ++k)
            mb *= 10;
        c = ma == mb ? 0 : (ma < mb ? -1 : 1);
    }
    return sa < 0 ? -c : c;
}

// A string literal usable as a template argument.
template <std::size_t N>
struct fixed_string {
    char text[N]{};
    consteval fixed_string(char const (&s)[N]) { // NOLINT: implicit, for pattern<"...">
        for (std::size_t i = 0; i < N; ++i)
            text[i] = s[i];
    }
    constexpr std::string_view view() const noexcept { return {text, N - 1}; }
};

// What the keywords of a member say, gathered; compiled code reads it.
struct constraints {
    std::optional<decimal> minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of;
    std::optional<std::size_t> min_length, max_length, min_items, max_items;
    bool unique_items = false;
    std::string_view pattern;
    std::string_view description;
};

namespace keyword_kind {
struct numeric {};
struct string {};
struct array {};
struct any {};
} // namespace keyword_kind

template <decimal V>
struct minimum {
    using applies_to = keyword_kind::numeric;
    static constexpr void apply(constraints& c) { c.minimum = V; }
};
template <decimal V>
struct maximum {
    using applies_to = keyword_kind::numeric;
    static constexpr void apply(constraints& c) { c.maximum = V; }
};
template <decimal V>
struct exclusive_minimum {
    using applies_to = keyword_kind::numeric;
    static constexpr void apply(constraints& c) { c.exclusive_minimum = V; }
};
template <decimal V>
struct exclusive_maximum {
    using applies_to = keyword_kind::numeric;
    static constexpr void apply(constraints& c) { c.exclusive_maximum = V; }
};
template <decimal V>
struct multiple_of {
    static_assert(!V.negative && !V.is_zero(), "agentrt: multiple_of needs a number above zero");
    using applies_to = keyword_kind::numeric;
    static constexpr void apply(constraints& c) { c.multiple_of = V; }
};
template <std::size_t N>
struct min_length {
    using applies_to = keyword_kind::string;
    static constexpr void apply(constraints& c) { c.min_length = N; }
};
template <std::size_t N>
struct max_length {
    using applies_to = keyword_kind::string;
    static constexpr void apply(constraints& c) { c.max_length = N; }
};
template <fixed_string P>
struct pattern {
    static_assert(check_pattern(P.view()), "agentrt: the pattern is outside the supported subset (pattern.hpp)");
    using applies_to = keyword_kind::string;
    static constexpr void apply(constraints& c) { c.pattern = P.view(); }
};
template <std::size_t N>
struct min_items {
    using applies_to = keyword_kind::array;
    static constexpr void apply(constraints& c) { c.min_items = N; }
};
template <std::size_t N>
struct max_items {
    using applies_to = keyword_kind::array;
    static constexpr void apply(constraints& c) { c.max_items = N; }
};
struct unique_items {
    using applies_to = keyword_kind::array;
    static constexpr void apply(constraints& c) { c.unique_items = true; }
};
template <fixed_string D>
struct description {
    using applies_to = keyword_kind::any;
    static constexpr void apply(constraints& c) { c.description = D.view(); }
};

} // namespace agentrt
