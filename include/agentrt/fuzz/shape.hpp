// agentrt/fuzz/shape.hpp — the one description of a JSON value space that generators, near
// misses and the run-time validator read.
//
//     agentrt::fuzz::shape typed = agentrt::fuzz::shape_of(agentrt::type_info_of<send_args>());
//     agentrt::result<agentrt::fuzz::shape> dynamic = agentrt::fuzz::compile_schema(schema_json);
//
// A typed argument type lowers into a shape (a variant becomes oneOf over tagged objects, an enum
// a string enum, a tag a const). A JSON Schema known only at run time compiles into one too, for
// exactly the keywords listed in schema.hpp; any other keyword is refused by name.
#pragma once

#include <agentrt/catalog/keywords.hpp>
#include <agentrt/catalog/type_info.hpp>

#include <boost/json/value.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentrt::fuzz {

// JSON types as a bit set; a node with no bit set takes any type.
namespace json_type {
inline constexpr std::uint8_t null = 1, boolean = 2, integer = 4, number = 8, string = 16, array = 32, object = 64;
inline constexpr std::uint8_t any = 0;
} // namespace json_type

struct shape_node;

struct property {
    std::string name;
    shape_node const* node = nullptr;
    bool required = false;
};

enum class extra_members : std::uint8_t { allowed, forbidden, schema };

struct shape_node {
    std::uint8_t types = json_type::any;
    constraints keywords{};                      // numeric bounds, multipleOf, lengths, item counts, uniqueItems
    std::string pattern;                         // keywords.pattern is unused: the text is owned here
    std::vector<boost::json::value> enumeration; // enum (or const) values when has_enum
    bool has_enum = false;
    bool is_const = false;
    std::vector<property> properties;
    extra_members additional = extra_members::allowed;
    shape_node const* additional_schema = nullptr;
    std::optional<std::size_t> min_properties, max_properties;
    shape_node const* items = nullptr;
    std::vector<shape_node const*> prefix_items;
    bool closed_items = false;       // "items": false: nothing after prefix_items
    std::vector<shape_node const*> any_of, one_of, all_of;
    shape_node const* ref = nullptr; // local $ref: the node stands for its target
    bool typed = false;              // lowered from a C++ type (its decoder is the reference)
};

// A graph of nodes with shared ownership; copying a shape is cheap.
class shape {
public:
    shape() = default;
    shape(std::shared_ptr<std::deque<shape_node> const> nodes, shape_node const* root)
        : nodes_(std::move(nodes)), root_(root) {}

    shape_node const& root() const noexcept { return *root_; }
    bool empty() const noexcept { return root_ == nullptr; }

private:
    std::shared_ptr<std::deque<shape_node> const> nodes_;
    shape_node const* root_ = nullptr;
};

// The shape of a reflected argument type; cached, so calling it again is cheap.
shape shape_of(type_info const& type);

// Follows $ref links to the node that carries keywords.
shape_node const& resolve(shape_node const& node) noexcept;

} // namespace agentrt::fuzz
