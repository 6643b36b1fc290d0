// Numeric keywords checked against a JSON number, shared by the typed decoder and the validator
// of schemas known at run time (private to agentrt's compiled code).
#pragma once

#include <agentrt/catalog/keywords.hpp>
#include <agentrt/catalog/schema.hpp>

#include "numbers.hpp"

#include <boost/json/value.hpp>

#include <optional>

namespace agentrt::internal {

inline decimal_digits exact(boost::json::value const& v) {
    if (v.is_int64())
        return to_decimal(v.get_int64());
    if (v.is_uint64())
        return to_decimal(v.get_uint64());
    return to_decimal(v.get_double());
}

inline decimal_digits exact(decimal const& d) {
    decimal_digits out = to_decimal(d.magnitude);
    out.negative = d.negative && d.magnitude != 0;
    out.exponent += d.exponent;
    return out;
}

// The decimal as an integer, when it is one of at most 38 digits.
inline std::optional<__int128> as_integer(decimal const& d) {
    if (d.exponent < 0 || d.exponent > 18)
        return std::nullopt;
    __int128 v = d.magnitude;
    for (int i = 0; i < d.exponent; ++i)
        v *= 10;
    return d.negative ? -v : v;
}

// An integer value (int64 or uint64) widened.
inline __int128 integer_of(boost::json::value const& v) {
    return v.is_int64() ? __int128(v.get_int64()) : __int128(v.get_uint64());
}

// -1, 0, 1 as value < bound. Integers compare exactly; a double compares with the double nearest
// the bound, as a JSON Schema validator reading the schema as JSON would.
inline int compare_bound(boost::json::value const& v, decimal const& bound) {
    if (v.is_double()) {
        double b = to_json(bound).to_number<double>();
        double d = v.get_double();
        return d < b ? -1 : (d > b ? 1 : 0);
    }
    if (auto b = as_integer(bound)) {
        __int128 i = integer_of(v);
        return i < *b ? -1 : (i > *b ? 1 : 0);
    }
    return compare(exact(v), exact(bound));
}

// multipleOf, exactly: integers by remainder, anything else in decimals.
inline bool is_multiple_of(boost::json::value const& v, decimal const& divisor) {
    if (!v.is_double())
        if (auto d = as_integer(divisor))
            return integer_of(v) % *d == 0;
    return is_multiple_of(exact(v), exact(divisor));
}

} // namespace agentrt::internal
