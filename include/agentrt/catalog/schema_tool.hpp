// agentrt/catalog/schema_tool.hpp — tools whose JSON Schema arrives at run time (for example from
// an MCP server), beside typed ones in the same tool table.
//
//     agentrt::result<agentrt::tool_entry> search = agentrt::schema_tool(
//         "search", "Search the web.", schema_json, agentrt::side_effect::read_only, 5s,
//         [](boost::json::value const& args, agentrt::call_context const&) -> agentrt::tool_result { ... });
//     agentrt::tool_table table = catalogue.table().with({*search});
//
// The schema compiles into the catalogue's schema nodes (compiled_schema.hpp), so a call is checked
// by the same decoder as a typed tool's, with the same violations, and is decided by a policy's
// fallback by name and side-effect class. A keyword outside the subset is an errc::invalid_schema
// error naming the keyword and its JSON Pointer: never validated loosely.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/catalog/tool.hpp>
#include <agentrt/catalog/tool_table.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <functional>
#include <string>

namespace agentrt {

using json_call = std::function<tool_result(boost::json::value const& arguments, call_context const& context)>;

// A tool_entry with argument_type == nullptr whose decode validates against the compiled schema;
// input_schema is the schema as given.
result<tool_entry> schema_tool(std::string name, std::string description, boost::json::object schema,
                               side_effect effect, std::chrono::milliseconds timeout, json_call call,
                               bool terminal = false);

} // namespace agentrt
