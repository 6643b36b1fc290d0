// agentrt/runtime/tool_definitions.hpp — the tool definitions a model request carries.
//
//     boost::json::array tools = agentrt::render(table, agentrt::provider::anthropic);
//     // [{"name":"send_email","description":"...","input_schema":{...}}]
//
// The neutral form is tool_definition; renderers give the shapes providers expect: Anthropic's
// `input_schema`, and OpenAI's `{"type":"function","function":{..., "parameters": ...}}`.
#pragma once

#include <agentrt/catalog/tool_table.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace agentrt {

struct tool_definition {
    std::string name;
    std::string description;
    boost::json::object input_schema;
};

enum class provider { neutral, anthropic, openai };

std::vector<tool_definition> definitions(tool_table const& table);

boost::json::object render(tool_definition const& tool, provider shape);
boost::json::array render(tool_table const& table, provider shape);

} // namespace agentrt
