// agentrt/catalog/tool_table.hpp — the type-erased table of tools the runtime works with.
//
//     agentrt::tool_table table = my_catalog.table();
//     agentrt::result<agentrt::accepted_call> call = table.accept("send_email", R"({"to":"a@b.c"})");
//     if (call) table.at(call->index).call(call->args, context);
//
// A catalogue lowers itself into this table; tools whose schema arrives at run time enter it the
// same way. The runtime, the store and the test kit only ever see the table, so they are ordinary
// compiled code.
#pragma once

#include <agentrt/catalog/compiled_schema.hpp>
#include <agentrt/catalog/error.hpp>
#include <agentrt/catalog/tool.hpp>
#include <agentrt/catalog/type_info.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt {

// Arguments that passed validation: the document, and the decoded struct for a typed tool.
// Accepted text's document is in the default storage. A document given to accept_document keeps
// the storage it came with; a copy of the arguments copies it into the default storage.
class arguments {
public:
    arguments() = default;
    arguments(boost::json::value document, type_info const* type, std::shared_ptr<void const> value)
        : document_(std::move(document)), type_(type), value_(std::move(value)) {}
    arguments(arguments const& other)
        : document_(other.document_, boost::json::storage_ptr()), type_(other.type_), value_(other.value_) {}
    arguments(arguments&&) noexcept = default;
    arguments& operator=(arguments const& other) {
        if (this != &other)
            *this = arguments(other);
        return *this;
    }
    // The document comes with its storage: boost::json's own assignment would copy it into ours.
    arguments& operator=(arguments&& other) noexcept {
        if (this != &other) {
            std::destroy_at(&document_);
            std::construct_at(&document_, std::move(other.document_));
            type_ = other.type_;
            value_ = std::move(other.value_);
        }
        return *this;
    }

    boost::json::value const& json() const noexcept { return document_; }
    type_info const* type() const noexcept { return type_; }

    // The decoded struct (see arguments_as in catalog.hpp), null for a tool without a C++ type.
    void const* data() const noexcept { return value_.get(); }

private:
    boost::json::value document_;
    type_info const* type_ = nullptr;
    std::shared_ptr<void const> value_;
};

struct tool_entry {
    std::string name;
    std::string description;
    boost::json::object input_schema; // what a model is shown
    compiled_schema argument_schema;  // what the decoder checks and the fuzz library generates from
    side_effect effect = side_effect::destructive;
    std::chrono::milliseconds timeout{0};
    bool terminal = false;
    type_info const* argument_type = nullptr; // null for a tool whose schema arrived at run time
    // The tool's place in the catalogue that made it, by which a lowered policy finds its rule.
    std::size_t catalogue_index = not_in_a_catalogue;
    static constexpr std::size_t not_in_a_catalogue = std::size_t(-1);
    // By value: accepting text moves the document it read into the arguments, copying nothing.
    std::function<result<arguments>(boost::json::value)> decode;
    std::function<tool_result(arguments const&, call_context const&)> call;

    // The whole definition as JSON: name, description, input_schema, side_effect, timeout_ms, terminal.
    boost::json::object spec() const;
    // SHA-256 of the canonical form of spec().
    std::string spec_hash() const;
};

struct accepted_call {
    std::size_t index = 0; // of the tool in the table
    arguments args;
};

class tool_table {
public:
    tool_table() = default;
    // Throws std::invalid_argument on a malformed or repeated name.
    explicit tool_table(std::vector<tool_entry> entries);

    // This table's tools and then `more` (run-time tools beside a catalogue's, say), checked as
    // the constructor checks them.
    tool_table with(std::vector<tool_entry> more) const;

    std::span<tool_entry const> entries() const noexcept { return entries_; }
    std::size_t size() const noexcept { return entries_.size(); }
    tool_entry const& at(std::size_t index) const { return entries_.at(index); }
    tool_entry const* find(std::string_view name) const noexcept;

    // The acceptance path of a model-sent call: the tool exists, the text passes the strict JSON
    // boundary, the document passes the tool's schema.
    result<accepted_call> accept(std::string_view tool, std::string_view arguments_text) const;
    // From a document already read (exactly a boost::json::value: a string literal means text).
    template <std::same_as<boost::json::value> Document>
    result<accepted_call> accept(std::string_view tool, Document const& document) const {
        return accept_document(tool, document);
    }

private:
    error unknown(std::string_view tool) const;
    result<accepted_call> accept_document(std::string_view tool, boost::json::value document) const;

    std::vector<tool_entry> entries_;
};

} // namespace agentrt
