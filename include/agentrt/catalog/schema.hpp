// agentrt/catalog/schema.hpp — the JSON Schema (draft 2020-12) a model is shown for a type.
//
//     std::string text = agentrt::schema_text<send_args>();
//     // {"type":"object","properties":{"to":{...}},"required":["to"],"additionalProperties":false}
//
// Every struct has `additionalProperties: false`; properties and `required` are in declaration
// order, the order a model reads. The schema is a function of the type alone: the same type gives
// byte-identical text on every build.
//
// The writer spells schema nodes (compiled_schema.hpp): those lowered from a type, and those
// compiled from a run-time schema (with each $ref written out in place; a recursive one throws
// std::invalid_argument). A run-time tool shows a model its schema as it came.
#pragma once

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/compiled_schema.hpp>
#include <agentrt/catalog/reflect.hpp>

#include <boost/json/object.hpp>

#include <string>

namespace agentrt {

boost::json::object schema(schema_node const& node);
boost::json::object schema(type_info const& type);

// The decimal as a JSON number: an integer when it is one and fits 64 bits, else the nearest double.
boost::json::value to_json(decimal const& d);

template <class T>
boost::json::object schema_of() {
    return schema(type_info_of<T>());
}

template <class T>
std::string schema_text() {
    return ordered_json(schema_of<T>());
}

} // namespace agentrt
