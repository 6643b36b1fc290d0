#include "numbers.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <system_error>

namespace agentrt::internal {
namespace {

struct literal_parts {
    bool negative = false;
    std::string digits; // integer and fraction digits, leading zeros removed
    long long exponent = 0;
    bool exponent_too_large = false;
};

literal_parts split(std::string_view s, int max_exponent) {
    literal_parts p;
    std::size_t i = 0;
    if (i < s.size() && s[i] == '-') {
        p.negative = true;
        ++i;
    }
    long long fraction_length = 0;
    bool in_fraction = false;
    for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; ++i) {
        if (s[i] == '.') {
            in_fraction = true;
            continue;
        }
        if (in_fraction)
            ++fraction_length;
        if (p.digits.empty() && s[i] == '0')
            continue;
        p.digits += s[i];
    }
    long long exponent = 0;
    if (i < s.size()) {
        ++i;
        bool negative_exponent = false;
        if (i < s.size() && (s[i] == '+' || s[i] == '-'))
            negative_exponent = s[i++] == '-';
        for (; i < s.size(); ++i) {
            exponent = exponent * 10 + (s[i] - '0');
            if (exponent > max_exponent) {
                p.exponent_too_large = true;
                return p;
            }
        }
        if (negative_exponent)
            exponent = -exponent;
    }
    // Fraction digits that were leading zeros are gone from `digits`, but still scale the value.
    p.exponent = exponent - fraction_length;
    while (!p.digits.empty() && p.digits.back() == '0') {
        p.digits.pop_back();
        ++p.exponent;
    }
    return p;
}

} // namespace

literal_value parse_number_literal(std::string_view literal, int max_exponent) {
    literal_parts parts = split(literal, max_exponent);
    if (parts.exponent_too_large)
        return {literal_status::exponent_too_large};
    if (parts.digits.empty())
        return {literal_status::int64, 0};

    if (parts.exponent >= 0 && std::ssize(parts.digits) + parts.exponent <= 20) {
        std::string integer = parts.digits + std::string(std::size_t(parts.exponent), '0');
        std::uint64_t magnitude = 0;
        auto [end, ec] = std::from_chars(integer.data(), integer.data() + integer.size(), magnitude);
        if (ec == std::errc{}) {
            constexpr auto int64_max = std::uint64_t(std::numeric_limits<std::int64_t>::max());
            if (!parts.negative) {
                if (magnitude <= int64_max)
                    return {literal_status::int64, std::int64_t(magnitude)};
                return {literal_status::uint64, 0, magnitude};
            }
            if (magnitude <= int64_max)
                return {literal_status::int64, -std::int64_t(magnitude)};
            if (magnitude == int64_max + 1)
                return {literal_status::int64, std::numeric_limits<std::int64_t>::min()};
        }
    }
    double d = 0;
    auto [end, ec] = std::from_chars(literal.data(), literal.data() + literal.size(), d);
    if (ec != std::errc{} || !std::isfinite(d))
        return {literal_status::out_of_range};
    // Trailing zeros are gone from `digits`: a negative exponent means a nonzero fraction.
    if (parts.exponent < 0 && d == std::trunc(d))
        return {literal_status::fraction_lost};
    // An integer just below INT64_MIN rounds to INT64_MIN itself; step one double further so that
    // the value stays outside every 64-bit type, as its literal is.
    constexpr double int64_min = -9223372036854775808.0;
    if (d == int64_min)
        d = std::nextafter(d, -HUGE_VAL);
    return {literal_status::floating, 0, 0, d};
}

decimal_digits to_decimal(std::uint64_t v) {
    decimal_digits out;
    out.digits = std::to_string(v);
    while (out.digits.size() > 1 && out.digits.back() == '0') {
        out.digits.pop_back();
        ++out.exponent;
    }
    return out;
}

decimal_digits to_decimal(std::int64_t v) {
    auto magnitude = v < 0 ? std::uint64_t(0) - std::uint64_t(v) : std::uint64_t(v);
    decimal_digits out = to_decimal(magnitude);
    out.negative = v < 0;
    return out;
}

std::string format_double(double v) {
    if (!std::isfinite(v))
        throw std::invalid_argument("agentrt: a JSON number must be finite");
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
    std::string text(buffer, end);
    // JSON has no "-0" problem, but an integral double must still read back as a double-valued
    // literal; "1e+21" and "0.1" are both valid JSON as to_chars writes them.
    return text;
}

decimal_digits to_decimal(double v) {
    std::string text = format_double(v);
    literal_parts parts = split(text, std::numeric_limits<int>::max());
    decimal_digits out;
    out.negative = parts.negative && !parts.digits.empty();
    out.digits = parts.digits.empty() ? "0" : parts.digits;
    out.exponent = parts.digits.empty() ? 0 : int(parts.exponent);
    return out;
}

namespace {

bool is_zero(decimal_digits const& d) {
    return d.digits == "0" || d.digits.empty();
}

// Remainder of (digits * 10^shift) modulo m, for shift >= 0.
unsigned __int128 remainder(std::string_view digits, long long shift, unsigned __int128 m) {
    unsigned __int128 r = 0;
    for (char c : digits)
        r = (r * 10 + unsigned(c - '0')) % m;
    for (long long i = 0; i < shift && r != 0; ++i)
        r = (r * 10) % m;
    return r;
}

} // namespace

bool is_multiple_of(decimal_digits const& value, decimal_digits const& divisor) {
    if (is_zero(value))
        return true;
    // value = a * 10^p, divisor = b * 10^q; the quotient is an integer iff b divides a * 10^(p-q).
    // b has at most 20 digits (a double's shortest form has 17), so it fits 128 bits.
    if (divisor.digits.size() > 36)
        throw std::invalid_argument("agentrt: multipleOf too precise");
    unsigned __int128 b = 0;
    for (char c : divisor.digits)
        b = b * 10 + unsigned(c - '0');
    long long shift = (long long)value.exponent - divisor.exponent;
    if (shift >= 0)
        return remainder(value.digits, shift, b) == 0;
    // a must be divisible by b * 10^(-shift): first by 10^(-shift), i.e. end in enough zeros.
    if (std::ssize(value.digits) <= -shift)
        return false;
    for (long long i = 0; i < -shift; ++i)
        if (value.digits[value.digits.size() - 1 - std::size_t(i)] != '0')
            return false;
    return remainder(value.digits.substr(0, value.digits.size() - std::size_t(-shift)), 0, b) == 0;
}

int compare(decimal_digits const& a, decimal_digits const& b) {
    bool a_zero = is_zero(a), b_zero = is_zero(b);
    int sign_a = a_zero ? 0 : (a.negative ? -1 : 1);
    int sign_b = b_zero ? 0 : (b.negative ? -1 : 1);
    if (sign_a != sign_b)
        return sign_a < sign_b ? -1 : 1;
    if (sign_a == 0)
        return 0;
    // Same sign: compare magnitudes by order of magnitude, then digit by digit.
    long long magnitude_a = std::ssize(a.digits) + a.exponent;
    long long magnitude_b = std::ssize(b.digits) + b.exponent;
    int c = 0;
    if (magnitude_a != magnitude_b)
        c = magnitude_a < magnitude_b ? -1 : 1;
    else {
        std::size_t n = std::max(a.digits.size(), b.digits.size());
        for (std::size_t i = 0; i < n && c == 0; ++i) {
            char da = i < a.digits.size() ? a.digits[i] : '0';
            char db = i < b.digits.size() ? b.digits[i] : '0';
            if (da != db)
                c = da < db ? -1 : 1;
        }
    }
    return sign_a < 0 ? -c : c;
}

} // namespace agentrt::internal
