// agentrt/catalog/type_info.hpp — what compiled code knows of an argument type.
//
// Reflection (reflect.hpp) lowers each argument type into one constant `type_info`: its kind, its
// keywords, its members or elements, and a few function pointers for what only the type can do
// (size a vector, emplace an optional). Schema derivation, validation and encoding are
// ordinary compiled code over these tables, which keeps a consumer's build fast.
//
// Every `void*` handed to or returned by these functions points at the plain object (the T of a
// field<T, ...>), never at a wrapper.
#pragma once

#include <agentrt/catalog/keywords.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace agentrt {

enum class type_kind : std::uint8_t {
    boolean,
    integer,     // size and is_signed say which C++ type
    number,      // float (size 4) or double (size 8)
    string,      // std::string
    enumeration, // an enum described with BOOST_DESCRIBE_ENUM
    tag,         // tag<"...">: a constant string, nothing stored
    object,      // a reflected struct
    array,       // std::vector<element>
    map,         // std::map<std::string, element>
    optional,    // std::optional<element>, only as a struct member
    variant,     // std::variant of tagged structs
};

struct type_info;

// The deepest nesting of JSON values an argument type may describe: a struct is one level, each
// vector or map around a value one more. Deeper types are refused at compile time, naming the
// member: Boost.Hana's struct macro alone doubles its compile time per level of std::vector past
// about 20 (bench/README.md).
inline constexpr std::size_t max_type_depth = 20;

struct member_info {
    std::string_view name;
    type_info const* type;
    bool required;
    void* (*get)(void* object);

    void const* cget(void const* object) const { return get(const_cast<void*>(object)); } // to read only
};

struct enumerator {
    std::string_view name;
    std::int64_t value;
};

// What only the C++ type can do; unused entries stay null.
struct type_operations {
    // array
    // Sized once to the document's item count, then filled: growing a vector one item at a time
    // would instantiate libstdc++'s relocation checks, whose cost doubles with each level of nesting.
    void (*resize)(void* self, std::size_t count) = nullptr;
    void* (*element)(void* self, std::size_t index) = nullptr;             // null for std::vector<bool>
    void (*set_bool)(void* self, std::size_t index, bool value) = nullptr; // std::vector<bool> only
    std::size_t (*size)(void const* self) = nullptr;
    void const* (*at)(void const* self, std::size_t index) = nullptr;
    // map
    void* (*insert)(void* self, std::string_view key) = nullptr;
    void (*visit)(void const* self, void* context,
                  void (*each)(void* context, std::string_view key, void const* value)) = nullptr;
    // optional
    void* (*emplace)(void* self) = nullptr;
    void const* (*value)(void const* self) = nullptr; // null when empty
    // variant
    void* (*emplace_alternative)(void* self, std::size_t index) = nullptr;
    std::size_t (*index)(void const* self) = nullptr;
    void const* (*alternative)(void const* self) = nullptr;
};

struct type_info {
    type_kind kind{};
    std::uint8_t size = 0; // bytes of an integer, float or enum
    bool is_signed = false;
    std::uint8_t depth = 0; // levels of JSON objects and arrays, this one included
    constraints keywords{}; // integers carry their C++ range here unless narrowed
    type_info const* element = nullptr;
    std::span<member_info const> members{};
    std::span<type_info const* const> alternatives{};
    std::span<enumerator const> enumerators{};
    std::string_view constant{}; // tag
    type_operations ops{};
};

} // namespace agentrt
