#include <agentrt/catalog/catalog.hpp>

#include <stdexcept>

namespace agentrt::catalog_detail {
namespace {

struct typed_decode {
    type_info const* type;
    schema_node const* schema; // lowered once for the program's life
    argument_lifetime const* lifetime;

    result<arguments> operator()(boost::json::value document) const {
        std::shared_ptr<void const> holder(lifetime->create(), lifetime->destroy);
        auto violations = decode_into(*schema, document, const_cast<void*>(holder.get()));
        if (!violations.empty())
            return invalid_arguments(std::move(violations));
        return arguments(std::move(document), type, std::move(holder));
    }
};

struct typed_call {
    std::shared_ptr<void> holder; // keeps the tool alive
    typed_tool tool;

    tool_result operator()(arguments const& a, call_context const& context) const {
        if (a.type() != tool.argument_type)
            throw std::invalid_argument("agentrt: tool " + std::string(tool.name) +
                                        " was handed arguments it did not decode");
        return tool.invoke(tool.tool, a.data(), context);
    }
};

} // namespace

tool_table typed_table(std::span<typed_tool const> tools, std::shared_ptr<void> holder) {
    std::vector<tool_entry> entries;
    entries.reserve(tools.size());
    for (typed_tool const& t : tools) {
        tool_entry& e = entries.emplace_back();
        e.catalogue_index = t.catalogue_index;
        e.name = t.name;
        e.description = t.description;
        e.argument_schema = lowered(*t.argument_type);
        e.input_schema = schema(e.argument_schema.root());
        e.effect = t.effect;
        e.timeout = t.timeout;
        e.terminal = t.terminal;
        e.argument_type = t.argument_type;
        e.decode = typed_decode{t.argument_type, &e.argument_schema.root(), t.lifetime};
        e.call = typed_call{holder, t};
    }
    return tool_table(std::move(entries));
}

} // namespace agentrt::catalog_detail
