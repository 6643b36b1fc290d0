#include <agentrt/catalog/tool_table.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/json_reader.hpp>

#include <iterator>
#include <stdexcept>

namespace agentrt {

boost::json::object tool_entry::spec() const {
    boost::json::object s;
    s["name"] = name;
    s["description"] = description;
    s["input_schema"] = input_schema;
    s["side_effect"] = to_string(effect);
    s["timeout_ms"] = timeout.count();
    s["terminal"] = terminal;
    return s;
}

std::string tool_entry::spec_hash() const {
    return canonical_hash(spec());
}

tool_table::tool_table(std::vector<tool_entry> entries) : entries_(std::move(entries)) {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        auto const& name = entries_[i].name;
        if (!valid_tool_name(name))
            throw std::invalid_argument("agentrt: tool name \"" + name +
                                        "\" must be 1 to 64 characters of [A-Za-z0-9_-]");
        for (std::size_t j = 0; j < i; ++j)
            if (entries_[j].name == name)
                throw std::invalid_argument("agentrt: two tools are named \"" + name + "\"");
        if (!entries_[i].decode || !entries_[i].call)
            throw std::invalid_argument("agentrt: tool \"" + name + "\" has no decode or call function");
    }
}

tool_table tool_table::with(std::vector<tool_entry> more) const {
    std::vector<tool_entry> all(entries_.begin(), entries_.end());
    all.insert(all.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    return tool_table(std::move(all));
}

tool_entry const* tool_table::find(std::string_view name) const noexcept {
    for (auto const& e : entries_)
        if (e.name == name)
            return &e;
    return nullptr;
}

error tool_table::unknown(std::string_view tool) const {
    std::string known;
    for (auto const& e : entries_)
        known += (known.empty() ? "" : ", ") + e.name;
    return error{errc::unknown_tool, "unknown tool \"" + std::string(tool) + "\"; the catalogue has: " + known, {}};
}

result<accepted_call> tool_table::accept_document(std::string_view tool, boost::json::value document) const {
    tool_entry const* entry = find(tool);
    if (!entry)
        return unknown(tool);
    auto decoded = entry->decode(std::move(document));
    if (!decoded)
        return decoded.error();
    return accepted_call{std::size_t(entry - entries_.data()), std::move(*decoded)};
}

result<accepted_call> tool_table::accept(std::string_view tool, std::string_view arguments_text) const {
    if (!find(tool))
        return unknown(tool);
    // In the default storage, not an arena: a shared arena counts its owners atomically, once per
    // node made and freed, and that costs more time than the allocations it saves (bench/README.md).
    auto document = read_json(arguments_text);
    if (!document)
        return document.error();
    return accept_document(tool, std::move(*document));
}

} // namespace agentrt
