// The validator of shapes compiled from run-time schemas: the same rules as the typed decoder,
// with the same pointers, keywords and detail text.
#include "internal.hpp"

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/schema.hpp>

#include "internal/bounds.hpp"
#include "internal/numbers.hpp"
#include "internal/regex.hpp"
#include "internal/text.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace agentrt::fuzz::detail {

std::string json_type_name(boost::json::value const& v) {
    switch (v.kind()) {
    case boost::json::kind::null:
        return "null";
    case boost::json::kind::bool_:
        return "boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
        return "integer";
    case boost::json::kind::double_:
        return "number";
    case boost::json::kind::string:
        return "string";
    case boost::json::kind::array:
        return "array";
    case boost::json::kind::object:
        return "object";
    }
    return "value";
}

namespace {

namespace json = boost::json;

using internal::compare_bound;
using internal::exact;

// Equality as JSON Schema has it: numbers by value, objects regardless of member order.
bool json_equal(json::value const& a, json::value const& b) {
    if (a.is_number() && b.is_number())
        return internal::compare(exact(a), exact(b)) == 0;
    if (a.kind() != b.kind())
        return false;
    if (a.is_array()) {
        auto const &x = a.get_array(), &y = b.get_array();
        if (x.size() != y.size())
            return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!json_equal(x[i], y[i]))
                return false;
        return true;
    }
    if (a.is_object()) {
        auto const &x = a.get_object(), &y = b.get_object();
        if (x.size() != y.size())
            return false;
        for (auto const& kv : x) {
            auto const* other = y.if_contains(kv.key());
            if (!other || !json_equal(kv.value(), *other))
                return false;
        }
        return true;
    }
    return a == b;
}

// A text two values share exactly when json_equal calls them equal: each number spelled from its
// exact decimal value (the value json_equal compares), object members sorted by key.
void append_equality_key(std::string& out, json::value const& v) {
    switch (v.kind()) {
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: {
        internal::decimal_digits d = exact(v);
        if (d.digits.empty() || d.digits == "0") {
            out += '0';
            break;
        }
        if (d.negative)
            out += '-';
        out += d.digits;
        out += 'e';
        out += std::to_string(d.exponent);
        break;
    }
    case json::kind::string:
        append_json_string(out, v.get_string());
        break;
    case json::kind::array:
        out += '[';
        for (auto const& e : v.get_array()) {
            append_equality_key(out, e);
            out += ',';
        }
        out += ']';
        break;
    case json::kind::object: {
        std::vector<json::key_value_pair const*> members;
        for (auto const& kv : v.get_object())
            members.push_back(&kv);
        std::sort(members.begin(), members.end(), [](auto const* a, auto const* b) { return a->key() < b->key(); });
        out += '{';
        for (auto const* kv : members) {
            append_json_string(out, kv->key());
            out += ':';
            append_equality_key(out, kv->value());
            out += ',';
        }
        out += '}';
        break;
    }
    default:
        out += canonical_json(v); // null, true, false
    }
}

bool is_integral(json::value const& v) {
    return v.is_int64() || v.is_uint64() || (v.is_double() && v.get_double() == std::trunc(v.get_double()));
}

class validator {
public:
    std::vector<violation> take() { return std::move(found_); }

    void walk(shape_node const& raw, json::value const& v) {
        shape_node const& n = resolve(raw);
        if (!type_matches(n, v))
            return wrong_type(n, v);
        if (n.has_enum)
            enumeration(n, v);
        if (v.is_number())
            numeric(n.keywords, v);
        else if (v.is_string())
            string(n, v.get_string());
        else if (v.is_array())
            array(n, v.get_array());
        else if (v.is_object())
            object(n, v.get_object());
        for (auto const* part : n.all_of)
            walk(*part, v);
        if (!n.any_of.empty())
            any_of(n, v);
        if (!n.one_of.empty())
            one_of(n, v);
    }

private:
    void add(std::string_view keyword, std::string detail) {
        found_.push_back(violation{pointer_, std::string(keyword), std::move(detail)});
    }

    template <class F>
    void at(std::string_view token, F&& f) {
        auto size = pointer_.size();
        pointer_ += '/';
        pointer_ += internal::escape_pointer_token(token);
        f();
        pointer_.resize(size);
    }

    static bool type_matches(shape_node const& n, json::value const& v) {
        if (n.types == json_type::any)
            return true;
        switch (v.kind()) {
        case json::kind::null:
            return n.types & json_type::null;
        case json::kind::bool_:
            return n.types & json_type::boolean;
        case json::kind::string:
            return n.types & json_type::string;
        case json::kind::array:
            return n.types & json_type::array;
        case json::kind::object:
            return n.types & json_type::object;
        default:
            return (n.types & json_type::number) || ((n.types & json_type::integer) && is_integral(v));
        }
    }

    void wrong_type(shape_node const& n, json::value const& v) {
        std::string expected;
        static constexpr std::pair<std::uint8_t, char const*> names[] = {
            {json_type::null, "null"},     {json_type::boolean, "boolean"}, {json_type::integer, "integer"},
            {json_type::number, "number"}, {json_type::string, "string"},   {json_type::array, "array"},
            {json_type::object, "object"}};
        for (auto const& [bit, name] : names)
            if (n.types & bit)
                expected += (expected.empty() ? "" : " or ") + std::string(name);
        add("type", expected + ", got " + json_type_name(v) + " " + internal::display(v));
    }

    void enumeration(shape_node const& n, json::value const& v) {
        for (auto const& e : n.enumeration)
            if (json_equal(e, v))
                return;
        if (n.is_const)
            return add("const", ordered_json(n.enumeration.front()) + ", got " + internal::display(v));
        std::string names = "[";
        for (auto const& e : n.enumeration) {
            if (names.size() > 1)
                names += ',';
            names += ordered_json(e);
        }
        add("enum", names + "], got " + internal::display(v));
    }

    void numeric(constraints const& k, json::value const& v) {
        auto shown = [&](decimal const& d) { return ordered_json(to_json(d)) + ", got " + internal::display(v); };
        if (k.minimum && compare_bound(v, *k.minimum) < 0)
            add("minimum", shown(*k.minimum));
        if (k.exclusive_minimum && compare_bound(v, *k.exclusive_minimum) <= 0)
            add("exclusiveMinimum", shown(*k.exclusive_minimum));
        if (k.maximum && compare_bound(v, *k.maximum) > 0)
            add("maximum", shown(*k.maximum));
        if (k.exclusive_maximum && compare_bound(v, *k.exclusive_maximum) >= 0)
            add("exclusiveMaximum", shown(*k.exclusive_maximum));
        if (k.multiple_of && !internal::is_multiple_of(v, *k.multiple_of))
            add("multipleOf", shown(*k.multiple_of));
    }

    void string(shape_node const& n, json::string const& text) {
        std::string_view s(text.data(), text.size());
        constraints const& k = n.keywords;
        if (k.min_length || k.max_length) {
            std::size_t length = internal::code_points(s);
            if (k.min_length && length < *k.min_length)
                add("minLength", std::to_string(*k.min_length) + ", got " + std::to_string(length));
            if (k.max_length && length > *k.max_length)
                add("maxLength", std::to_string(*k.max_length) + ", got " + std::to_string(length));
        }
        if (!n.pattern.empty() && !internal::pattern_matches(n.pattern, s))
            add("pattern", json_string_literal(n.pattern) + ", got " + internal::quoted(s));
    }

    void array(shape_node const& n, json::array const& a) {
        constraints const& k = n.keywords;
        if (k.min_items && a.size() < *k.min_items)
            add("minItems", std::to_string(*k.min_items) + ", got " + std::to_string(a.size()));
        if (k.max_items && a.size() > *k.max_items)
            add("maxItems", std::to_string(*k.max_items) + ", got " + std::to_string(a.size()));
        if (k.unique_items)
            unique(a);
        for (std::size_t i = 0; i < a.size(); ++i) {
            shape_node const* item = i < n.prefix_items.size() ? n.prefix_items[i] : n.items;
            if (item)
                at(std::to_string(i), [&] { walk(*item, a[i]); });
            else if (n.closed_items)
                at(std::to_string(i), [&] {
                    add("items", "no item is allowed after the " + std::to_string(n.prefix_items.size()) +
                                     " of prefixItems, got " + internal::display(a[i]));
                });
        }
    }

    // Comparing every pair is quadratic in the items of model-sent input: each item's equality key
    // goes into an ordered set instead, whose worst case no chosen items can degrade.
    void unique(json::array const& a) {
        std::set<std::string, std::less<>> seen;
        std::string key;
        for (std::size_t i = 0; i < a.size(); ++i) {
            key.clear();
            append_equality_key(key, a[i]);
            if (!seen.insert(key).second)
                return add("uniqueItems",
                           "item " + std::to_string(i) + " repeats an earlier item, got " + internal::display(a[i]));
        }
    }

    void object(shape_node const& n, json::object const& o) {
        for (auto const& p : n.properties) {
            auto const* found = o.if_contains(p.name);
            if (!found) {
                if (p.required)
                    at(p.name, [&] { add("required", "member is missing"); });
                continue;
            }
            at(p.name, [&] { walk(*p.node, *found); });
        }
        for (auto const& kv : o) {
            std::string_view key(kv.key().data(), kv.key().size());
            bool named = false;
            for (auto const& p : n.properties)
                named = named || p.name == key;
            if (named || n.additional == extra_members::allowed)
                continue;
            if (n.additional == extra_members::forbidden)
                at(key, [&] { add("additionalProperties", "unknown member, got " + internal::display(kv.value())); });
            else
                at(key, [&] { walk(*n.additional_schema, kv.value()); });
        }
        if (n.min_properties && o.size() < *n.min_properties)
            add("minProperties", std::to_string(*n.min_properties) + ", got " + std::to_string(o.size()));
        if (n.max_properties && o.size() > *n.max_properties)
            add("maxProperties", std::to_string(*n.max_properties) + ", got " + std::to_string(o.size()));
    }

    static std::vector<violation> of(shape_node const& n, json::value const& v, std::string const& pointer) {
        validator inner;
        inner.pointer_ = pointer;
        inner.walk(n, v);
        return inner.take();
    }

    void any_of(shape_node const& n, json::value const& v) {
        for (auto const* branch : n.any_of)
            if (of(*branch, v, pointer_).empty())
                return;
        add("anyOf", "no alternative matches, got " + internal::display(v));
    }

    // Whether every const-valued member of an object branch has its value in `v`: the branch a
    // tagged union's value is meant for.
    static bool tags_match(shape_node const& branch, json::value const& v) {
        shape_node const& b = resolve(branch);
        if (!v.is_object())
            return false;
        bool any = false;
        for (auto const& p : b.properties) {
            shape_node const& pn = resolve(*p.node);
            if (!pn.is_const)
                continue;
            any = true;
            auto const* found = v.get_object().if_contains(p.name);
            if (!found || !json_equal(*found, pn.enumeration.front()))
                return false;
        }
        return any;
    }

    void one_of(shape_node const& n, json::value const& v) {
        std::size_t matching = 0;
        shape_node const* tagged = nullptr;
        std::size_t tagged_count = 0;
        for (auto const* branch : n.one_of) {
            if (of(*branch, v, pointer_).empty())
                ++matching;
            if (tags_match(*branch, v))
                tagged = branch, ++tagged_count;
        }
        if (matching == 1)
            return;
        if (matching == 0 && tagged_count == 1)
            return walk(*tagged, v);
        add("oneOf", matching == 0 ? "no alternative matches, got " + internal::display(v)
                                   : std::to_string(matching) + " alternatives match, got " + internal::display(v));
    }

    std::string pointer_;
    std::vector<violation> found_;
};

} // namespace

std::vector<violation> validate(shape_node const& node, boost::json::value const& value) {
    validator v;
    v.walk(node, value);
    return v.take();
}

} // namespace agentrt::fuzz::detail
