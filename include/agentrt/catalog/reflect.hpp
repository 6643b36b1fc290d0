// agentrt/catalog/reflect.hpp — lowers a C++ argument type into its constant type_info.
//
//     constexpr agentrt::type_info const& info = agentrt::type_info_of<send_args>();
//
// Supported: bool; integers (not plain char); float, double; std::string; enums described with
// BOOST_DESCRIBE_ENUM; structs reflected with BOOST_HANA_DEFINE_STRUCT or BOOST_HANA_ADAPT_STRUCT
// (at most 54 members; DEFINE_STRUCT members take no default initialisers); std::optional<T> as a
// struct member (the property is not required); std::vector<T>; std::map<std::string, T>;
// std::variant of reflected structs told apart by tag<> members; field<T, keywords...>.
// Anything else is a compile error whose instantiation notes name the struct member
// (`&send_args::when`). Recursive types are not supported.
#pragma once

#include <agentrt/catalog/field.hpp>
#include <agentrt/catalog/type_info.hpp>

#include <boost/describe/enumerators.hpp>
#include <boost/hana/accessors.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/detail/struct_macros.hpp>
#include <boost/hana/pair.hpp>
#include <boost/hana/string.hpp>
#include <boost/hana/tuple.hpp>

#include <array>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace agentrt {

template <class T, class = void>
struct lowering;

// The type_info of T, a constant of static storage duration.
template <class T>
constexpr type_info const& type_info_of() noexcept {
    return lowering<T>::value;
}

namespace reflect_detail {

template <class>
inline constexpr bool always_false = false;

template <class T>
inline constexpr bool is_optional = false;
template <class T>
inline constexpr bool is_optional<std::optional<T>> = true;

template <class T>
inline constexpr bool is_vector = false;
template <class T, class A>
inline constexpr bool is_vector<std::vector<T, A>> = true;

template <class T>
concept reflected_struct = boost::hana::Struct<T>::value;

template <class T>
concept plain_integer =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> && !std::is_same_v<T, wchar_t> &&
    !std::is_same_v<T, char8_t> && !std::is_same_v<T, char16_t> && !std::is_same_v<T, char32_t>;

template <class T>
concept described_enum = std::is_enum_v<T> && boost::describe::has_describe_enumerators<T>::value;

constexpr type_info scalar(type_kind kind, std::uint8_t size = 0, bool is_signed = false) {
    type_info info{};
    info.kind = kind;
    info.size = size;
    info.is_signed = is_signed;
    return info;
}

// One member of a reflected struct. Accessor is Hana's member pointer type, so a compile error
// about an unsupported member type shows `&Struct::member` in its instantiation notes.
template <class T, class Accessor>
struct member_of {
    using member_type = std::remove_cvref_t<decltype(Accessor{}(std::declval<T&>()))>;
    static void* get(void* object) { return &underlying(Accessor{}(*static_cast<T*>(object))); }
};

// A member's type_info, refused when the struct around it would nest deeper than max_type_depth;
// the instantiation notes name the member (`&Struct::member`).
template <class T, class Accessor, class Member = typename member_of<T, Accessor>::member_type>
struct checked_member {
    static constexpr type_info const& type = type_info_of<Member>();
    static_assert(max_type_depth == 20, "the message below names max_type_depth: say its new value there");
    static_assert(type.depth < max_type_depth,
                  "agentrt: this member nests JSON deeper than agentrt::max_type_depth (20) levels; "
                  "the notes name the member");
};

// The members Hana's struct macros make: a pointer to member, read without calling through Hana.
template <class T, class M, M T::*pointer>
struct member_of<T, boost::hana::struct_detail::member_ptr<M T::*, pointer>> {
    using member_type = M;
    static void* get(void* object) { return &underlying(static_cast<T*>(object)->*pointer); }
};

template <class Name>
struct member_name;
template <char... C>
struct member_name<boost::hana::string<C...>> {
    static constexpr char value[] = {C..., '\0'};
};

// The members of T, read from the type of Hana's accessor tuple: its pairs are (name, accessor)
// types, so no pair or tuple of Hana's is built or indexed.
template <class T, class Accessors = decltype(boost::hana::accessors<T>())>
struct members_of;
template <class T, class... Name, class... Accessor>
struct members_of<T, boost::hana::tuple<boost::hana::pair<Name, Accessor>...>> {
    static constexpr std::array<member_info, sizeof...(Accessor)> value{
        member_info{member_name<Name>::value, &checked_member<T, Accessor>::type,
                    !is_optional<typename member_of<T, Accessor>::member_type>, &member_of<T, Accessor>::get}...};
};

// One level around an element or the members of a struct, saturating: a depth past the limit is
// refused where it first appears, so only its being past the limit matters.
constexpr std::uint8_t around(std::uint8_t inner) {
    return inner == 255 ? inner : static_cast<std::uint8_t>(inner + 1);
}

template <std::size_t N>
constexpr std::uint8_t deepest(std::array<member_info, N> const& members) {
    std::uint8_t depth = 0;
    for (auto const& m : members)
        depth = m.type->depth > depth ? m.type->depth : depth;
    return depth;
}

template <class E, template <class...> class L, class... D>
constexpr std::array<enumerator, sizeof...(D)> enumerator_entries(L<D...>) {
    return {enumerator{D::name, static_cast<std::int64_t>(D::value)}...};
}

template <class E>
constexpr std::array<void* (*)(void*), std::variant_size_v<E>> variant_emplacers() {
    return []<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<void* (*)(void*), sizeof...(I)>{
            [](void* self) -> void* { return &static_cast<E*>(self)->template emplace<I>(); }...};
    }
    (std::make_index_sequence<std::variant_size_v<E>>{});
}

// A tagged union needs, for every two alternatives, a tag member they share with different values.
constexpr bool tags_tell_apart(type_info const& a, type_info const& b) {
    for (auto const& ma : a.members)
        for (auto const& mb : b.members)
            if (ma.type->kind == type_kind::tag && mb.type->kind == type_kind::tag && ma.name == mb.name &&
                ma.type->constant != mb.type->constant)
                return true;
    return false;
}

template <std::size_t N>
constexpr bool alternatives_are_tagged(std::array<type_info const*, N> const& alternatives) {
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = i + 1; j < N; ++j)
            if (!tags_tell_apart(*alternatives[i], *alternatives[j]))
                return false;
    return true;
}

template <class K, class T>
constexpr bool keyword_applies() {
    using kind = typename K::applies_to;
    if constexpr (std::is_same_v<kind, keyword_kind::any>)
        return true;
    else if constexpr (std::is_same_v<kind, keyword_kind::numeric>)
        return plain_integer<T> || std::is_floating_point_v<T>;
    else if constexpr (std::is_same_v<kind, keyword_kind::string>)
        return std::is_same_v<T, std::string>;
    else
        return is_vector<T>; // a map's entry count would need minProperties: not supported, so refused
}

// FLT_MAX as its shortest double spelling, 3.4028234663852886e+38: the double nearest it is
// FLT_MAX, so a double at or inside this bound converts to float without overflow.
constexpr decimal float_limit(bool negative) {
    decimal limit(34028234663852886ULL);
    limit.exponent = 22;
    limit.negative = negative;
    return limit;
}

template <class T>
constexpr bool fits(std::optional<decimal> const& bound) {
    if (!bound)
        return true;
    if constexpr (plain_integer<T>)
        return compare(*bound, decimal(std::numeric_limits<T>::min())) >= 0 &&
               compare(*bound, decimal(std::numeric_limits<T>::max())) <= 0;
    // A float bound beyond FLT_MAX would let the decoder convert an out-of-range double to float.
    if constexpr (std::is_same_v<T, float>)
        return compare(*bound, float_limit(true)) >= 0 && compare(*bound, float_limit(false)) <= 0;
    return true;
}

// Lower bound at or below upper bound, exclusive ones strictly.
constexpr bool ordered(std::optional<decimal> const& low, std::optional<decimal> const& high, bool strict) {
    if (!low || !high)
        return true;
    int c = compare(*low, *high);
    return strict ? c < 0 : c <= 0;
}

template <class T, class... K>
constexpr type_info with_keywords(type_info info) {
    constraints given{};
    (K::apply(given), ...);
    constraints& k = info.keywords;
    // A narrowed bound replaces the C++ type's own bound on that side.
    if (given.minimum || given.exclusive_minimum) {
        k.minimum = given.minimum;
        k.exclusive_minimum = given.exclusive_minimum;
    }
    if (given.maximum || given.exclusive_maximum) {
        k.maximum = given.maximum;
        k.exclusive_maximum = given.exclusive_maximum;
    }
    if (given.multiple_of)
        k.multiple_of = given.multiple_of;
    if (given.min_length)
        k.min_length = given.min_length;
    if (given.max_length)
        k.max_length = given.max_length;
    if (!given.pattern.empty())
        k.pattern = given.pattern;
    if (given.min_items)
        k.min_items = given.min_items;
    if (given.max_items)
        k.max_items = given.max_items;
    if (given.unique_items)
        k.unique_items = true;
    if (!given.description.empty())
        k.description = given.description;
    return info;
}

} // namespace reflect_detail

template <class T, class>
struct lowering {
    static_assert(reflect_detail::always_false<T>,
                  "agentrt: this member type cannot be expressed as JSON Schema. Supported: bool, "
                  "integers (not char), float, double, std::string, enums described with "
                  "BOOST_DESCRIBE_ENUM, structs reflected with Boost.Hana, std::optional (as a "
                  "member), std::vector, std::map<std::string, T>, std::variant of tagged structs, "
                  "agentrt::field and agentrt::tag. The notes below name the member.");
    static constexpr type_info value{};
};

template <>
struct lowering<bool> {
    static constexpr type_info value = reflect_detail::scalar(type_kind::boolean);
};

template <reflect_detail::plain_integer T>
struct lowering<T> {
    static constexpr type_info value = [] {
        type_info info = reflect_detail::scalar(type_kind::integer, sizeof(T), std::is_signed_v<T>);
        info.keywords.minimum = decimal(std::numeric_limits<T>::min());
        info.keywords.maximum = decimal(std::numeric_limits<T>::max());
        return info;
    }();
};

template <std::floating_point T>
struct lowering<T> {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "agentrt: use float or double, not long double");
    static constexpr type_info value = [] {
        type_info info = reflect_detail::scalar(type_kind::number, sizeof(T));
        if constexpr (sizeof(T) == 4) {
            info.keywords.maximum = reflect_detail::float_limit(false);
            info.keywords.minimum = reflect_detail::float_limit(true);
        }
        return info;
    }();
};

template <>
struct lowering<std::string> {
    static constexpr type_info value = reflect_detail::scalar(type_kind::string);
};

template <reflect_detail::described_enum E>
struct lowering<E> {
    static constexpr auto enumerators =
        reflect_detail::enumerator_entries<E>(boost::describe::describe_enumerators<E>{});
    static_assert(enumerators.size() > 0, "agentrt: an enum needs at least one enumerator");
    static constexpr type_info value = [] {
        type_info info =
            reflect_detail::scalar(type_kind::enumeration, sizeof(E), std::is_signed_v<std::underlying_type_t<E>>);
        info.enumerators = enumerators;
        return info;
    }();
};

template <fixed_string V>
struct lowering<tag<V>> {
    static constexpr type_info value = [] {
        type_info info = reflect_detail::scalar(type_kind::tag);
        info.constant = V.view();
        return info;
    }();
};

template <reflect_detail::reflected_struct T>
struct lowering<T, std::enable_if_t<!is_field<T>>> {
    static_assert(std::is_default_constructible_v<T>, "agentrt: an argument struct must be default-constructible");
    static constexpr auto const& members = reflect_detail::members_of<T>::value;
    static constexpr type_info value = [] {
        type_info info = reflect_detail::scalar(type_kind::object);
        info.members = members;
        info.depth = reflect_detail::around(reflect_detail::deepest(members));
        return info;
    }();
};

template <class E>
struct lowering<std::vector<E>> {
    static_assert(!reflect_detail::is_optional<E>,
                  "agentrt: std::optional is for struct members (it makes a property not required)");
    static void resize(void* self, std::size_t count) { *static_cast<std::vector<E>*>(self) = std::vector<E>(count); }
    static void* element(void* self, std::size_t i) { return &underlying((*static_cast<std::vector<E>*>(self))[i]); }
    static std::size_t size(void const* self) { return static_cast<std::vector<E> const*>(self)->size(); }
    static void const* at(void const* self, std::size_t i) {
        return &underlying((*static_cast<std::vector<E> const*>(self))[i]);
    }
    static constexpr type_info value = [] {
        type_info info = reflect_detail::scalar(type_kind::array);
        info.element = &type_info_of<E>();
        info.depth = reflect_detail::around(info.element->depth);
        info.ops.resize = &resize;
        info.ops.element = &element;
        info.ops.size = &size;
        info.ops.at = &at;
        return info;
    }();
};

// std::vector<bool> keeps bits, not bools: decoding sets each value, encoding reads a constant.
template <>
struct lowering<std::vector<bool>> {
    static constexpr bool values[2] = {false, true};
    static void resize(void* self, std::size_t count) {
        *static_cast<std::vector<bool>*>(self) = std::vector<bool>(count);
    }
    static void set_bool(void* self, std::size_t i, bool b) { (*static_cast<std::vector<bool>*>(self))[i] = b; }
    static std::size_t size(void const* self) { return static_cast<std::vector<bool> const*>(self)->size(); }
    static void const* at(void const* self, std::size_t i) {
        return &values[(*static_cast<std::vector<bool> const*>(self))[i] ? 1 : 0];
    }
    static constexpr type_info value = [] {
        type_info info = reflect_detail::scalar(type_kind::array);
        info.element = &type_info_of<bool>();
        info.depth = 1;
        info.ops.resize = &resize;
        info.ops.set_bool = &set_bool;
        info.ops.size = &size;
        info.ops.at = &at;
        return info;
    }();
};

template <class E>
struct lowering<std::map<std::string, E>> {
    static_assert(!reflect_detail::is_optional<E>,
                  "agentrt: std::optional is for struct members (it makes a property not required)");
    using map = std::map<std::string, E>;
    static void* insert(void* self, std::string_view key) {
        return &underlying((*static_cast<map*>(self))[std::string(key)]);
    }
    static void visit(void const* self, void* context, void (*each)(void*, std::string_view, void const*)) {
        for (auto const& [key, value] : *static_cast<map const*>(self))
            each(context, key, &underlying(value));
    }
    static constexpr type_info value = [] {
        type_info info = reflect_detail::scalar(type_kind::map);
        info.element = &type_info_of<E>();
        info.depth = reflect_detail::around(info.element->depth);
        info.ops.insert = &insert;
        info.ops.visit = &visit;
        return info;
    }();
};

template <class E>
struct lowering<std::optional<E>> {
    static_assert(!reflect_detail::is_optional<E>, "agentrt: std::optional<std::optional<T>> has no JSON form");
    static void* emplace(void* self) { return &underlying(static_cast<std::optional<E>*>(self)->emplace()); }
    static void const* get(void const* self) {
        auto const& o = *static_cast<std::optional<E> const*>(self);
        return o ? &underlying(*o) : nullptr;
    }
    static constexpr type_info value = [] {
        type_info info = reflect_detail::scalar(type_kind::optional);
        info.element = &type_info_of<E>();
        info.depth = info.element->depth; // a property that may be absent: no level of its own
        info.ops.emplace = &emplace;
        info.ops.value = &get;
        return info;
    }();
};

template <class... A>
struct lowering<std::variant<A...>> {
    using variant = std::variant<A...>;
    static_assert((reflect_detail::reflected_struct<A> && ...),
                  "agentrt: each alternative of a std::variant must be a reflected struct with a tag<> member");
    static constexpr std::array<type_info const*, sizeof...(A)> alternatives{&type_info_of<A>()...};
    static_assert(reflect_detail::alternatives_are_tagged(alternatives),
                  "agentrt: every two alternatives of a std::variant need a tag<> member of the same "
                  "name with different values, so that exactly one alternative can match");
    static constexpr auto emplacers = reflect_detail::variant_emplacers<variant>();
    static void* emplace_alternative(void* self, std::size_t index) { return emplacers[index](self); }
    static std::size_t index(void const* self) { return static_cast<variant const*>(self)->index(); }
    static void const* alternative(void const* self) {
        return std::visit([](auto const& a) -> void const* { return &a; }, *static_cast<variant const*>(self));
    }
    static constexpr type_info value = [] {
        type_info info = reflect_detail::scalar(type_kind::variant);
        info.alternatives = alternatives;
        for (type_info const* a : alternatives)
            info.depth = a->depth > info.depth ? a->depth : info.depth;
        info.ops.emplace_alternative = &emplace_alternative;
        info.ops.index = &index;
        info.ops.alternative = &alternative;
        return info;
    }();
};

template <class T, class... K>
struct lowering<field<T, K...>> {
    static_assert(!reflect_detail::is_optional<T>,
                  "agentrt: write std::optional<field<T, ...>>, not field<std::optional<T>, ...>");
    static_assert((reflect_detail::keyword_applies<K, T>() && ...),
                  "agentrt: a keyword does not apply to this member's type (numeric bounds and "
                  "multiple_of need a number, lengths and pattern a std::string, item counts and "
                  "unique_items a std::vector)");
    static constexpr type_info value = reflect_detail::with_keywords<T, K...>(type_info_of<T>());
    static constexpr constraints const& k = value.keywords;
    static_assert(reflect_detail::fits<T>(k.minimum) && reflect_detail::fits<T>(k.maximum) &&
                      reflect_detail::fits<T>(k.exclusive_minimum) && reflect_detail::fits<T>(k.exclusive_maximum),
                  "agentrt: a bound lies outside the range of the member's C++ type");
    static_assert(reflect_detail::ordered(k.minimum, k.maximum, false) &&
                      reflect_detail::ordered(k.exclusive_minimum, k.maximum, true) &&
                      reflect_detail::ordered(k.minimum, k.exclusive_maximum, true) &&
                      reflect_detail::ordered(k.exclusive_minimum, k.exclusive_maximum, true),
                  "agentrt: impossible bounds: the minimum is not below the maximum");
    static_assert(!k.min_length || !k.max_length || *k.min_length <= *k.max_length,
                  "agentrt: impossible lengths: min_length is greater than max_length");
    static_assert(!k.min_items || !k.max_items || *k.min_items <= *k.max_items,
                  "agentrt: impossible counts: min_items is greater than max_items");
};

} // namespace agentrt
