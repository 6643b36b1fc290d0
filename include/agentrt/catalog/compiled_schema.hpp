// agentrt/catalog/compiled_schema.hpp — the one representation of a tool's argument schema.
//
//     agentrt::compiled_schema const& typed = agentrt::lowered(agentrt::type_info_of<send_args>());
//     agentrt::result<agentrt::compiled_schema> dynamic = agentrt::compile_schema(schema_json);
//
// A reflected argument type lowers into a graph of nodes (a variant becomes oneOf over tagged
// objects, an enum a string enum, a tag a const); a JSON Schema known only at run time compiles
// into the same nodes, for exactly the subset docs/catalogue.md lists, and any other keyword is
// refused by name and JSON Pointer. One decoder (decode.hpp) validates over these nodes, one
// writer (schema.hpp) spells them as JSON Schema, and the fuzz library generates from them.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/catalog/keywords.hpp>
#include <agentrt/catalog/type_info.hpp>

#include <boost/json/value.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentrt {

// JSON types as a bit set; a node with no bit set takes any type.
namespace json_type {
inline constexpr std::uint8_t null = 1, boolean = 2, integer = 4, number = 8, string = 16, array = 32, object = 64;
inline constexpr std::uint8_t any = 0;

// Each bit and the name the "type" keyword spells it with.
struct named_bit {
    std::uint8_t bit;
    char const* name;
};
inline constexpr named_bit names[] = {{null, "null"},     {boolean, "boolean"}, {integer, "integer"},
                                      {number, "number"}, {string, "string"},   {array, "array"},
                                      {object, "object"}};
} // namespace json_type

struct schema_node;

struct property {
    std::string name;
    schema_node const* node = nullptr;
    bool required = false;
    member_info const* member = nullptr; // of the struct a typed node was lowered from
};

enum class extra_members : std::uint8_t { allowed, forbidden, schema };

struct schema_node {
    std::uint8_t types = json_type::any;
    constraints keywords{}; // numeric bounds, multipleOf, lengths, item counts, uniqueItems
    std::string pattern;    // keywords.pattern is unused: the text is owned here
    std::string description;
    std::vector<boost::json::value> enumeration; // enum (or const) values when has_enum
    bool has_enum = false;
    bool is_const = false;
    std::vector<property> properties;
    extra_members additional = extra_members::allowed;
    schema_node const* additional_schema = nullptr;
    std::optional<std::size_t> min_properties, max_properties;
    schema_node const* items = nullptr;
    std::vector<schema_node const*> prefix_items;
    bool closed_items = false; // "items": false: nothing after prefix_items
    std::vector<schema_node const*> any_of, one_of, all_of;
    schema_node const* ref = nullptr; // local $ref: the node stands for its target
    // The C++ type lowered here, whose operations store what the decoder reads; null for a node
    // compiled from a run-time schema.
    type_info const* type = nullptr;

    bool typed() const noexcept { return type != nullptr; }
    bool lowered_from(type_kind kind) const noexcept { return type && type->kind == kind; }
};

// A graph of nodes with shared ownership; copying one is cheap.
class compiled_schema {
public:
    compiled_schema() = default;
    compiled_schema(std::shared_ptr<std::deque<schema_node> const> nodes, schema_node const* root)
        : nodes_(std::move(nodes)), root_(root) {}

    schema_node const& root() const noexcept { return *root_; }
    bool empty() const noexcept { return root_ == nullptr; }

private:
    std::shared_ptr<std::deque<schema_node> const> nodes_;
    schema_node const* root_ = nullptr;
};

// The schema of a reflected argument type, lowered once and kept for the life of the program.
compiled_schema const& lowered(type_info const& type);

// A JSON Schema known at run time. A keyword outside the subset, a malformed keyword value or a
// $ref that points at nothing gives an errc::invalid_schema error whose violation names the
// keyword and the JSON Pointer of the schema where it stands.
result<compiled_schema> compile_schema(boost::json::value const& schema);

// Follows $ref links to the node that carries keywords.
schema_node const& resolve(schema_node const& node) noexcept;

} // namespace agentrt
