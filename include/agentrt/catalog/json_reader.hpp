// agentrt/catalog/json_reader.hpp — the strict JSON boundary every model-sent text passes first.
//
// It refuses what could be read two ways or exhaust the reader: nesting deeper than 256, invalid
// UTF-8, a \u escape of an unpaired surrogate, a duplicate key, anything but exactly one value, a
// number literal longer than 10,000 characters or with an exponent beyond ±10,000, a number no
// double can hold, and a number with a fraction whose nearest double is an integer
// (0.99999999999999999999). Each refusal names its rule (the violation keyword) and the byte offset.
//
//     agentrt::result<boost::json::value> v = agentrt::read_json(R"({"to":"a@b.c"})");
//
// Numbers are normalised by value: a literal whose exact value is an integer that fits 64 bits
// (`1.0`, `1e2`, `-0`) becomes an int64 (uint64 above INT64_MAX); every other number becomes the
// double nearest to its literal (std::from_chars, correctly rounded). So a double read here holds
// an integer only when its literal was one beyond 64 bits (`1e30`): a literal with a fraction is
// refused rather than read as an integral double, which an integer member would then accept.
#pragma once

#include <agentrt/catalog/error.hpp>

#include <boost/json/storage_ptr.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <string_view>

namespace agentrt {

struct read_limits {
    std::size_t max_depth = 256;
    std::size_t max_number_length = 10'000;
    int max_exponent = 10'000;
};

// Violation keywords of the boundary, one per rule.
namespace boundary_rule {
inline constexpr std::string_view syntax = "syntax";
inline constexpr std::string_view depth = "maxDepth";
inline constexpr std::string_view utf8 = "utf8";
inline constexpr std::string_view surrogate = "unpairedSurrogate";
inline constexpr std::string_view duplicate_key = "duplicateKey";
inline constexpr std::string_view empty = "empty";
inline constexpr std::string_view truncated = "truncated";
inline constexpr std::string_view trailing = "trailingContent";
inline constexpr std::string_view number_length = "numberLength";
inline constexpr std::string_view exponent = "exponent";
inline constexpr std::string_view number_range = "numberRange";
inline constexpr std::string_view number_precision = "numberPrecision";
} // namespace boundary_rule

// Reads exactly one JSON value, or an errc::invalid_json error with one violation.
result<boost::json::value> read_json(std::string_view text, read_limits const& limits = {},
                                     boost::json::storage_ptr storage = {});

} // namespace agentrt
