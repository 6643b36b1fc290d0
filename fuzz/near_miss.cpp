// Near misses: each change is made on a copy of the valid document, at a path, and kept only when
// the judge refuses it with the intended rule at the intended pointer.
#include <agentrt/fuzz/near_miss.hpp>

#include <agentrt/catalog/decode.hpp>
#include <agentrt/catalog/schema.hpp>
#include <agentrt/fuzz/generate.hpp>

#include "internal.hpp"
#include "internal/numbers.hpp"
#include "internal/regex.hpp"
#include "internal/text.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <charconv>
#include <cmath>
#include <ostream>

namespace agentrt::fuzz {

std::ostream& operator<<(std::ostream& out, near_miss const& m) {
    return out << (m.boundary ? "boundary " : "") << m.rule << " at \"" << m.pointer << "\": " << m.text;
}

judge judge_of(type_info const& type) {
    return [&type](boost::json::value const& v) { return decode_into(type, v, nullptr); };
}

judge judge_of(compiled_schema const& s) {
    return [s](boost::json::value const& v) { return decode_into(s.root(), v, nullptr); };
}

namespace {

namespace json = boost::json;
using i128 = __int128;
// A JSON Pointer token: a member name, or an index when is_index. (Not a std::variant: g++ 12 at
// -O3 reports its copies as maybe-uninitialized.)
struct token {
    std::string key;
    std::size_t index = 0;
    bool is_index = false;
    token(std::string k) : key(std::move(k)) {}        // NOLINT: implicit, as descend(name) reads
    token(std::size_t i) : index(i), is_index(true) {} // NOLINT
};

json::value* locate(json::value& root, std::vector<token> const& path) {
    json::value* at = &root;
    for (auto const& t : path)
        at = t.is_index ? &at->as_array()[t.index] : &at->as_object()[t.key];
    return at;
}

json::value integer_json(i128 v) {
    if (v >= INT64_MIN && v <= INT64_MAX)
        return std::int64_t(v);
    if (v >= 0 && v <= i128(UINT64_MAX))
        return std::uint64_t(v);
    return double(v); // beyond 64 bits: the decoder reads it as out of the C++ type's range
}

// floor (or ceil) of an exact decimal, clamped to +-2^100.
i128 rounded(decimal const& d, bool up) {
    i128 limit = i128(1) << 100, m = d.magnitude;
    if (d.exponent >= 0) {
        for (int i = 0; i < d.exponent; ++i)
            if ((m *= 10) > limit)
                return d.negative ? -limit : limit;
        return d.negative ? -m : m;
    }
    i128 p = 1;
    for (int i = 0; i < -d.exponent && p < limit; ++i)
        p *= 10;
    i128 q = m / p;
    bool exact = m % p == 0;
    if (d.negative)
        q = -q;
    if (!exact && up && !d.negative)
        q += 1;
    if (!exact && !up && d.negative)
        q -= 1;
    return q;
}

double nearest(decimal const& d) {
    return to_json(d).to_number<double>();
}

class mutator {
public:
    mutator(json::value const& valid, judge const& confirm) : valid_(valid), confirm_(confirm) {}

    std::vector<near_miss> run(schema_node const& root) {
        walk(root, valid_);
        return std::move(found_);
    }

private:
    std::string pointer() const {
        std::string p;
        for (auto const& t : path_) {
            p += '/';
            p += t.is_index ? std::to_string(t.index) : internal::escape_pointer_token(t.key);
        }
        return p;
    }

    // Replaces the value at the current path (or, with a suffix token, a member of it).
    template <class Change>
    void attempt(std::string_view rule, std::string const& where, Change&& change) {
        json::value copy = valid_;
        change(*locate(copy, path_));
        for (auto const& v : confirm_(copy))
            if (v.keyword == rule && v.pointer == where) {
                found_.push_back(near_miss{json::serialize(copy), std::string(rule), where, false});
                return;
            }
    }
    void replace(std::string_view rule, json::value replacement) {
        attempt(rule, pointer(), [&](json::value& at) { at = replacement; });
    }
    bool replaced(std::string_view rule, json::value replacement) {
        std::size_t before = found_.size();
        replace(rule, std::move(replacement));
        return found_.size() > before;
    }

    template <class F>
    void descend(token t, F&& f) {
        path_.push_back(std::move(t));
        f();
        path_.pop_back();
    }

    void walk(schema_node const& raw, json::value const& v) {
        schema_node const& n = resolve(raw);
        if (!n.one_of.empty())
            return variant(n, v);
        wrong_type(n, v);
        if (n.has_enum)
            replace(n.is_const ? "const" : "enum", json::string("agentrt-outsider"));
        if (v.is_number())
            numeric(n, v);
        else if (v.is_string())
            string(n, v.get_string());
        else if (v.is_array())
            array(n, v.get_array());
        else if (v.is_object())
            object(n, v.get_object());
        for (auto const* part : n.all_of) // $ref and allOf of run-time schemas
            walk(*part, v);
    }

    void wrong_type(schema_node const& n, json::value const& v) {
        if (n.types == json_type::any || n.has_enum)
            return; // the decoder reports a value outside an enum as an enum outsider, whatever its type
        json::value other;
        if (v.is_object())
            other = json::array();
        else if (v.is_array())
            other = json::object();
        else if (v.is_string())
            other = 1;
        else if (v.is_bool())
            other = json::string("true");
        else if (n.types & json_type::number)
            other = json::string("1");
        else
            other = 1.5; // an integer's nearest wrong type: a number with a fraction
        replace("type", other);
    }

    void variant(schema_node const& n, json::value const& v) {
        wrong_type(n, v);
        for (auto const* branch : n.one_of) {
            if (!decode_into(*branch, v, nullptr).empty())
                continue;
            // A tag no alternative has: nothing matches.
            for (auto const& p : resolve(*branch).properties)
                if (resolve(*p.node).is_const && v.is_object() && v.get_object().contains(p.name))
                    attempt("oneOf", pointer(),
                            [&](json::value& at) { at.as_object()[p.name] = json::string("agentrt-no-such-tag"); });
            return walk(*branch, v);
        }
    }

    void numeric(schema_node const& n, json::value const& v) {
        constraints const& k = n.keywords;
        bool integer = !(n.types & json_type::number);
        auto below = [&](decimal const& d, bool exclusive) -> json::value {
            if (integer)
                return integer_json(exclusive ? rounded(d, false) : rounded(d, true) - 1);
            return exclusive ? nearest(d) : std::nextafter(nearest(d), -INFINITY);
        };
        auto above = [&](decimal const& d, bool exclusive) -> json::value {
            if (integer)
                return integer_json(exclusive ? rounded(d, true) : rounded(d, false) + 1);
            return exclusive ? nearest(d) : std::nextafter(nearest(d), INFINITY);
        };
        if (k.minimum)
            replace("minimum", below(*k.minimum, false));
        if (k.exclusive_minimum)
            replace("exclusiveMinimum", below(*k.exclusive_minimum, true));
        if (k.maximum)
            replace("maximum", above(*k.maximum, false));
        if (k.exclusive_maximum)
            replace("exclusiveMaximum", above(*k.exclusive_maximum, true));
        if (k.multiple_of)
            missed_multiple(*k.multiple_of, v, integer);
    }

    // A neighbour that is no multiple: the value plus or minus one for an integer, plus or minus
    // half the divisor for a number.
    void missed_multiple(decimal const& m, json::value const& v, bool integer) {
        if (integer) {
            i128 value = v.is_int64() ? i128(v.get_int64()) : (v.is_uint64() ? i128(v.get_uint64()) : 0);
            for (i128 candidate : {value + 1, value - 1})
                if (replaced("multipleOf", integer_json(candidate)))
                    return;
            return;
        }
        auto digits = v.is_double()
                          ? internal::to_decimal(v.get_double())
                          : (v.is_int64() ? internal::to_decimal(v.get_int64()) : internal::to_decimal(v.get_uint64()));
        int e = std::min(digits.exponent, m.exponent - 1);
        if (digits.exponent - e > 18 || m.exponent - 1 - e > 18 || digits.digits.size() > 18)
            return;
        i128 value = 0;
        for (char c : digits.digits)
            value = value * 10 + (c - '0');
        for (int i = e; i < digits.exponent; ++i)
            value *= 10;
        if (digits.negative)
            value = -value;
        i128 half = i128(m.magnitude) * 5;
        for (int i = e; i < m.exponent - 1; ++i)
            half *= 10;
        for (i128 candidate : {value + half, value - half}) {
            bool negative = candidate < 0;
            auto magnitude = static_cast<unsigned __int128>(negative ? -candidate : candidate);
            std::string text;
            do {
                text.insert(text.begin(), char('0' + int(magnitude % 10)));
                magnitude /= 10;
            } while (magnitude);
            text = (negative ? "-" : "") + text + "e" + std::to_string(e);
            double d = 0;
            std::from_chars(text.data(), text.data() + text.size(), d);
            if (replaced("multipleOf", d))
                return;
        }
    }

    void string(schema_node const& n, json::string const& s) {
        constraints const& k = n.keywords;
        std::string text(s.data(), s.size());
        std::size_t length = internal::code_points(text);
        if (k.min_length && *k.min_length > 0 && length >= *k.min_length) {
            std::string cut;
            std::size_t kept = 0;
            for (char c : text) {
                bool starts = (static_cast<unsigned char>(c) & 0xc0) != 0x80;
                if (starts && kept == *k.min_length - 1)
                    break;
                kept += starts;
                cut += c;
            }
            replace("minLength", json::string(cut));
        }
        if (k.max_length && *k.max_length < 100'000 && length <= *k.max_length)
            replace("maxLength", json::string(text + std::string(*k.max_length + 1 - length, 'a')));
        if (!n.pattern.empty())
            for (std::string candidate : {std::string(), text + "\x01", "\x01" + text, std::string("!"), text + " @@",
                                          std::string("\xc3\xa9"), std::string("a")}) {
                if (!internal::pattern_matches(n.pattern, candidate) && replaced("pattern", json::string(candidate)))
                    break;
            }
    }

    void array(schema_node const& n, json::array const& a) {
        constraints const& k = n.keywords;
        if (k.min_items && *k.min_items > 0 && a.size() >= *k.min_items)
            replace("minItems", json::array(a.begin(), a.begin() + std::ptrdiff_t(*k.min_items - 1)));
        if (k.max_items && !a.empty() && *k.max_items < 10'000) {
            json::array longer = a;
            for (std::size_t i = 0; longer.size() <= *k.max_items; ++i)
                longer.push_back(a[i % a.size()]);
            replace("maxItems", longer);
        }
        if (k.unique_items && !a.empty()) {
            json::array repeated = a;
            if (a.size() >= 2)
                repeated.back() = a.front();
            else
                repeated.push_back(a.front());
            replace("uniqueItems", repeated);
        }
        if (n.closed_items && a.size() == n.prefix_items.size() && !a.empty()) {
            json::array longer = a;
            longer.push_back(a.back());
            attempt("items", pointer() + "/" + std::to_string(a.size()), [&](json::value& at) { at = longer; });
        }
        for (std::size_t i = 0; i < a.size(); ++i) {
            schema_node const* item = i < n.prefix_items.size() ? n.prefix_items[i] : n.items;
            if (item)
                descend(i, [&] { walk(*item, a[i]); });
        }
    }

    void object(schema_node const& n, json::object const& o) {
        std::string here = pointer();
        for (auto const& p : n.properties)
            if (p.required && o.contains(p.name))
                attempt("required", here + "/" + internal::escape_pointer_token(p.name),
                        [&](json::value& at) { at.as_object().erase(p.name); });
        if (n.additional == extra_members::forbidden)
            attempt("additionalProperties", here + "/agentrt_unknown",
                    [](json::value& at) { at.as_object()["agentrt_unknown"] = 1; });
        properties_counts(n, o);
        for (auto const& kv : o) {
            std::string key(kv.key());
            schema_node const* member = nullptr;
            for (auto const& p : n.properties)
                if (p.name == key)
                    member = p.node;
            if (!member && n.additional == extra_members::schema)
                member = n.additional_schema;
            if (member)
                descend(key, [&] { walk(*member, kv.value()); });
        }
    }

    // Run-time schemas only: one member too few (optional members go first) or too many.
    void properties_counts(schema_node const& n, json::object const& o) {
        if (n.min_properties && *n.min_properties > 0 && o.size() >= *n.min_properties) {
            std::vector<std::string> order;
            for (auto const& kv : o) {
                bool required = false;
                for (auto const& p : n.properties)
                    required = required || (p.required && p.name == kv.key());
                order.insert(required ? order.end() : order.begin(), std::string(kv.key()));
            }
            replace("minProperties", [&] {
                json::object fewer = o;
                for (std::size_t i = 0; fewer.size() >= *n.min_properties; ++i)
                    fewer.erase(order[i]);
                return json::value(std::move(fewer));
            }());
        }
        if (n.max_properties && n.additional == extra_members::allowed && *n.max_properties < 10'000) {
            json::object more = o;
            for (std::size_t i = 0; more.size() <= *n.max_properties; ++i)
                more["agentrt_extra_" + std::to_string(i)] = nullptr;
            replace("maxProperties", std::move(more));
        }
    }

    json::value const& valid_;
    judge const& confirm_;
    std::vector<token> path_;
    std::vector<near_miss> found_;
};

} // namespace

std::vector<near_miss> near_misses(compiled_schema const& s, json::value const& valid, judge const& confirm) {
    return mutator(valid, confirm).run(s.root());
}

rc::Gen<near_miss> near_miss_gen(compiled_schema const& s, judge confirm, options const& opts) {
    return rc::gen::mapcat(valid_json(s, opts), [s, confirm](json::value const& v) {
        auto all = near_misses(s, v, confirm);
        auto edges = boundary_cases(v);
        all.insert(all.end(), edges.begin(), edges.end());
        return detail::pick(std::move(all));
    });
}

} // namespace agentrt::fuzz
