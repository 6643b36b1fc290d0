// agentrt/fuzz/near_miss.hpp — invalid arguments one change away from valid ones.
//
//     auto valid = agentrt::fuzz::sample(agentrt::fuzz::valid_json(info), 1, 7).front();
//     for (auto const& m : agentrt::fuzz::near_misses(info, valid))
//         assert(!table.accept("send_message", m.text));   // m.rule == "maxLength", m.pointer == "/cc/2"
//
// A near miss is a valid document with exactly one change the schema refuses: a required member
// removed, an unknown member added, a wrong JSON type, a bound, length or count one past its limit
// (below a minimum, above a maximum), an enum or const outsider, a variant tag no alternative has,
// a pattern broken, a multipleOf missed, a repeated item — at every depth of the document. Each is
// confirmed refused, with its rule at its pointer, before it is returned; a change the judge does
// not refuse that way is dropped, never reported.
//
// Boundary cases are refused by the JSON boundary before any schema: nesting 300 deep, a duplicate
// key, invalid UTF-8 and an unpaired surrogate escape (inside a string member when there is one),
// truncated text, two values. Their rules are the boundary_rule keywords of json_reader.hpp.
#pragma once

#include <agentrt/catalog/compiled_schema.hpp>
#include <agentrt/catalog/error.hpp>
#include <agentrt/catalog/type_info.hpp>
#include <agentrt/fuzz/options.hpp>

#include <boost/json/value.hpp>
#include <rapidcheck.h>

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace agentrt::fuzz {

struct near_miss {
    std::string text;      // the JSON text, as a model would send it
    std::string rule;      // the violation keyword it is confirmed to break
    std::string pointer;   // JSON Pointer of the change ("" is the whole document)
    bool boundary = false; // refused by the JSON boundary, before any schema

    friend bool operator==(near_miss const&, near_miss const&) = default;
};

std::ostream& operator<<(std::ostream& out, near_miss const& m);

// Every rule a document breaks, as a tool would refuse it: the catalogue's decoder by default.
using judge = std::function<std::vector<violation>(boost::json::value const&)>;

judge judge_of(type_info const& type);
judge judge_of(compiled_schema const& s);

// The schema near misses of one valid document, confirmed by `confirm`.
std::vector<near_miss> near_misses(compiled_schema const& s, boost::json::value const& valid, judge const& confirm);
inline std::vector<near_miss> near_misses(type_info const& type, boost::json::value const& valid) {
    return near_misses(lowered(type), valid, judge_of(type));
}

// The boundary cases built around one valid document, each confirmed by read_json.
std::vector<near_miss> boundary_cases(boost::json::value const& valid);

// Near misses and boundary cases of generated valid documents.
rc::Gen<near_miss> near_miss_gen(compiled_schema const& s, judge confirm, options const& opts = {});
inline rc::Gen<near_miss> near_miss_gen(type_info const& type, options const& opts = {}) {
    return near_miss_gen(lowered(type), judge_of(type), opts);
}

} // namespace agentrt::fuzz
