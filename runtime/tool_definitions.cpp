#include <agentrt/runtime/tool_definitions.hpp>

namespace agentrt {

std::vector<tool_definition> definitions(tool_table const& table) {
    std::vector<tool_definition> out;
    out.reserve(table.size());
    for (auto const& e : table.entries())
        out.push_back(tool_definition{e.name, e.description, e.input_schema});
    return out;
}

boost::json::object render(tool_definition const& tool, provider shape) {
    switch (shape) {
    case provider::openai: {
        boost::json::object function{
            {"name", tool.name}, {"description", tool.description}, {"parameters", tool.input_schema}};
        return boost::json::object{{"type", "function"}, {"function", std::move(function)}};
    }
    case provider::neutral:
    case provider::anthropic:
        break;
    }
    return boost::json::object{
        {"name", tool.name}, {"description", tool.description}, {"input_schema", tool.input_schema}};
}

boost::json::array render(tool_table const& table, provider shape) {
    boost::json::array out;
    for (auto const& d : definitions(table))
        out.push_back(render(d, shape));
    return out;
}

} // namespace agentrt
