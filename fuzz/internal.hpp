// Shared pieces of the fuzz library: scalar generators and the pattern walker.
#pragma once

#include <agentrt/catalog/compiled_schema.hpp>
#include <agentrt/catalog/error.hpp>
#include <agentrt/fuzz/options.hpp>

#include <boost/json/value.hpp>
#include <rapidcheck.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::fuzz::detail {

// One of `items`, shrinking toward the first (RapidCheck's elementOf does not shrink).
template <class T>
rc::Gen<T> pick(std::vector<T> items) {
    if (items.empty())
        throw std::invalid_argument("agentrt: nothing to pick from");
    std::size_t n = items.size();
    return rc::gen::map(rc::gen::inRange<std::size_t>(0, n),
                        [items = std::move(items)](std::size_t i) { return items[i]; });
}

// One of `choices` by weight, shrinking toward the first (RapidCheck's weightedOneOf does not).
template <class T>
rc::Gen<T> weighted(std::vector<std::pair<std::size_t, rc::Gen<T>>> choices) {
    std::vector<std::size_t> slots;
    std::vector<rc::Gen<T>> gens;
    for (auto& [weight, gen] : choices) {
        for (std::size_t w = 0; w < weight; ++w)
            slots.push_back(gens.size());
        gens.push_back(std::move(gen));
    }
    return rc::gen::mapcat(pick(std::move(slots)), [gens = std::move(gens)](std::size_t i) { return gens[i]; });
}

// Lists of low to high items (both included); the count shrinks toward low, then the items.
template <class T>
rc::Gen<std::vector<T>> list_of(rc::Gen<T> item, std::size_t low, std::size_t high) {
    if (high <= low)
        return rc::gen::container<std::vector<T>>(low, std::move(item));
    return rc::gen::mapcat(rc::gen::inRange<std::size_t>(low, high + 1), [item = std::move(item)](std::size_t n) {
        return rc::gen::container<std::vector<T>>(n, item);
    });
}

// Numbers that satisfy the node's bounds and multipleOf, exactly as the decoder reads them.
rc::Gen<boost::json::value> number_gen(schema_node const& node, bool integer);

// Strings of the node's length in code points, matching its pattern when it has one.
rc::Gen<std::string> string_gen(schema_node const& node, options const& opts);

// Code points the generators draw from beyond plain letters: quotes, backslashes, controls,
// non-ASCII of two, three and four bytes.
std::vector<char32_t> const& special_alphabet();
void append_utf8(std::string& out, char32_t c);

// A string matching `pattern` (inside the subset of pattern.hpp), or throws std::invalid_argument
// naming what the pattern uses outside it.
rc::Gen<std::string> pattern_gen(std::string_view pattern, options const& opts);

} // namespace agentrt::fuzz::detail

namespace agentrt::fuzz::detail {

// Runs a property quietly with the seed and case count of `opts`: empty when it held, else
// RapidCheck's message with the shrunk counterexample.
std::optional<std::string> run_property(std::string const& id, rc::detail::Property const& property,
                                        options const& opts);

} // namespace agentrt::fuzz::detail
