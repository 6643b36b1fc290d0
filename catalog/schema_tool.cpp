#include <agentrt/catalog/schema_tool.hpp>

#include <agentrt/catalog/decode.hpp>

namespace agentrt {

result<tool_entry> schema_tool(std::string name, std::string description, boost::json::object schema,
                               side_effect effect, std::chrono::milliseconds timeout, json_call call, bool terminal) {
    auto compiled = compile_schema(schema);
    if (!compiled)
        return compiled.error();
    tool_entry e;
    e.name = std::move(name);
    e.description = std::move(description);
    e.input_schema = std::move(schema);
    e.argument_schema = *compiled;
    e.effect = effect;
    e.timeout = timeout;
    e.terminal = terminal;
    e.decode = [s = *compiled](boost::json::value document) -> result<arguments> {
        auto violations = validate(s, document);
        if (!violations.empty())
            return invalid_arguments(std::move(violations));
        return arguments(std::move(document), nullptr, nullptr);
    };
    e.call = [call = std::move(call)](arguments const& a, call_context const& context) {
        return call(a.json(), context);
    };
    return e;
}

} // namespace agentrt
