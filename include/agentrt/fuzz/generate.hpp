// agentrt/fuzz/generate.hpp — RapidCheck generators of valid arguments, derived from types.
//
//     rc::check([](send_args const& a) { ... });             // rc::Arbitrary<send_args> is derived
//     rc::Gen<boost::json::value> g = agentrt::fuzz::valid_json(agentrt::type_info_of<send_args>());
//     auto values = agentrt::fuzz::sample(g, 100, /*seed=*/7); // same seed, same values
//
// Generation runs over the type's schema nodes (compiled_schema.hpp) in compiled code: the template part only decodes
// the generated JSON into the struct, so a consumer's build pays for little. Every constraint of the catalogue holds
// for every value; values shrink toward the smallest (members absent, numbers near zero, strings short and plain, first
// alternatives).
#pragma once

#include <agentrt/catalog/compiled_schema.hpp>
#include <agentrt/catalog/decode.hpp>
#include <agentrt/catalog/reflect.hpp>
#include <agentrt/fuzz/options.hpp>

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <rapidcheck.h>

#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace agentrt::fuzz {

// Valid JSON documents for schema nodes (lowered from a type, or compiled from a JSON Schema).
// Throws std::invalid_argument when the nodes hold a pattern outside the supported subset.
rc::Gen<boost::json::value> valid_json(compiled_schema const& s, options const& opts = {});

inline rc::Gen<boost::json::value> valid_json(type_info const& type, options const& opts = {}) {
    return valid_json(lowered(type), opts);
}

// Valid values of a reflected argument type: generated as JSON, decoded by the catalogue.
template <class T>
rc::Gen<T> valid(options const& opts = {}) {
    return rc::gen::map(valid_json(type_info_of<T>(), opts), [](boost::json::value const& document) {
        auto decoded = decode<T>(document);
        if (!decoded)
            throw std::logic_error("agentrt: the decoder refused a generated value: " + decoded.error().to_string());
        return std::move(*decoded);
    });
}

// `count` values of a generator, the same for the same seed; sizes cycle from 0 up to `max_size`.
template <class T>
std::vector<T> sample(rc::Gen<T> const& gen, std::size_t count, std::uint64_t seed, int max_size = 100) {
    std::vector<T> out;
    out.reserve(count);
    rc::Random random(seed);
    for (std::size_t i = 0; i < count; ++i)
        out.push_back(gen(random.split(), int(i % std::size_t(max_size + 1))).value());
    return out;
}

namespace detail {
template <class T>
concept argument_struct = boost::hana::Struct<T>::value && !is_field<T>;
} // namespace detail

} // namespace agentrt::fuzz

namespace rc {

template <agentrt::fuzz::detail::argument_struct T>
struct Arbitrary<T> {
    static Gen<T> arbitrary() { return agentrt::fuzz::valid<T>(); }
};

namespace detail {
// Counterexamples of reflected structs print as their JSON.
template <agentrt::fuzz::detail::argument_struct T>
struct ShowDefault<T, false, false> {
    static void show(T const& value, std::ostream& os) { os << boost::json::serialize(agentrt::to_json(value)); }
};
} // namespace detail

} // namespace rc
