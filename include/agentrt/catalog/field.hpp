// agentrt/catalog/field.hpp — a member with JSON Schema keywords, read as its plain value.
//
//     struct send_args {
//         BOOST_HANA_DEFINE_STRUCT(send_args,
//             (agentrt::field<std::string, agentrt::max_length<64>, agentrt::description<"Recipient">>, to),
//             (agentrt::field<int, agentrt::minimum<1>, agentrt::maximum<5>>, priority));
//     };
//     void use(send_args const& a) { std::string const& to = a.to; int p = a.priority; }
//
// A field of a class type (string, vector, map) is that type; a field of a number, bool or enum
// converts to it. `tag<"email">` is the constant member that tells the alternatives of a
// std::variant apart (schema `{"const": "email"}`).
#pragma once

#include <agentrt/catalog/keywords.hpp>

#include <boost/json/fwd.hpp>

#include <concepts>
#include <type_traits>
#include <utility>

namespace agentrt {

namespace field_detail {

template <class T, bool = std::is_class_v<T>>
struct storage : T {
    using T::T;
    storage() = default;
    storage(T const& v) : T(v) {}       // NOLINT: implicit, a field is its value
    storage(T&& v) : T(std::move(v)) {} // NOLINT
    T& get() noexcept { return *this; }
    T const& get() const noexcept { return *this; }
};

template <class T>
struct storage<T, false> {
    T value{};
    constexpr storage() = default;
    constexpr storage(T v) noexcept : value(v) {}           // NOLINT: implicit, a field is its value
    constexpr operator T() const noexcept { return value; } // NOLINT
    constexpr T& get() noexcept { return value; }
    constexpr T const& get() const noexcept { return value; }
    friend constexpr bool operator==(storage const& a, storage const& b) { return a.value == b.value; }
    friend constexpr bool operator==(storage const& a, T const& b) { return a.value == b; }
};

} // namespace field_detail

template <class T, class... Keywords>
struct field : field_detail::storage<T> {
    using value_type = T;
    using keywords = field; // lets reflection find the keywords without naming the pack
    using field_detail::storage<T>::storage;
    field() = default;
};

// Boost.JSON converts a field as its value: boost::json::value_from(args.priority) is a number and
// boost::json::value_to<decltype(args.priority)>(v) reads one. (A field of a class type is that
// type, which Boost.JSON converts already.) The value is a template parameter so that this header
// needs only Boost.JSON's declarations.
template <class Value, class T, class... K>
requires std::same_as<Value, boost::json::value> && std::is_arithmetic_v<T>
void tag_invoke(boost::json::value_from_tag const&, Value& out, field<T, K...> const& f) {
    out = f.get();
}

template <class Value, class T, class... K>
requires std::same_as<Value, boost::json::value> && std::is_arithmetic_v<T> field<T, K...>
tag_invoke(boost::json::value_to_tag<field<T, K...>> const&, Value const& in) {
    if constexpr (std::is_same_v<T, bool>)
        return in.as_bool();
    else
        return in.template to_number<T>();
}

template <class T>
inline constexpr bool is_field = false;
template <class T, class... K>
inline constexpr bool is_field<field<T, K...>> = true;

// The plain object a member holds: the T of a field<T, ...>, or the member itself.
template <class M>
constexpr auto& underlying(M& m) noexcept {
    if constexpr (is_field<std::remove_const_t<M>>)
        return m.get();
    else
        return m;
}

template <fixed_string Value>
struct tag {
    static constexpr std::string_view value = Value.view();
    friend constexpr bool operator==(tag, tag) noexcept { return true; }
};

} // namespace agentrt
