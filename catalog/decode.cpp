// The one decoder: validates a JSON document against schema nodes, lowered from a type or compiled
// from a run-time schema, and stores what it reads when the nodes were lowered from a type.
#include <agentrt/catalog/decode.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/schema.hpp>

#include "internal/bounds.hpp"
#include "internal/numbers.hpp"
#include "internal/regex.hpp"
#include "internal/text.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace agentrt {
namespace {

namespace json = boost::json;

using internal::compare_bound;
using internal::exact;
using internal::is_multiple_of;

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

bool is_integral(json::value const& v) {
    return v.is_int64() || v.is_uint64() || (v.is_double() && v.get_double() == std::trunc(v.get_double()));
}

// Equality as JSON Schema has it: numbers by value, objects regardless of member order.
bool json_equal(json::value const& a, json::value const& b) {
    if (a.is_string()) // enum members and tags, the common case
        return b.is_string() && a.get_string() == b.get_string();
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
// exact decimal value, object members sorted by key.
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

void store_signed(void* target, std::size_t size, std::int64_t value) {
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

void store_unsigned(void* target, std::size_t size, std::uint64_t value) {
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

// `target` is null when nothing is to be stored: a run-time schema, a subschema tried as an
// alternative, or a check alone. Otherwise it points at the plain object of the node's type.
class decoder {
public:
    std::vector<violation> take() { return std::move(found_); }

    void walk(schema_node const& raw, json::value const& v, void* target) {
        if (quiet_ && failures_ != 0)
            return; // the verdict is known
        schema_node const& n = resolve(raw);
        // An enum (or const) outsider is reported as one, whatever its JSON type.
        if (n.has_enum && !enumeration(n, v, target))
            return;
        if (n.lowered_from(type_kind::variant))
            return variant(n, v, target);
        if (!type_matches(n, v))
            return wrong_type(n, v);
        switch (v.kind()) {
        case json::kind::bool_:
            if (target && n.lowered_from(type_kind::boolean))
                *static_cast<bool*>(target) = v.get_bool();
            break;
        case json::kind::int64:
        case json::kind::uint64:
        case json::kind::double_:
            number(n, v, target);
            break;
        case json::kind::string:
            string(n, v.get_string(), target);
            break;
        case json::kind::array:
            array(n, v.get_array(), target);
            break;
        case json::kind::object:
            object(n, v.get_object(), target);
            break;
        case json::kind::null:
            break;
        }
        for (auto const* part : n.all_of)
            walk(*part, v, nullptr);
        if (!n.any_of.empty())
            any_of(n, v);
        if (!n.one_of.empty())
            one_of(n, v);
    }

private:
    // `detail` spells the violation's text; a quiet walk only counts, so a branch tried in vain
    // costs no text.
    template <class Detail>
    void fail(std::string_view keyword, Detail&& detail) {
        ++failures_;
        if (!quiet_)
            found_.push_back(violation{pointer(), std::string(keyword), std::string(detail())});
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

    template <class F>
    void at(std::string_view name, F&& f) {
        if (quiet_)
            return f();
        path_.push_back({name, 0, false});
        f();
        path_.pop_back();
    }
    template <class F>
    void at(std::size_t index, F&& f) {
        if (quiet_)
            return f();
        path_.push_back({{}, index, true});
        f();
        path_.pop_back();
    }

    // Whether the value passes `n` alone: nothing stored, nothing reported, and the walk stops at
    // the first violation.
    bool passes(schema_node const& n, json::value const& v) {
        bool const was_quiet = std::exchange(quiet_, true);
        std::size_t const failures_before = std::exchange(failures_, 0);
        walk(n, v, nullptr);
        bool const passed = failures_ == 0;
        quiet_ = was_quiet;
        failures_ = failures_before;
        return passed;
    }

    static bool type_matches(schema_node const& n, json::value const& v) {
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

    void wrong_type(schema_node const& n, json::value const& v) {
        fail("type", [&] {
            std::string expected;
            for (auto const& [bit, name] : json_type::names)
                if (n.types & bit)
                    expected += (expected.empty() ? "" : " or ") + std::string(name);
            return expected + ", got " + json_type_name(v) + " " + internal::display(v);
        });
    }

    bool enumeration(schema_node const& n, json::value const& v, void* target) {
        for (std::size_t i = 0; i < n.enumeration.size(); ++i) {
            if (!json_equal(n.enumeration[i], v))
                continue;
            if (target && n.lowered_from(type_kind::enumeration)) {
                type_info const& t = *n.type;
                if (t.is_signed)
                    store_signed(target, t.size, t.enumerators[i].value);
                else
                    store_unsigned(target, t.size, std::uint64_t(t.enumerators[i].value));
            }
            return true;
        }
        if (n.is_const) {
            fail("const", [&] { return ordered_json(n.enumeration.front()) + ", got " + internal::display(v); });
            return false;
        }
        fail("enum", [&] {
            std::string names = "[";
            for (auto const& e : n.enumeration) {
                if (names.size() > 1)
                    names += ',';
                names += ordered_json(e);
            }
            return names + "], got " + internal::display(v);
        });
        return false;
    }

    bool numeric_keywords(constraints const& k, json::value const& v) {
        std::size_t const before = failures_;
        auto shown = [&](decimal const& d) { return ordered_json(to_json(d)) + ", got " + internal::display(v); };
        if (k.minimum && compare_bound(v, *k.minimum) < 0)
            fail("minimum", [&] { return shown(*k.minimum); });
        if (k.exclusive_minimum && compare_bound(v, *k.exclusive_minimum) <= 0)
            fail("exclusiveMinimum", [&] { return shown(*k.exclusive_minimum); });
        if (k.maximum && compare_bound(v, *k.maximum) > 0)
            fail("maximum", [&] { return shown(*k.maximum); });
        if (k.exclusive_maximum && compare_bound(v, *k.exclusive_maximum) >= 0)
            fail("exclusiveMaximum", [&] { return shown(*k.exclusive_maximum); });
        if (k.multiple_of && !is_multiple_of(v, *k.multiple_of))
            fail("multipleOf", [&] { return shown(*k.multiple_of); });
        return failures_ == before;
    }

    void number(schema_node const& n, json::value const& v, void* target) {
        if (n.lowered_from(type_kind::integer))
            return integer(n, v, target);
        if (!numeric_keywords(n.keywords, v) || !target || !n.lowered_from(type_kind::number))
            return;
        double d = v.to_number<double>();
        if (n.type->size == 4)
            *static_cast<float*>(target) = static_cast<float>(d);
        else
            *static_cast<double*>(target) = d;
    }

    void integer(schema_node const& n, json::value const& v, void* target) {
        if (v.is_double())
            return integral_double(n, v.get_double(), target);
        if (!numeric_keywords(n.keywords, v) || !target)
            return;
        type_info const& t = *n.type;
        if (t.is_signed)
            store_signed(target, t.size, v.is_int64() ? v.get_int64() : std::int64_t(v.get_uint64()));
        else
            store_unsigned(target, t.size, v.is_uint64() ? v.get_uint64() : std::uint64_t(v.get_int64()));
    }

    // A double with no fraction for a C++ integer: built in code (3.0), or read from an integer
    // literal beyond 64 bits (the boundary refuses a literal with a fraction that a double would
    // lose). Inside 64 bits it is that integer exactly; outside, it breaks the bound of the
    // member's C++ type, which the keywords of a lowered integer always carry.
    void integral_double(schema_node const& n, double d, void* target) {
        constexpr double two_63 = 9223372036854775808.0, two_64 = 18446744073709551616.0;
        auto beyond = [&](std::string_view keyword, std::optional<decimal> const& bound) {
            fail(keyword, [&] {
                return (bound ? ordered_json(to_json(*bound)) : "64 bits") + ", got " +
                       internal::display(json::value(d));
            });
        };
        if (d < -two_63)
            return beyond("minimum", n.keywords.minimum);
        if (d >= two_64)
            return beyond("maximum", n.keywords.maximum);
        integer(n, d < two_63 ? json::value(std::int64_t(d)) : json::value(std::uint64_t(d)), target);
    }

    void string(schema_node const& n, json::string const& text, void* target) {
        std::string_view s(text.data(), text.size());
        constraints const& k = n.keywords;
        // No text has more code points than bytes: a short one keeps within maxLength uncounted.
        if (k.min_length || (k.max_length && s.size() > *k.max_length)) {
            std::size_t length = internal::code_points(s);
            if (k.min_length && length < *k.min_length)
                fail("minLength", [&] { return std::to_string(*k.min_length) + ", got " + std::to_string(length); });
            if (k.max_length && length > *k.max_length)
                fail("maxLength", [&] { return std::to_string(*k.max_length) + ", got " + std::to_string(length); });
        }
        if (!n.pattern.empty() && !internal::pattern_matches(n.pattern, s))
            fail("pattern", [&] { return json_string_literal(n.pattern) + ", got " + internal::quoted(s); });
        if (target && n.lowered_from(type_kind::string))
            static_cast<std::string*>(target)->assign(s);
    }

    void array(schema_node const& n, json::array const& a, void* target) {
        constraints const& k = n.keywords;
        if (k.min_items && a.size() < *k.min_items)
            fail("minItems", [&] { return std::to_string(*k.min_items) + ", got " + std::to_string(a.size()); });
        if (k.max_items && a.size() > *k.max_items)
            fail("maxItems", [&] { return std::to_string(*k.max_items) + ", got " + std::to_string(a.size()); });
        if (k.unique_items)
            unique(a);
        bool storing = target && n.lowered_from(type_kind::array);
        if (storing)
            n.type->ops.resize(target, a.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            schema_node const* item = i < n.prefix_items.size() ? n.prefix_items[i] : n.items;
            if (!item) {
                if (n.closed_items)
                    at(i, [&] {
                        fail("items", [&] {
                            return "no item is allowed after the " + std::to_string(n.prefix_items.size()) +
                                   " of prefixItems, got " + internal::display(a[i]);
                        });
                    });
                continue;
            }
            at(i, [&] {
                if (!storing || !n.type->ops.set_bool)
                    return walk(*item, a[i], storing ? n.type->ops.element(target, i) : nullptr);
                bool b = false; // std::vector<bool>: its elements have no address
                walk(*item, a[i], &b);
                n.type->ops.set_bool(target, i, b);
            });
        }
    }

    static constexpr std::size_t few_items = 16;

    // Ordered sets, not hashed ones: the standard string hash has no seed, so a model could send
    // items that all collide and make the check quadratic.
    void unique(json::array const& a) {
        auto repeated = [&](std::size_t i) {
            fail("uniqueItems", [&] {
                return "item " + std::to_string(i) + " repeats an earlier item, got " + internal::display(a[i]);
            });
        };
        if (std::all_of(a.begin(), a.end(), [](json::value const& item) { return item.is_string(); })) {
            if (a.size() <= few_items) { // pairs cost less than a set's nodes
                for (std::size_t i = 1; i < a.size(); ++i)
                    for (std::size_t j = 0; j < i; ++j)
                        if (a[i].get_string() == a[j].get_string())
                            return repeated(i);
                return;
            }
            std::set<std::string_view> strings;
            for (std::size_t i = 0; i < a.size(); ++i)
                if (!strings.insert(std::string_view(a[i].get_string())).second)
                    return repeated(i);
            return;
        }
        std::set<std::string, std::less<>> seen;
        std::string key;
        for (std::size_t i = 0; i < a.size(); ++i) {
            key.clear();
            append_equality_key(key, a[i]);
            if (!seen.insert(key).second)
                return repeated(i);
        }
    }

    static void* member_target(property const& p, void* object) {
        if (!object || !p.member)
            return nullptr;
        void* field = p.member->get(object);
        return p.member->type->kind == type_kind::optional ? p.member->type->ops.emplace(field) : field;
    }

    void object(schema_node const& n, json::object const& o, void* target) {
        if (!n.lowered_from(type_kind::object) && !n.lowered_from(type_kind::map))
            target = nullptr;
        std::size_t present = 0;
        std::size_t next = 0; // where the next property probably is: models write them in schema order
        for (auto const& p : n.properties) {
            json::value const* found = nullptr;
            if (next < o.size() && o.begin()[next].key() == p.name)
                found = &o.begin()[next++].value();
            else if (auto it = o.find(p.name); it != o.end())
                found = &it->value(), next = std::size_t(it - o.begin()) + 1;
            if (!found) {
                if (p.required)
                    at(p.name, [&] { fail("required", [&] { return "member is missing"; }); });
                continue;
            }
            ++present;
            at(p.name, [&] { walk(*p.node, *found, member_target(p, target)); });
        }
        // Keys are unique (the boundary saw to it): when every key is a property, none is extra.
        if (present != o.size() && n.additional != extra_members::allowed) {
            bool inserting = target && n.lowered_from(type_kind::map);
            for (auto const& kv : o) {
                std::string_view key(kv.key().data(), kv.key().size());
                if (std::any_of(n.properties.begin(), n.properties.end(),
                                [&](property const& p) { return p.name == key; }))
                    continue;
                if (n.additional == extra_members::forbidden)
                    at(key, [&] {
                        fail("additionalProperties",
                             [&] { return "unknown member, got " + internal::display(kv.value()); });
                    });
                else
                    at(key, [&] {
                        walk(*n.additional_schema, kv.value(), inserting ? n.type->ops.insert(target, key) : nullptr);
                    });
            }
        }
        if (n.min_properties && o.size() < *n.min_properties)
            fail("minProperties",
                 [&] { return std::to_string(*n.min_properties) + ", got " + std::to_string(o.size()); });
        if (n.max_properties && o.size() > *n.max_properties)
            fail("maxProperties",
                 [&] { return std::to_string(*n.max_properties) + ", got " + std::to_string(o.size()); });
    }

    void any_of(schema_node const& n, json::value const& v) {
        for (auto const* branch : n.any_of)
            if (passes(*branch, v))
                return;
        fail("anyOf", [&] { return "no alternative matches, got " + internal::display(v); });
    }

    // Whether every const-valued member of an object branch has its value in `v`: the branch a
    // tagged union's value is meant for.
    static bool tags_match(schema_node const& branch, json::object const& o) {
        schema_node const& b = resolve(branch);
        bool any = false;
        for (auto const& p : b.properties) {
            schema_node const& pn = resolve(*p.node);
            if (!pn.is_const)
                continue;
            any = true;
            auto const* found = o.if_contains(p.name);
            if (!found || !json_equal(*found, pn.enumeration.front()))
                return false;
        }
        return any;
    }

    // Whether the object breaks one of the branch's const-valued members (holds another value
    // there, or lacks a required one): then the branch fails, and trying it would only say so.
    static bool tags_exclude(schema_node const& branch, json::object const& o) {
        schema_node const& b = resolve(branch);
        for (auto const& p : b.properties) {
            schema_node const& pn = resolve(*p.node);
            if (!pn.is_const)
                continue;
            auto const* found = o.if_contains(p.name);
            if (found ? !json_equal(*found, pn.enumeration.front()) : p.required)
                return true;
        }
        return false;
    }

    void one_of(schema_node const& n, json::value const& v) {
        std::size_t matching = 0, tagged_count = 0;
        schema_node const* tagged = nullptr;
        for (auto const* branch : n.one_of) {
            if (v.is_object() && tags_match(*branch, v.get_object()))
                tagged = branch, ++tagged_count;
            if (!(v.is_object() && tags_exclude(*branch, v.get_object())) && passes(*branch, v))
                ++matching;
        }
        if (matching == 1)
            return;
        if (matching == 0 && tagged_count == 1)
            return walk(*tagged, v, nullptr);
        fail("oneOf", [&] {
            return matching == 0 ? "no alternative matches, got " + internal::display(v)
                                 : std::to_string(matching) + " alternatives match, got " + internal::display(v);
        });
    }

    // A std::variant's alternatives are told apart by their tags, so the one whose tags the object
    // has is the only one it can match: no alternative is tried in vain.
    void variant(schema_node const& n, json::value const& v, void* target) {
        if (!v.is_object())
            return wrong_type(n, v);
        auto const& o = v.get_object();
        type_info const& t = *n.type;
        for (std::size_t i = 0; i < n.one_of.size(); ++i) {
            if (!tags_match(*n.one_of[i], o))
                continue;
            return walk(*n.one_of[i], v, target ? t.ops.emplace_alternative(target, i) : nullptr);
        }
        fail("oneOf", [&] {
            std::string expected;
            for (auto const* alternative : n.one_of) {
                std::string tags;
                for (auto const& p : alternative->properties)
                    if (p.node->is_const)
                        tags += (tags.empty() ? "" : ", ") + json_string_literal(p.name) + ":" +
                                ordered_json(p.node->enumeration.front());
                expected += (expected.empty() ? "{" : " or {") + tags + "}";
            }
            return "no alternative has the tags of this object, expected " + expected;
        });
    }

    struct path_token {
        std::string_view name;
        std::size_t index;
        bool is_index;
    };
    std::vector<path_token> path_;
    std::vector<violation> found_;
    std::size_t failures_ = 0;
    bool quiet_ = false;
};

} // namespace

std::vector<violation> decode_into(schema_node const& schema, json::value const& document, void* target) {
    decoder d;
    d.walk(schema, document, target);
    return d.take();
}

std::vector<violation> decode_into(type_info const& type, json::value const& document, void* target) {
    return decode_into(lowered(type).root(), document, target);
}

std::vector<violation> validate(compiled_schema const& schema, json::value const& document) {
    return decode_into(schema.root(), document, nullptr);
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
