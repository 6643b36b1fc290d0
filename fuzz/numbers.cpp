// Numbers from exact decimal bounds: a number is k * unit for an integer k in a range computed
// exactly, so bounds and multipleOf hold by construction rather than by filtering.
#include "internal.hpp"

#include <agentrt/catalog/schema.hpp>

#include <charconv>
#include <limits>
#include <optional>
#include <stdexcept>

namespace agentrt::fuzz::detail {
namespace {

namespace json = boost::json;
using i128 = __int128;

constexpr i128 limit = i128(1) << 100;

i128 pow10(int n) {
    i128 p = 1;
    for (int i = 0; i < n; ++i)
        p *= 10;
    return p;
}

// floor (or ceil) of bound / (unit * 10^scale), where unit = U * 10^E; clamped to +-limit.
i128 divide(decimal const& bound, std::uint64_t unit, int unit_exponent, bool ceil) {
    if (bound.is_zero())
        return 0;
    int shift = bound.exponent - unit_exponent; // bound / unit = (M / U) * 10^shift
    bool negative = bound.negative;
    i128 q = 0;
    bool exact = true;
    if (shift >= 0) {
        i128 n = bound.magnitude;
        for (int i = 0; i < shift; ++i) {
            if (n > limit)
                return negative ? -limit : limit;
            n *= 10;
        }
        q = n / unit;
        if (q > limit)
            return negative ? -limit : limit;
        exact = n % unit == 0;
    } else {
        // Once the divisor passes the magnitude the quotient is 0 and inexact; stop before overflow.
        i128 d = unit;
        for (int i = 0; i < -shift && d <= i128(bound.magnitude); ++i)
            d *= 10;
        q = i128(bound.magnitude) / d;
        exact = i128(bound.magnitude) % d == 0;
    }
    // q is the magnitude truncated toward zero.
    if (negative)
        q = -q;
    if (!exact) {
        if (ceil && !negative)
            q += 1;
        if (!ceil && negative)
            q -= 1;
    }
    return q;
}

struct k_range {
    i128 low, high;
};

// The integers k with bounds holding for k * unit.
k_range range_of(constraints const& k, std::uint64_t unit, int unit_exponent, i128 low, i128 high) {
    if (k.minimum)
        low = std::max(low, divide(*k.minimum, unit, unit_exponent, true));
    if (k.exclusive_minimum)
        low = std::max(low, divide(*k.exclusive_minimum, unit, unit_exponent, false) + 1);
    if (k.maximum)
        high = std::min(high, divide(*k.maximum, unit, unit_exponent, false));
    if (k.exclusive_maximum)
        high = std::min(high, divide(*k.exclusive_maximum, unit, unit_exponent, true) - 1);
    return {low, high};
}

std::string to_text(i128 v) {
    bool negative = v < 0;
    unsigned __int128 m = negative ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
    std::string digits;
    do {
        digits.insert(digits.begin(), char('0' + int(m % 10)));
        m /= 10;
    } while (m != 0);
    return negative ? "-" + digits : digits;
}

// k shrinks toward the member of the range nearest zero; the ends are drawn often, since they
// are where off-by-one errors live.
rc::Gen<i128> k_gen(k_range r) {
    i128 anchor = r.low > 0 ? r.low : (r.high < 0 ? r.high : 0);
    auto walk = rc::gen::map(rc::gen::pair(rc::gen::arbitrary<bool>(), rc::gen::arbitrary<std::uint64_t>()),
                             [r, anchor](std::pair<bool, std::uint64_t> const& p) {
                                 unsigned __int128 span = p.first ? (unsigned __int128)(anchor - r.low)
                                                                  : (unsigned __int128)(r.high - anchor);
                                 auto step = i128((unsigned __int128)p.second % (span + 1));
                                 return p.first ? anchor - step : anchor + step;
                             });
    return weighted<i128>({{8, walk}, {1, rc::gen::just(r.low)}, {1, rc::gen::just(r.high)}});
}

rc::Gen<json::value> fail(std::string why) {
    return rc::Gen<json::value>(
        [why](rc::Random const&, int) -> rc::Shrinkable<json::value> { throw rc::GenerationFailure(why); });
}

json::value integer_value(i128 v) {
    if (v >= std::numeric_limits<std::int64_t>::min() && v <= std::numeric_limits<std::int64_t>::max())
        return std::int64_t(v);
    return std::uint64_t(v);
}

// The decoder compares a double with the double nearest the bound; a value that is above the bound
// exactly can still round onto it when the bound has more digits than the value.
bool within_as_double(constraints const& k, double d) {
    auto b = [](decimal const& x) { return to_json(x).to_number<double>(); };
    return (!k.minimum || d >= b(*k.minimum)) && (!k.exclusive_minimum || d > b(*k.exclusive_minimum)) &&
           (!k.maximum || d <= b(*k.maximum)) && (!k.exclusive_maximum || d < b(*k.exclusive_maximum));
}

json::value decimal_value(i128 k, std::uint64_t unit, int exponent) {
    std::string text = to_text(k * i128(unit)) + "e" + std::to_string(exponent);
    double d = 0;
    std::from_chars(text.data(), text.data() + text.size(), d);
    return d;
}

rc::Gen<json::value> integers(constraints const& k) {
    std::uint64_t step = 1;
    if (k.multiple_of) {
        decimal m = *k.multiple_of;
        if (m.exponent >= 0) {
            // A step beyond 64 bits leaves only zero as a multiple in range.
            if (m.exponent > 19)
                return rc::gen::just(json::value(std::int64_t(0)));
            i128 s = i128(m.magnitude) * pow10(m.exponent);
            if (s > i128(std::numeric_limits<std::uint64_t>::max()))
                return rc::gen::just(json::value(std::int64_t(0)));
            step = std::uint64_t(s);
        } else {
            std::uint64_t a = m.magnitude, b = 1;
            for (int i = 0; i < -m.exponent && i < 19; ++i)
                b *= 10;
            while (b != 0) {
                std::uint64_t t = a % b;
                a = b;
                b = t;
            }
            step = m.magnitude / a;
        }
    }
    k_range r = range_of(k, step, 0, std::numeric_limits<std::int64_t>::min() / i128(step),
                         std::numeric_limits<std::uint64_t>::max() / i128(step));
    if (r.low > r.high)
        return fail("no integer satisfies the bounds and multipleOf of this member");
    return rc::gen::map(k_gen(r), [step](i128 v) { return integer_value(v * i128(step)); });
}

std::optional<rc::Gen<json::value>> decimals(constraints const& k, std::uint64_t unit, int exponent) {
    // At most 15 significant digits, so the shortest spelling of the double is the decimal itself.
    i128 most = i128(999'999'999'999'999) / i128(unit);
    k_range r = range_of(k, unit, exponent, -most, most);
    if (r.low > r.high)
        return std::nullopt;
    return rc::gen::map(k_gen(r), [k, r, unit, exponent](i128 v) {
        for (int tries = 0; tries < 4; ++tries) {
            json::value d = decimal_value(v, unit, exponent);
            if (within_as_double(k, d.get_double()))
                return d;
            v = v > r.low ? (v < r.high ? v : v - 1) : v + 1;
        }
        return decimal_value(v, unit, exponent);
    });
}

} // namespace

rc::Gen<json::value> number_gen(schema_node const& node, bool integer) {
    constraints const& k = node.keywords;
    if (integer)
        return integers(k);
    if (k.multiple_of) {
        if (auto g = decimals(k, k.multiple_of->magnitude, k.multiple_of->exponent))
            return *g;
        return fail("no number of at most 15 digits satisfies the bounds and multipleOf of this member");
    }
    // Whole numbers first (they shrink there), then decimals of a few scales, then large ones.
    std::vector<rc::Gen<json::value>> scales;
    std::vector<std::size_t> picks; // by weight: whole numbers four times as often
    for (int e : {0, -1, -2, -3, -6, -12, 12})
        if (auto g = decimals(k, 1, e)) {
            for (int w = 0; w < (e == 0 ? 4 : 1); ++w)
                picks.push_back(scales.size());
            scales.push_back(*g);
        }
    if (scales.empty())
        return fail("no number of at most 15 digits satisfies the bounds of this member");
    return rc::gen::mapcat(pick(std::move(picks)), [scales](std::size_t i) { return scales[i]; });
}

} // namespace agentrt::fuzz::detail
