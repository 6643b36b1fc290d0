// agentrt/catalog/decode.hpp — decoding model-sent JSON is validation.
//
//     agentrt::result<send_args> args = agentrt::decode<send_args>(R"({"to": "ops@example.com"})");
//     if (!args) std::cerr << args.error();   // every violation, e.g. "/cc/3: maxLength 64, got 70"
//
// The text passes the strict JSON boundary (json_reader.hpp) first; then every keyword of the
// schema is checked and every violation reported with its JSON Pointer, its keyword and the value
// found (cut for display). Unknown members are refused. A number with a zero fractional part is an
// integer (`1.0`, `1e2`) when it fits the member's type and bounds.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/catalog/json_reader.hpp>
#include <agentrt/catalog/reflect.hpp>

#include <boost/json/value.hpp>

#include <concepts>
#include <string_view>
#include <vector>

namespace agentrt {

// Checks `document` against `type` and, when `target` is not null, stores what it reads into the
// plain object `target` points at. Returns every violation; none means the document is valid.
std::vector<violation> decode_into(type_info const& type, boost::json::value const& document, void* target);

// The value as JSON, members in declaration order.
boost::json::value encode(type_info const& type, void const* source);

// The error decode<T> returns for these violations.
error invalid_arguments(std::vector<violation> violations);

// From a value already read (exactly a boost::json::value: a string literal means text).
template <class T, std::same_as<boost::json::value> Document>
result<T> decode(Document const& document) {
    T value{};
    auto violations = decode_into(type_info_of<T>(), document, &underlying(value));
    if (!violations.empty())
        return invalid_arguments(std::move(violations));
    return value;
}

template <class T>
result<T> decode(std::string_view text) {
    auto document = read_json(text);
    if (!document)
        return document.error();
    return decode<T>(document.value());
}

template <class T>
boost::json::value to_json(T const& value) {
    return encode(type_info_of<T>(), &underlying(value));
}

} // namespace agentrt
