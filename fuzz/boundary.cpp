// Boundary cases: texts the strict JSON boundary must refuse before any schema is consulted.
#include <agentrt/fuzz/near_miss.hpp>

#include <agentrt/catalog/json_reader.hpp>

#include "internal/text.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <initializer_list>

namespace agentrt::fuzz {
namespace {

namespace json = boost::json;

constexpr std::string_view placeholder = "agentrt-boundary-placeholder-7f3a";

// Appends instead of operator+ on temporaries, which g++ 12 at -O3 misreads as overlapping copies
// (-Wrestrict, GCC bug 105329).
std::string concat(std::initializer_list<std::string_view> parts) {
    std::string out;
    for (auto part : parts)
        out.append(part);
    return out;
}

// The pointer of the first string member (depth first), if any.
bool first_string(json::value const& v, std::string& pointer) {
    if (v.is_string())
        return true;
    auto size = pointer.size();
    if (v.is_object())
        for (auto const& kv : v.get_object()) {
            pointer.append("/").append(internal::escape_pointer_token(kv.key()));
            if (first_string(kv.value(), pointer))
                return true;
            pointer.resize(size);
        }
    if (v.is_array())
        for (std::size_t i = 0; i < v.get_array().size(); ++i) {
            pointer.append("/").append(std::to_string(i));
            if (first_string(v.get_array()[i], pointer))
                return true;
            pointer.resize(size);
        }
    return false;
}

// The document's text with the string at `pointer` replaced by the raw literal `literal`.
std::string with_raw_string(json::value document, std::string const& pointer, std::string_view literal) {
    document.at_pointer(pointer) = json::string(placeholder);
    std::string text = json::serialize(document);
    std::string quoted = concat({"\"", placeholder, "\""});
    text.replace(text.find(quoted), quoted.size(), literal);
    return text;
}

} // namespace

std::vector<near_miss> boundary_cases(json::value const& valid) {
    std::string text = json::serialize(valid);
    std::vector<near_miss> candidates;
    auto add = [&](std::string_view rule, std::string t, std::string pointer = "") {
        candidates.push_back(near_miss{std::move(t), std::string(rule), std::move(pointer), true});
    };

    std::string deep = concat({std::string(300, '['), std::string(300, ']')});
    if (valid.is_object() && !valid.get_object().empty())
        add(boundary_rule::depth,
            concat({"{", json::serialize(json::string(valid.get_object().begin()->key())), ":", deep, "}"}));
    else
        add(boundary_rule::depth, deep);

    if (valid.is_object() && !valid.get_object().empty()) {
        auto const& first = *valid.get_object().begin();
        add(boundary_rule::duplicate_key,
            concat({"{", json::serialize(json::string(first.key())), ":", json::serialize(first.value()), ",",
                    std::string_view(text).substr(1)}));
    } else
        add(boundary_rule::duplicate_key, R"({"a":1,"a":1})");

    std::string pointer;
    if (first_string(valid, pointer)) {
        add(boundary_rule::utf8, with_raw_string(valid, pointer, "\"a\xff\""), pointer);
        add(boundary_rule::surrogate, with_raw_string(valid, pointer, R"("a\ud800")"), pointer);
    } else if (valid.is_object()) {
        std::string rest = valid.get_object().empty() ? "}" : concat({",", std::string_view(text).substr(1)});
        add(boundary_rule::utf8, concat({"{\"a\xff\":1", rest}));
        add(boundary_rule::surrogate, concat({"{\"a\\ud800\":1", rest}));
    } else {
        add(boundary_rule::utf8, "\"a\xff\"");
        add(boundary_rule::surrogate, R"("a\ud800")");
    }

    add(boundary_rule::truncated, text.substr(0, text.size() - 1));
    add(boundary_rule::trailing, concat({text, " ", text}));

    std::vector<near_miss> confirmed;
    for (auto& c : candidates) {
        auto read = read_json(c.text);
        if (!read && !read.error().violations.empty() && read.error().violations.front().keyword == c.rule)
            confirmed.push_back(std::move(c));
    }
    return confirmed;
}

} // namespace agentrt::fuzz
