// agentrt/catalog/canonical_json.hpp — the one spelling of a JSON value that is hashed.
//
// Canonical JSON: object keys sorted bytewise, no whitespace, integers in decimal, other numbers
// in the shortest form that reads back to the same double, strings escaped one fixed way (`"`, `\`
// and control characters escaped, `\n` style where JSON has one, `\u00XX` otherwise; everything
// else written as its UTF-8). Values equal under JSON Schema (`1.0` and `1`) spell the same.
//
//     canonical_json(read_json(R"({"b": 1.0, "a": [true]})").value()) == R"({"a":[true],"b":1})"
#pragma once

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace agentrt {

std::string canonical_json(boost::json::value const& v);

// The same spelling with object keys in their stored order: the text of a schema, whose property
// order is the order a model reads.
std::string ordered_json(boost::json::value const& v);

// A string as a JSON string literal, quotes included, escaped as canonical JSON escapes it.
std::string json_string_literal(std::string_view text);
// Appends json_string_literal(text) to `out` (for code that writes JSON text itself).
void append_json_string(std::string& out, std::string_view text);

// Lower-case hex SHA-256 of bytes (OpenSSL's libcrypto).
std::string sha256_hex(std::string_view bytes);

// sha256_hex(canonical_json(v)): the hash of approvals, tool specs and observations.
std::string canonical_hash(boost::json::value const& v);

} // namespace agentrt
