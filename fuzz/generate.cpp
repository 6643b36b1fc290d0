#include <agentrt/fuzz/generate.hpp>

#include <agentrt/catalog/canonical_json.hpp>

#include <agentrt/catalog/decode.hpp>

#include "internal.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <optional>
#include <set>

namespace agentrt::fuzz {
namespace {

namespace json = boost::json;
using value_gen = rc::Gen<json::value>;
using maybe = std::optional<json::value>;

template <class T>
rc::Gen<std::vector<T>> all_of(std::vector<rc::Gen<T>> const& parts) {
    rc::Gen<std::vector<T>> out = rc::gen::just(std::vector<T>());
    for (auto const& part : parts)
        out = rc::gen::map(rc::gen::pair(out, part), [](std::pair<std::vector<T>, T> p) {
            p.first.push_back(std::move(p.second));
            return std::move(p.first);
        });
    return out;
}

value_gen choose(std::vector<value_gen> choices) {
    if (choices.size() == 1)
        return choices.front();
    return rc::gen::mapcat(rc::gen::inRange<std::size_t>(0, choices.size()),
                           [choices](std::size_t i) { return choices[i]; });
}

class builder {
public:
    explicit builder(options const& opts) : opts_(opts) {}

    value_gen node(schema_node const& raw, std::size_t depth) {
        if (raw.ref) // built when drawn: a recursive schema would otherwise build without end
            return rc::gen::lazy(
                [opts = opts_, target = raw.ref, depth] { return builder(opts).node(*target, depth + 1); });
        schema_node const& n = raw;
        value_gen g = unfiltered(n, depth);
        // Run-time schemas can combine keywords no construction satisfies alone (anyOf, allOf, an
        // enum beside bounds): keep what the validator accepts. Typed nodes hold by construction.
        if (!n.typed() && needs_filter(n))
            g = rc::gen::suchThat(g, [&n](json::value const& v) { return decode_into(n, v, nullptr).empty(); });
        return g;
    }

private:
    static bool needs_filter(schema_node const& n) {
        return n.has_enum || !n.one_of.empty() || !n.any_of.empty() || !n.all_of.empty() || n.max_properties ||
               (n.keywords.unique_items && !n.prefix_items.empty()) || n.ref;
    }

    value_gen unfiltered(schema_node const& n, std::size_t depth) {
        if (n.has_enum)
            return detail::pick(n.enumeration);
        if (!n.one_of.empty())
            return branches(n.one_of, depth);
        if (!n.any_of.empty())
            return branches(n.any_of, depth);
        if (!n.all_of.empty()) {
            // Generate from the parts' keywords merged (bounds intersected, properties joined); the
            // filter in node() checks the rest.
            auto merged = std::make_shared<schema_node>(n);
            merged->all_of.clear();
            for (auto const* part : n.all_of)
                merge_into(*merged, *part);
            return rc::gen::map(unfiltered(*merged, depth), [merged](json::value v) { return v; });
        }
        std::vector<value_gen> by_type;
        std::uint8_t types = n.types == json_type::any ? std::uint8_t(0x7f) : n.types;
        if (types & json_type::null)
            by_type.push_back(rc::gen::just(json::value(nullptr)));
        if (types & json_type::boolean)
            by_type.push_back(rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return json::value(b); }));
        if (types & json_type::integer)
            by_type.push_back(detail::number_gen(n, true));
        if (types & json_type::number)
            by_type.push_back(detail::number_gen(n, false));
        if (types & json_type::string)
            by_type.push_back(rc::gen::map(detail::string_gen(n, opts_),
                                           [](std::string const& s) { return json::value(json::string(s)); }));
        if (types & json_type::array)
            by_type.push_back(array(n, depth));
        if (types & json_type::object)
            by_type.push_back(object(n, depth));
        return choose(std::move(by_type));
    }

    static void merge_into(schema_node& a, schema_node const& raw) {
        schema_node const& b = resolve(raw);
        if (a.types == json_type::any)
            a.types = b.types;
        else if (b.types != json_type::any) {
            std::uint8_t both = a.types & b.types;
            if (((a.types & json_type::number) && (b.types & json_type::integer)) ||
                ((b.types & json_type::number) && (a.types & json_type::integer)))
                both |= json_type::integer;
            a.types = both;
        }
        constraints& k = a.keywords;
        constraints const& o = b.keywords;
        auto higher = [](std::optional<decimal>& x, std::optional<decimal> const& y) {
            if (y && (!x || compare(*y, *x) > 0))
                x = y;
        };
        auto lower = [](std::optional<decimal>& x, std::optional<decimal> const& y) {
            if (y && (!x || compare(*y, *x) < 0))
                x = y;
        };
        higher(k.minimum, o.minimum);
        higher(k.exclusive_minimum, o.exclusive_minimum);
        lower(k.maximum, o.maximum);
        lower(k.exclusive_maximum, o.exclusive_maximum);
        if (!k.multiple_of)
            k.multiple_of = o.multiple_of;
        auto most = [](std::optional<std::size_t>& x, std::optional<std::size_t> const& y) {
            if (y && (!x || *y > *x))
                x = y;
        };
        auto least = [](std::optional<std::size_t>& x, std::optional<std::size_t> const& y) {
            if (y && (!x || *y < *x))
                x = y;
        };
        most(k.min_length, o.min_length);
        least(k.max_length, o.max_length);
        most(k.min_items, o.min_items);
        least(k.max_items, o.max_items);
        most(a.min_properties, b.min_properties);
        least(a.max_properties, b.max_properties);
        k.unique_items = k.unique_items || o.unique_items;
        if (a.pattern.empty())
            a.pattern = b.pattern;
        if (!a.has_enum && b.has_enum)
            a.has_enum = true, a.is_const = b.is_const, a.enumeration = b.enumeration;
        for (auto const& p : b.properties) {
            bool known = false;
            for (auto& q : a.properties)
                if (q.name == p.name)
                    known = true, q.required = q.required || p.required;
            if (!known)
                a.properties.push_back(p);
        }
        if (a.additional == extra_members::allowed) {
            a.additional = b.additional;
            a.additional_schema = b.additional_schema;
        }
        if (!a.items)
            a.items = b.items;
        if (a.prefix_items.empty())
            a.prefix_items = b.prefix_items;
        a.closed_items = a.closed_items || b.closed_items;
        if (a.one_of.empty())
            a.one_of = b.one_of;
        if (a.any_of.empty())
            a.any_of = b.any_of;
        for (auto const* part : b.all_of)
            merge_into(a, *part);
    }

    value_gen branches(std::vector<schema_node const*> const& alternatives, std::size_t depth) {
        std::vector<value_gen> choices;
        for (auto const* a : alternatives)
            choices.push_back(node(*a, depth));
        return choose(std::move(choices));
    }

    // A value where the schema allows anything: scalars and flat lists of them, which is enough to
    // exercise an open schema without growing without bound.
    value_gen any(std::size_t depth) {
        static schema_node const scalar = [] {
            schema_node n;
            n.types = json_type::null | json_type::boolean | json_type::integer | json_type::string;
            return n;
        }();
        value_gen one = unfiltered(scalar, depth);
        if (depth >= opts_.max_depth)
            return one;
        auto flat = rc::gen::map(detail::list_of(one, 0, 3), [](std::vector<json::value> const& items) {
            return json::value(json::array(items.begin(), items.end()));
        });
        return detail::weighted<json::value>({{4, one}, {1, flat}});
    }

    value_gen array(schema_node const& n, std::size_t depth) {
        constraints const& k = n.keywords;
        std::vector<value_gen> prefix;
        for (auto const* p : n.prefix_items)
            prefix.push_back(node(*p, depth + 1));
        std::size_t low = k.min_items.value_or(0);
        std::size_t high = depth >= opts_.max_depth ? low : std::max(low, opts_.max_items);
        if (k.max_items)
            high = std::min(high, *k.max_items);
        if (n.closed_items)
            high = std::min(high, prefix.size());
        if (high <= prefix.size() && low <= prefix.size()) // no item drawn: none built (recursion ends here)
            return rc::gen::map(all_of(prefix), [high](std::vector<json::value> const& p) {
                return json::value(json::array(p.begin(), p.begin() + std::ptrdiff_t(std::min(high, p.size()))));
            });
        value_gen item = n.items ? node(*n.items, depth + 1) : any(depth);
        std::size_t fixed = low > prefix.size() ? low - prefix.size() : 0;
        std::size_t room = high > prefix.size() ? high - prefix.size() : 0;
        bool unique = k.unique_items;
        auto canonical = [](json::value const& v) { return canonical_json(v); };
        auto first = unique ? rc::gen::uniqueBy<std::vector<json::value>>(fixed, item, canonical)
                            : rc::gen::container<std::vector<json::value>>(fixed, item);
        auto rest = detail::list_of(item, 0, room > fixed ? room - fixed : 0);
        using parts =
            std::pair<std::vector<json::value>, std::pair<std::vector<json::value>, std::vector<json::value>>>;
        return rc::gen::map(rc::gen::pair(all_of(prefix), rc::gen::pair(first, rest)),
                            [unique, high, take_prefix = prefix.size()](parts const& p) {
                                json::array out;
                                std::set<std::string> seen;
                                auto push = [&](json::value const& v) {
                                    if (out.size() >= high || (unique && !seen.insert(canonical_json(v)).second))
                                        return;
                                    out.push_back(v);
                                };
                                for (std::size_t i = 0; i < take_prefix && i < high; ++i)
                                    push(p.first[i]);
                                for (auto const& v : p.second.first)
                                    push(v);
                                for (auto const& v : p.second.second)
                                    push(v);
                                return json::value(std::move(out));
                            });
    }

    value_gen object(schema_node const& n, std::size_t depth) {
        std::vector<rc::Gen<maybe>> members;
        std::vector<std::string> names;
        bool deep = depth >= opts_.max_depth;
        for (auto const& p : n.properties) {
            names.push_back(p.name);
            if (!p.required && deep) {
                members.push_back(rc::gen::just(maybe()));
                continue;
            }
            auto v = rc::gen::map(node(*p.node, depth + 1), [](json::value v) { return maybe(std::move(v)); });
            if (p.required)
                members.push_back(v);
            else // absent first, so that optional members shrink away
                members.push_back(detail::weighted<maybe>({{1, rc::gen::just(maybe())}, {1, v}}));
        }
        bool open = n.additional != extra_members::forbidden;
        value_gen extra_value =
            n.additional == extra_members::schema ? node(*n.additional_schema, depth + 1) : any(depth);
        std::size_t extra_min = 0;
        if (open && n.min_properties && *n.min_properties > names.size())
            extra_min = *n.min_properties - names.size();
        std::size_t extra_max = !open ? 0 : (deep ? extra_min : std::max(extra_min, opts_.max_items));
        if (n.additional == extra_members::allowed && !names.empty())
            extra_max = extra_min; // named members and an open rest: extras add noise, not coverage
        static schema_node const key_node{};
        using entry = std::pair<std::string, json::value>;
        auto extras = extra_max > extra_min
                          ? detail::list_of(rc::gen::pair(detail::string_gen(key_node, opts_), extra_value), 0,
                                            extra_max - extra_min)
                          : rc::gen::just(std::vector<entry>());
        auto padding = extra_min > 0 ? rc::gen::container<std::vector<json::value>>(extra_min, extra_value)
                                     : rc::gen::just(std::vector<json::value>());
        using rest = std::pair<std::vector<json::value>, std::vector<std::pair<std::string, json::value>>>;
        return rc::gen::map(rc::gen::pair(all_of(members), rc::gen::pair(padding, extras)),
                            [names, extra_max](std::pair<std::vector<maybe>, rest> const& p) {
                                json::object out;
                                for (std::size_t i = 0; i < names.size(); ++i)
                                    if (p.first[i])
                                        out.emplace(names[i], *p.first[i]);
                                auto named = [&](std::string_view key) {
                                    for (auto const& name : names)
                                        if (name == key)
                                            return true;
                                    return false;
                                };
                                std::size_t added = 0;
                                for (std::size_t i = 0; i < p.second.first.size(); ++i) {
                                    std::string key = "extra" + std::to_string(i);
                                    while (named(key) || out.contains(key))
                                        key += "_";
                                    out.emplace(key, p.second.first[i]);
                                    ++added;
                                }
                                for (auto const& [key, value] : p.second.second)
                                    if (added < extra_max && !named(key) && !out.contains(key))
                                        out.emplace(key, value), ++added;
                                return json::value(std::move(out));
                            });
    }

    options opts_;
};

} // namespace

rc::Gen<json::value> valid_json(compiled_schema const& s, options const& opts) {
    value_gen g = builder(opts).node(s.root(), 0);
    return rc::gen::map(g, [keep = s](json::value v) { return v; });
}

} // namespace agentrt::fuzz
