// agentrt/fuzz/schema.hpp — tools whose JSON Schema arrives at run time (for example from an MCP
// server): compiled into a shape, validated with the typed decoder's error format, generated for.
//
//     agentrt::result<agentrt::tool_entry> t = agentrt::fuzz::schema_tool(
//         "search", "Search the web.", schema_json, agentrt::side_effect::read_only, 5s,
//         [](boost::json::value const& args, agentrt::call_context const&) -> agentrt::tool_result { ... });
//
// Supported keywords: type (one or several), enum, const, properties, required,
// additionalProperties (boolean or schema), minProperties, maxProperties, items, prefixItems,
// minItems, maxItems, uniqueItems, minLength, maxLength, pattern (the subset of
// agentrt/catalog/pattern.hpp), minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf,
// anyOf, oneOf, allOf, and local $ref ("#", "#/$defs/...", "#/definitions/..."); the annotations
// $schema (draft 2020-12 only), $defs, definitions, $comment, title, description, default,
// examples, deprecated, readOnly and writeOnly are read and ignored. Any other keyword is refused
// with an errc::invalid_schema error naming it and its place: never guessed at.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/catalog/tool.hpp>
#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/fuzz/shape.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace agentrt::fuzz {

result<shape> compile_schema(boost::json::value const& schema);

// Every rule the document breaks, as decode_into reports them for a typed tool.
std::vector<violation> validate(shape const& s, boost::json::value const& document);

using json_call = std::function<tool_result(boost::json::value const& arguments, call_context const& context)>;

// A tool_entry with argument_type == nullptr whose decode validates against the compiled schema.
result<tool_entry> schema_tool(std::string name, std::string description, boost::json::object schema,
                               side_effect effect, std::chrono::milliseconds timeout, json_call call,
                               bool terminal = false);

// The shape of a table entry: its type's, or its schema compiled (throws agentrt::exception on a
// schema outside the supported keywords).
shape shape_of(tool_entry const& entry);

} // namespace agentrt::fuzz
