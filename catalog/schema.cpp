#include <agentrt/catalog/schema.hpp>

#include <boost/json/array.hpp>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>
#include <vector>

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

json::value type_keyword(std::uint8_t types) {
    json::array all;
    for (auto const& [bit, name] : json_type::names)
        if (types & bit)
            all.emplace_back(name);
    if (all.size() == 1)
        return all.front();
    return all;
}

class writer {
public:
    json::object write(schema_node const& raw) {
        schema_node const& n = resolve(raw);
        if (std::find(open_.begin(), open_.end(), &n) != open_.end())
            throw std::invalid_argument("agentrt: a recursive schema cannot be written out without $ref; "
                                        "show a run-time tool's input_schema as it was given");
        open_.push_back(&n);
        json::object s = keywords(n);
        open_.pop_back();
        return s;
    }

private:
    json::array list(std::vector<schema_node const*> const& nodes) {
        json::array out;
        for (auto const* node : nodes)
            out.emplace_back(write(*node));
        return out;
    }

    // In the order a model reads and version one wrote (a tool's spec hash covers this schema):
    // the type, what the value may be, its members or items, its bounds, then its description.
    json::object keywords(schema_node const& n) {
        json::object s;
        // A variant's oneOf and a tag's const say the type already.
        if (n.types != json_type::any && !n.lowered_from(type_kind::variant) && !n.lowered_from(type_kind::tag))
            s["type"] = type_keyword(n.types);
        if (n.is_const)
            s["const"] = n.enumeration.front();
        else if (n.has_enum)
            s["enum"] = json::array(n.enumeration.begin(), n.enumeration.end());
        if (!n.properties.empty() || n.lowered_from(type_kind::object)) {
            json::object properties;
            json::array required;
            for (auto const& p : n.properties) {
                properties[p.name] = write(*p.node);
                if (p.required)
                    required.emplace_back(p.name);
            }
            s["properties"] = std::move(properties);
            if (!required.empty())
                s["required"] = std::move(required);
        }
        if (n.additional == extra_members::forbidden)
            s["additionalProperties"] = false;
        else if (n.additional == extra_members::schema)
            s["additionalProperties"] = write(*n.additional_schema);
        if (n.min_properties)
            s["minProperties"] = std::int64_t(*n.min_properties);
        if (n.max_properties)
            s["maxProperties"] = std::int64_t(*n.max_properties);
        if (!n.prefix_items.empty())
            s["prefixItems"] = list(n.prefix_items);
        if (n.items)
            s["items"] = write(*n.items);
        else if (n.closed_items)
            s["items"] = false;
        constraints const& k = n.keywords;
        if (k.min_items)
            s["minItems"] = std::int64_t(*k.min_items);
        if (k.max_items)
            s["maxItems"] = std::int64_t(*k.max_items);
        if (k.unique_items)
            s["uniqueItems"] = true;
        if (k.min_length)
            s["minLength"] = std::int64_t(*k.min_length);
        if (k.max_length)
            s["maxLength"] = std::int64_t(*k.max_length);
        if (!n.pattern.empty())
            s["pattern"] = n.pattern;
        numeric_keywords(s, k);
        if (!n.all_of.empty())
            s["allOf"] = list(n.all_of);
        if (!n.any_of.empty())
            s["anyOf"] = list(n.any_of);
        if (!n.one_of.empty())
            s["oneOf"] = list(n.one_of);
        if (!n.description.empty())
            s["description"] = n.description;
        return s;
    }

    std::vector<schema_node const*> open_;
};

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

json::object schema(schema_node const& node) {
    return writer().write(node);
}

json::object schema(type_info const& type) {
    return schema(lowered(type).root());
}

} // namespace agentrt
