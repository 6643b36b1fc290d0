#include <agentrt/catalog/schema.hpp>

#include <boost/json/array.hpp>

#include <charconv>
#include <string>

namespace agentrt {
namespace {

namespace json = boost::json;

void numeric_keywords(json::object& s, constraints const& k) {
    if (k.minimum)
        s["minimum"] = to_json(*k.minimum);
    if (k.exclusive_minimum)
        s["exclusiveMinimum"] = to_json(*k.exclusive_minimum);
    if (k.maximum)
        s["maximum"] = to_json(*k.maximum);
    if (k.exclusive_maximum)
        s["exclusiveMaximum"] = to_json(*k.exclusive_maximum);
    if (k.multiple_of)
        s["multipleOf"] = to_json(*k.multiple_of);
}

void string_keywords(json::object& s, constraints const& k) {
    if (k.min_length)
        s["minLength"] = std::int64_t(*k.min_length);
    if (k.max_length)
        s["maxLength"] = std::int64_t(*k.max_length);
    if (!k.pattern.empty())
        s["pattern"] = k.pattern;
}

void array_keywords(json::object& s, constraints const& k) {
    if (k.min_items)
        s["minItems"] = std::int64_t(*k.min_items);
    if (k.max_items)
        s["maxItems"] = std::int64_t(*k.max_items);
    if (k.unique_items)
        s["uniqueItems"] = true;
}

json::object object_schema(type_info const& t) {
    json::object s;
    s["type"] = "object";
    json::object properties;
    json::array required;
    for (auto const& m : t.members) {
        type_info const& member = m.type->kind == type_kind::optional ? *m.type->element : *m.type;
        properties[m.name] = schema(member);
        if (m.required)
            required.emplace_back(m.name);
    }
    s["properties"] = std::move(properties);
    if (!required.empty())
        s["required"] = std::move(required);
    s["additionalProperties"] = false;
    return s;
}

} // namespace

json::value to_json(decimal const& d) {
    if (d.exponent >= 0 && d.exponent <= 19) {
        unsigned __int128 v = d.magnitude;
        for (int i = 0; i < d.exponent; ++i)
            v *= 10;
        if (!d.negative && v <= UINT64_MAX) {
            if (v <= INT64_MAX)
                return json::value(std::int64_t(v));
            return json::value(std::uint64_t(v));
        }
        if (d.negative && v <= (unsigned __int128)INT64_MAX + 1)
            return json::value(std::int64_t(-(__int128)v));
    }
    std::string text;
    if (d.negative)
        text += '-';
    text += std::to_string(d.magnitude);
    text += 'e';
    text += std::to_string(d.exponent);
    double value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return json::value(value);
}

json::object schema(type_info const& t) {
    json::object s;
    switch (t.kind) {
    case type_kind::boolean:
        s["type"] = "boolean";
        break;
    case type_kind::integer:
        s["type"] = "integer";
        numeric_keywords(s, t.keywords);
        break;
    case type_kind::number:
        s["type"] = "number";
        numeric_keywords(s, t.keywords);
        break;
    case type_kind::string:
        s["type"] = "string";
        string_keywords(s, t.keywords);
        break;
    case type_kind::enumeration: {
        s["type"] = "string";
        json::array names;
        for (auto const& e : t.enumerators)
            names.emplace_back(e.name);
        s["enum"] = std::move(names);
        break;
    }
    case type_kind::tag:
        s["const"] = t.constant;
        break;
    case type_kind::object:
        s = object_schema(t);
        break;
    case type_kind::array:
        s["type"] = "array";
        s["items"] = schema(*t.element);
        array_keywords(s, t.keywords);
        break;
    case type_kind::map:
        s["type"] = "object";
        s["additionalProperties"] = schema(*t.element);
        break;
    case type_kind::optional:
        s = schema(*t.element);
        break;
    case type_kind::variant: {
        json::array one_of;
        for (auto const* alternative : t.alternatives)
            one_of.emplace_back(schema(*alternative));
        s["oneOf"] = std::move(one_of);
        break;
    }
    }
    if (!t.keywords.description.empty())
        s["description"] = t.keywords.description;
    return s;
}

} // namespace agentrt
