// agentrt/catalog/decode.hpp — decoding model-sent JSON is validation.
//
//     agentrt::result<send_args> args = agentrt::decode<send_args>(R"({"to": "ops@example.com"})");
//     if (!args) std::cerr << args.error();   // every violation, e.g. "/cc/3: maxLength 64, got 70"
//
// The text passes the strict JSON boundary (json_reader.hpp) first; then every keyword of the
// schema is checked and every violation reported with its JSON Pointer, its keyword and the value
// found (cut for display). Unknown members are refused. A number with a zero fractional part is an
// integer (`1.0`, `1e2`) when it fits the member's type and bounds.
//
// One decoder serves typed tools and tools whose schema arrived at run time: both are schema
// nodes (compiled_schema.hpp), and the violations read the same for both.
#pragma once

#include <agentrt/catalog/compiled_schema.hpp>
#include <agentrt/catalog/error.hpp>
#include <agentrt/catalog/json_reader.hpp>
#include <agentrt/catalog/reflect.hpp>

#include <boost/json/value.hpp>

#include <concepts>
#include <string_view>
#include <vector>

namespace agentrt {

// Checks `document` against `schema` and, when `target` is not null, stores what it reads into the
// plain object of the schema's type that `target` points at (so `target` must be null for nodes
// compiled from a run-time schema). Returns every violation; none means the document is valid.
std::vector<violation> decode_into(schema_node const& schema, boost::json::value const& document, void* target);
std::vector<violation> decode_into(type_info const& type, boost::json::value const& document, void* target);

// Every rule the document breaks.
std::vector<violation> validate(compiled_schema const& schema, boost::json::value const& document);

// The value as JSON, members in declaration order.
boost::json::value encode(type_info const& type, void const* source);

// The error decode<T> returns for these violations.
error invalid_arguments(std::vector<violation> violations);

// From a value already read (exactly a boost::json::value: a string literal means text).
template <class T, std::same_as<boost::json::value> Document>
result<T> decode(Document const& document) {
    static schema_node const& schema = lowered(type_info_of<T>()).root();
    T value{};
    auto violations = decode_into(schema, document, &underlying(value));
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
