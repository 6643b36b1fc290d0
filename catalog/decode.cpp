#include <agentrt/catalog/decode.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/schema.hpp>

#include "internal/bounds.hpp"
#include "internal/numbers.hpp"
#include "internal/regex.hpp"
#include "internal/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <string>

namespace agentrt {
namespace {

namespace json = boost::json;

std::string json_type_name(json::value const& v) {
    switch (v.kind()) {
    case json::kind::null:
        return "null";
    case json::kind::bool_:
        return "boolean";
    case json::kind::int64:
    case json::kind::uint64:
        return "integer";
    case json::kind::double_:
        return "number";
    case json::kind::string:
        return "string";
    case json::kind::array:
        return "array";
    case json::kind::object:
        return "object";
    }
    return "value";
}

using internal::compare_bound;
using internal::exact;
using internal::is_multiple_of;

class decoder {
public:
    std::vector<violation> take() { return std::move(found_); }

    void walk(type_info const& t, json::value const& v, void* target) {
        switch (t.kind) {
        case type_kind::boolean:
            if (!v.is_bool())
                return wrong_type("boolean", v);
            if (target)
                *static_cast<bool*>(target) = v.get_bool();
            return;
        case type_kind::integer:
            return integer(t, v, target);
        case type_kind::number:
            return number(t, v, target);
        case type_kind::string:
            return string(t, v, target);
        case type_kind::enumeration:
            return enumeration(t, v, target);
        case type_kind::tag:
            if (!v.is_string() || v.get_string() != t.constant)
                add("const", json_string_literal(t.constant) + ", got " + internal::display(v));
            return;
        case type_kind::object:
            return object(t, v, target);
        case type_kind::array:
            return array(t, v, target);
        case type_kind::map:
            return map(t, v, target);
        case type_kind::optional:
            return walk(*t.element, v, target ? t.ops.emplace(target) : nullptr);
        case type_kind::variant:
            return variant(t, v, target);
        }
    }

private:
    void add(std::string_view keyword, std::string detail) {
        found_.push_back(violation{pointer(), std::string(keyword), std::move(detail)});
    }

    // The JSON Pointer is spelled only when a violation needs it: valid documents, the common
    // case, never pay for it.
    std::string pointer() const {
        std::string out;
        for (auto const& token : path_) {
            out += '/';
            out += token.is_index ? std::to_string(token.index) : internal::escape_pointer_token(token.name);
        }
        return out;
    }
    void wrong_type(std::string_view expected, json::value const& v) {
        add("type", std::string(expected) + ", got " + json_type_name(v) + " " + internal::display(v));
    }

    // Runs f with the pointer extended by one token.
    template <class F>
    void at(std::string_view name, F&& f) {
        path_.push_back({name, 0, false});
        f();
        path_.pop_back();
    }
    template <class F>
    void at(std::size_t index, F&& f) {
        path_.push_back({{}, index, true});
        f();
        path_.pop_back();
    }

    bool numeric_keywords(constraints const& k, json::value const& v) {
        std::size_t before = found_.size();
        auto shown = [&](decimal const& d) { return ordered_json(to_json(d)) + ", got " + internal::display(v); };
        if (k.minimum && compare_bound(v, *k.minimum) < 0)
            add("minimum", shown(*k.minimum));
        if (k.exclusive_minimum && compare_bound(v, *k.exclusive_minimum) <= 0)
            add("exclusiveMinimum", shown(*k.exclusive_minimum));
        if (k.maximum && compare_bound(v, *k.maximum) > 0)
            add("maximum", shown(*k.maximum));
        if (k.exclusive_maximum && compare_bound(v, *k.exclusive_maximum) >= 0)
            add("exclusiveMaximum", shown(*k.exclusive_maximum));
        if (k.multiple_of && !is_multiple_of(v, *k.multiple_of))
            add("multipleOf", shown(*k.multiple_of));
        return found_.size() == before;
    }

    void integer(type_info const& t, json::value const& v, void* target) {
        bool integral =
            v.is_int64() || v.is_uint64() || (v.is_double() && v.get_double() == std::trunc(v.get_double()));
        if (!integral)
            return wrong_type("integer", v);
        if (v.is_double())
            return integral_double(t, v.get_double(), target);
        if (!numeric_keywords(t.keywords, v) || !target)
            return;
        if (t.is_signed)
            store_signed(target, t.size, v.is_int64() ? v.get_int64() : std::int64_t(v.get_uint64()));
        else
            store_unsigned(target, t.size, v.is_uint64() ? v.get_uint64() : std::uint64_t(v.get_int64()));
    }

    // A double with no fraction: built in code (3.0), or read from an integer literal beyond 64 bits
    // (the boundary refuses a literal with a fraction that a double would lose). Inside 64 bits it is
    // that integer exactly; outside, it breaks the bound of the member's C++ type, which the keywords
    // always carry.
    void integral_double(type_info const& t, double d, void* target) {
        constexpr double two_63 = 9223372036854775808.0, two_64 = 18446744073709551616.0;
        auto beyond = [&](std::string_view keyword, std::optional<decimal> const& bound) {
            add(keyword,
                (bound ? ordered_json(to_json(*bound)) : "64 bits") + ", got " + internal::display(json::value(d)));
        };
        if (d < -two_63)
            return beyond("minimum", t.keywords.minimum);
        if (d >= two_64)
            return beyond("maximum", t.keywords.maximum);
        json::value exact = d < two_63 ? json::value(std::int64_t(d)) : json::value(std::uint64_t(d));
        integer(t, exact, target);
    }

    static void store_signed(void* target, std::size_t size, std::int64_t value) {
        switch (size) {
        case 1:
            *static_cast<std::int8_t*>(target) = std::int8_t(value);
            break;
        case 2:
            *static_cast<std::int16_t*>(target) = std::int16_t(value);
            break;
        case 4:
            *static_cast<std::int32_t*>(target) = std::int32_t(value);
            break;
        default:
            *static_cast<std::int64_t*>(target) = value;
        }
    }
    static void store_unsigned(void* target, std::size_t size, std::uint64_t value) {
        switch (size) {
        case 1:
            *static_cast<std::uint8_t*>(target) = std::uint8_t(value);
            break;
        case 2:
            *static_cast<std::uint16_t*>(target) = std::uint16_t(value);
            break;
        case 4:
            *static_cast<std::uint32_t*>(target) = std::uint32_t(value);
            break;
        default:
            *static_cast<std::uint64_t*>(target) = value;
        }
    }

    void number(type_info const& t, json::value const& v, void* target) {
        if (!v.is_number())
            return wrong_type("number", v);
        if (!numeric_keywords(t.keywords, v) || !target)
            return;
        double d = v.to_number<double>();
        if (t.size == 4)
            *static_cast<float*>(target) = static_cast<float>(d);
        else
            *static_cast<double*>(target) = d;
    }

    void string(type_info const& t, json::value const& v, void* target) {
        if (!v.is_string())
            return wrong_type("string", v);
        std::string_view s(v.get_string().data(), v.get_string().size());
        constraints const& k = t.keywords;
        if (k.min_length || k.max_length) {
            std::size_t length = internal::code_points(s);
            if (k.min_length && length < *k.min_length)
                add("minLength", std::to_string(*k.min_length) + ", got " + std::to_string(length));
            if (k.max_length && length > *k.max_length)
                add("maxLength", std::to_string(*k.max_length) + ", got " + std::to_string(length));
        }
        if (!k.pattern.empty() && !internal::pattern_matches(k.pattern, s))
            add("pattern", json_string_literal(k.pattern) + ", got " + internal::quoted(s));
        if (target)
            static_cast<std::string*>(target)->assign(s);
    }

    void enumeration(type_info const& t, json::value const& v, void* target) {
        if (v.is_string()) {
            for (auto const& e : t.enumerators) {
                if (v.get_string() != e.name)
                    continue;
                if (target) {
                    if (t.is_signed)
                        store_signed(target, t.size, e.value);
                    else
                        store_unsigned(target, t.size, std::uint64_t(e.value));
                }
                return;
            }
        }
        std::string names = "[";
        for (auto const& e : t.enumerators) {
            if (names.size() > 1)
                names += ',';
            names += json_string_literal(e.name);
        }
        add("enum", names + "], got " + internal::display(v));
    }

    void object(type_info const& t, json::value const& v, void* target) {
        if (!v.is_object())
            return wrong_type("object", v);
        auto const& o = v.get_object();
        std::size_t present = 0;
        for (auto const& m : t.members) {
            auto const* found = o.if_contains(m.name);
            if (!found) {
                if (m.required)
                    at(m.name, [&] { add("required", "member is missing"); });
                continue;
            }
            ++present;
            at(m.name, [&] { walk(*m.type, *found, target ? m.get(target) : nullptr); });
        }
        if (present == o.size()) // keys are unique (the boundary saw to it): none is unknown
            return;
        for (auto const& kv : o) {
            std::string_view key(kv.key().data(), kv.key().size());
            bool known = false;
            for (auto const& m : t.members)
                known = known || m.name == key;
            if (!known)
                at(key, [&] { add("additionalProperties", "unknown member, got " + internal::display(kv.value())); });
        }
    }

    void array(type_info const& t, json::value const& v, void* target) {
        if (!v.is_array())
            return wrong_type("array", v);
        auto const& a = v.get_array();
        constraints const& k = t.keywords;
        if (k.min_items && a.size() < *k.min_items)
            add("minItems", std::to_string(*k.min_items) + ", got " + std::to_string(a.size()));
        if (k.max_items && a.size() > *k.max_items)
            add("maxItems", std::to_string(*k.max_items) + ", got " + std::to_string(a.size()));
        if (k.unique_items)
            unique(a);
        for (std::size_t i = 0; i < a.size(); ++i)
            at(i, [&] {
                if (!t.ops.push_bool)
                    return walk(*t.element, a[i], target ? t.ops.append(target) : nullptr);
                bool b = false; // std::vector<bool>: its elements have no address
                walk(*t.element, a[i], target ? &b : nullptr);
                if (target && v.is_array() && a[i].is_bool())
                    t.ops.push_bool(target, b);
            });
    }

    void unique(json::array const& a) {
        auto repeated = [&](std::size_t i) {
            add("uniqueItems",
                "item " + std::to_string(i) + " repeats an earlier item, got " + internal::display(a[i]));
        };
        // Ordered sets, not hashed ones: the standard string hash has no seed, so a model could send
        // items that all collide and make the check quadratic.
        if (std::all_of(a.begin(), a.end(), [](json::value const& item) { return item.is_string(); })) {
            std::set<std::string_view> strings;
            for (std::size_t i = 0; i < a.size(); ++i)
                if (!strings.insert(std::string_view(a[i].get_string())).second)
                    return repeated(i);
            return;
        }
        // Canonical text is equal when the values are equal under JSON Schema (integers spelled as
        // integers, members sorted), for every number the boundary reads below 2^63.
        std::set<std::string> seen;
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (!seen.insert(canonical_json(a[i])).second)
                return repeated(i);
        }
    }

    void map(type_info const& t, json::value const& v, void* target) {
        if (!v.is_object())
            return wrong_type("object", v);
        for (auto const& kv : v.get_object()) {
            std::string_view key(kv.key().data(), kv.key().size());
            at(key, [&] { walk(*t.element, kv.value(), target ? t.ops.insert(target, key) : nullptr); });
        }
    }

    static bool tags_match(type_info const& alternative, json::object const& o) {
        for (auto const& m : alternative.members) {
            if (m.type->kind != type_kind::tag)
                continue;
            auto const* found = o.if_contains(m.name);
            if (!found || !found->is_string() || found->get_string() != m.type->constant)
                return false;
        }
        return true;
    }

    void variant(type_info const& t, json::value const& v, void* target) {
        if (!v.is_object())
            return wrong_type("object", v);
        auto const& o = v.get_object();
        for (std::size_t i = 0; i < t.alternatives.size(); ++i) {
            if (!tags_match(*t.alternatives[i], o))
                continue;
            return walk(*t.alternatives[i], v, target ? t.ops.emplace_alternative(target, i) : nullptr);
        }
        std::string expected;
        for (auto const* alternative : t.alternatives) {
            std::string tags;
            for (auto const& m : alternative->members)
                if (m.type->kind == type_kind::tag)
                    tags += (tags.empty() ? "" : ", ") + json_string_literal(m.name) + ":" +
                            json_string_literal(m.type->constant);
            expected += (expected.empty() ? "{" : " or {") + tags + "}";
        }
        add("oneOf", "no alternative has the tags of this object, expected " + expected);
    }

    struct path_token {
        std::string_view name;
        std::size_t index;
        bool is_index;
    };
    std::vector<path_token> path_;
    std::vector<violation> found_;
};

} // namespace

std::vector<violation> decode_into(type_info const& type, json::value const& document, void* target) {
    decoder d;
    d.walk(type, document, target);
    return d.take();
}

error invalid_arguments(std::vector<violation> violations) {
    error e;
    e.code = errc::invalid_arguments;
    e.message = "the arguments break " + std::to_string(violations.size()) +
                (violations.size() == 1 ? " rule of the schema" : " rules of the schema");
    e.violations = std::move(violations);
    return e;
}

} // namespace agentrt
