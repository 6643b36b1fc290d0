// Exact reading of JSON number literals, shared by the boundary and the validator.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace agentrt::internal {

enum class literal_status { int64, uint64, floating, exponent_too_large, out_of_range, fraction_lost };

struct literal_value {
    literal_status status{};
    std::int64_t i = 0;
    std::uint64_t u = 0;
    double d = 0;
};

// `literal` is a valid JSON number. An exactly integral value that fits 64 bits comes back as an
// integer; anything else as the correctly rounded double, except a literal with a fraction whose
// nearest double has none (0.99999999999999999999, 2.0000000000000001): that is `fraction_lost`,
// since no double tells it from an integer.
literal_value parse_number_literal(std::string_view literal, int max_exponent);

// A finite value as an exact decimal: digits (no leading zeros, "0" for zero) times 10^exponent.
// For a double this is its shortest round-trip spelling, which is the literal a model wrote whenever
// that literal had 17 significant digits or fewer.
struct decimal_digits {
    bool negative = false;
    std::string digits;
    int exponent = 0;
};
decimal_digits to_decimal(std::int64_t v);
decimal_digits to_decimal(std::uint64_t v);
decimal_digits to_decimal(double v);

// Is `value` an integer multiple of `divisor` (both exact decimals, divisor > 0)?
bool is_multiple_of(decimal_digits const& value, decimal_digits const& divisor);

// -1, 0, 1 as a < b, exactly.
int compare(decimal_digits const& a, decimal_digits const& b);

// The shortest round-trip text of a finite double, valid as JSON ("0.1", "1e+21").
std::string format_double(double v);

} // namespace agentrt::internal
