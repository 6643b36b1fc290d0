// JSON Schema known at run time, compiled into schema nodes for exactly the keywords the decoder
// checks and the generators honour; anything else is refused by name rather than guessed at.
#include <agentrt/catalog/compiled_schema.hpp>

#include <agentrt/catalog/pattern.hpp>

#include "internal/numbers.hpp"
#include "internal/text.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <iterator>
#include <map>
#include <vector>

namespace agentrt {
namespace {

namespace json = boost::json;

struct schema_error {
    std::string pointer, keyword, detail;
};

class compiler {
public:
    compiler(json::value const& root, std::deque<schema_node>& nodes)
        : root_(root), nodes_(nodes), dialect_(dialect_of_root(root)) {}

    schema_node const* compile(json::value const& s, std::string const& where) {
        auto& n = nodes_.emplace_back();
        if (s.is_bool()) {
            if (!s.get_bool()) // false: nothing is valid, so the tool could never be called
                fail(where, "false", "a schema that accepts nothing leaves the tool no valid call");
            return &n;
        }
        if (!s.is_object())
            fail(where, "type", "a schema must be an object or a boolean");
        auto const& o = s.get_object();
        if (dialect_ == dialect::draft_07 && o.contains("$ref"))
            for (auto const& kv : o)
                if (kv.key() != "$ref" && !annotation(kv.key()) && kv.key() != "definitions" && kv.key() != "$defs")
                    // Draft-07 ignores what sits beside a $ref, 2020-12 applies it: agentrt guesses neither.
                    fail(where, "$ref",
                         "in draft-07 \"" + std::string(kv.key()) +
                             "\" beside $ref is ignored; put both in an allOf to have both applied");
        for (auto const& kv : o)
            keyword(n, std::string(kv.key()), kv.value(), where);
        return &n;
    }

private:
    enum class dialect { draft_2020_12, draft_07, unknown };

    static dialect dialect_of(std::string_view uri) {
        if (uri == "https://json-schema.org/draft/2020-12/schema")
            return dialect::draft_2020_12;
        if (uri == "http://json-schema.org/draft-07/schema#" || uri == "http://json-schema.org/draft-07/schema")
            return dialect::draft_07;
        return dialect::unknown;
    }

    static dialect dialect_of_root(json::value const& root) {
        auto const* declared = root.is_object() ? root.get_object().if_contains("$schema") : nullptr;
        return declared && declared->is_string() ? dialect_of(declared->get_string()) : dialect::draft_2020_12;
    }

    static bool annotation(std::string_view k) {
        static constexpr std::string_view names[] = {"$comment", "title",      "description", "default",
                                                     "examples", "deprecated", "readOnly",    "writeOnly"};
        return std::find(std::begin(names), std::end(names), k) != std::end(names);
    }

    [[noreturn]] static void fail(std::string const& where, std::string keyword, std::string detail) {
        throw schema_error{where, std::move(keyword), std::move(detail)};
    }

    static std::size_t count(json::value const& v, std::string const& where, std::string const& k) {
        if (v.is_int64() && v.get_int64() >= 0)
            return std::size_t(v.get_int64());
        if (v.is_uint64())
            return std::size_t(v.get_uint64());
        fail(where, k, "must be a non-negative integer");
    }

    static decimal number(json::value const& v, std::string const& where, std::string const& k) {
        if (!v.is_number())
            fail(where, k, "must be a number");
        auto digits = v.is_double()
                          ? internal::to_decimal(v.get_double())
                          : (v.is_int64() ? internal::to_decimal(v.get_int64()) : internal::to_decimal(v.get_uint64()));
        std::uint64_t m = 0;
        for (char c : digits.digits) {
            if (m > (UINT64_MAX - 9) / 10 && (m > UINT64_MAX / 10 || std::uint64_t(c - '0') > UINT64_MAX - m * 10))
                fail(where, k, "has more significant digits than agentrt keeps (up to 2^64)");
            m = m * 10 + std::uint64_t(c - '0');
        }
        decimal d(0);
        d.magnitude = m;
        d.exponent = digits.exponent;
        d.negative = digits.negative && m != 0;
        return d;
    }

    schema_node const* sub(json::value const& v, std::string const& where, std::string const& token) {
        return compile(v, where + "/" + internal::escape_pointer_token(token));
    }

    void keyword(schema_node& n, std::string const& k, json::value const& v, std::string const& where) {
        std::string here = where + "/" + internal::escape_pointer_token(k);
        constraints& c = n.keywords;
        if (k == "type")
            return types(n, v, where);
        if (k == "enum" || k == "const") {
            n.has_enum = true;
            n.is_const = k == "const";
            if (k == "const")
                n.enumeration = {v};
            else if (v.is_array() && !v.get_array().empty())
                n.enumeration.assign(v.get_array().begin(), v.get_array().end());
            else
                fail(where, k, "must be a non-empty array");
            return;
        }
        if (k == "properties") {
            if (!v.is_object())
                fail(where, k, "must be an object");
            for (auto const& kv : v.get_object())
                n.properties.push_back(property{std::string(kv.key()), sub(kv.value(), here, kv.key()), false});
            apply_required(n);
            return;
        }
        if (k == "required") {
            if (!v.is_array())
                fail(where, k, "must be an array of names");
            for (auto const& name : v.get_array()) {
                if (!name.is_string())
                    fail(where, k, "must be an array of names");
                required_.emplace(&n, std::string(name.get_string()));
            }
            apply_required(n);
            return;
        }
        if (k == "additionalProperties") {
            if (v.is_bool())
                n.additional = v.get_bool() ? extra_members::allowed : extra_members::forbidden;
            else {
                n.additional = extra_members::schema;
                n.additional_schema = compile(v, here);
            }
            return;
        }
        if (k == "minProperties")
            return void(n.min_properties = count(v, where, k));
        if (k == "maxProperties")
            return void(n.max_properties = count(v, where, k));
        if (k == "items") {
            if (v.is_array())
                fail(where, k, "an array of schemas (draft-07's tuple form) is not supported: use prefixItems");
            if (v.is_bool() && !v.get_bool())
                return void(n.closed_items = true); // a tuple: prefixItems and nothing more
            return void(n.items = compile(v, here));
        }
        if (k == "prefixItems") {
            if (!v.is_array())
                fail(where, k, "must be an array of schemas");
            for (std::size_t i = 0; i < v.get_array().size(); ++i)
                n.prefix_items.push_back(sub(v.get_array()[i], here, std::to_string(i)));
            return;
        }
        if (k == "minItems")
            return void(c.min_items = count(v, where, k));
        if (k == "maxItems")
            return void(c.max_items = count(v, where, k));
        if (k == "uniqueItems") {
            if (!v.is_bool())
                fail(where, k, "must be a boolean");
            return void(c.unique_items = v.get_bool());
        }
        if (k == "minLength")
            return void(c.min_length = count(v, where, k));
        if (k == "maxLength")
            return void(c.max_length = count(v, where, k));
        if (k == "pattern") {
            if (!v.is_string())
                fail(where, k, "must be a string");
            std::string p(v.get_string());
            if (auto problem = pattern_problem(p); !problem.empty())
                fail(where, k,
                     "\"" + p + "\" uses " + std::string(problem) +
                         ", outside the supported subset (see agentrt/catalog/pattern.hpp)");
            return void(n.pattern = p);
        }
        if (k == "minimum")
            return void(c.minimum = number(v, where, k));
        if (k == "maximum")
            return void(c.maximum = number(v, where, k));
        if (k == "exclusiveMinimum")
            return void(c.exclusive_minimum = number(v, where, k));
        if (k == "exclusiveMaximum")
            return void(c.exclusive_maximum = number(v, where, k));
        if (k == "multipleOf") {
            decimal d = number(v, where, k);
            if (d.negative || d.is_zero())
                fail(where, k, "must be a number above zero");
            return void(c.multiple_of = d);
        }
        if (k == "anyOf" || k == "oneOf" || k == "allOf") {
            if (!v.is_array() || v.get_array().empty())
                fail(where, k, "must be a non-empty array of schemas");
            auto& list = k == "anyOf" ? n.any_of : (k == "oneOf" ? n.one_of : n.all_of);
            for (std::size_t i = 0; i < v.get_array().size(); ++i)
                list.push_back(sub(v.get_array()[i], here, std::to_string(i)));
            return;
        }
        if (k == "$ref") {
            if (!v.is_string())
                fail(where, k, "must be a string");
            // A $ref beside other keywords applies both: the target joins allOf.
            auto& target = nodes_.emplace_back();
            refs_.push_back({&target, {std::string(v.get_string()), where}});
            n.all_of.push_back(&target);
            return;
        }
        if (k == "$defs" || k == "definitions") {
            if (!v.is_object())
                fail(where, k, "must be an object of schemas");
            for (auto const& kv : v.get_object())
                sub(kv.value(), here, kv.key());
            return;
        }
        if (k == "$schema") {
            if (!v.is_string() || dialect_of(v.get_string()) == dialect::unknown)
                fail(where, k, "only draft 2020-12 and draft-07 are supported");
            return;
        }
        if (k == "description" && v.is_string())
            return void(n.description = std::string(v.get_string()));
        if (annotation(k))
            return;
        fail(where, k, "keyword \"" + k + "\" is not supported, so it could be neither checked nor generated for");
    }

    void types(schema_node& n, json::value const& v, std::string const& where) {
        auto one = [&](json::value const& t) {
            auto const* known =
                std::find_if(std::begin(json_type::names), std::end(json_type::names),
                             [&](auto const& named) { return t.is_string() && t.get_string() == named.name; });
            if (known == std::end(json_type::names))
                fail(where, "type", "unknown type " + json::serialize(t));
            n.types |= known->bit;
        };
        if (v.is_array())
            for (auto const& t : v.get_array())
                one(t);
        else
            one(v);
    }

    void apply_required(schema_node& n) {
        auto [first, last] = required_.equal_range(&n);
        for (auto it = first; it != last; ++it)
            for (auto& p : n.properties)
                if (p.name == it->second)
                    p.required = true;
    }

public:
    // Required names not among the properties: members that must be present with any value.
    void close_required() {
        for (auto const& [node, name] : required_) {
            bool found = false;
            for (auto const& p : node->properties)
                found = found || p.name == name;
            if (!found) {
                auto& anything = nodes_.emplace_back();
                node->properties.push_back(property{name, &anything, true});
            }
        }
    }

private:
    schema_node const* resolve_ref(std::string const& ref, std::string const& where) {
        if (ref.empty() || ref[0] != '#')
            fail(where, "$ref", "only local references (\"#...\") are supported, got \"" + ref + "\"");
        json::value const* target = &root_;
        std::string pointer = ref.substr(1);
        if (!pointer.empty()) {
            json::error_code ec;
            target = root_.find_pointer(pointer, ec);
            if (!target)
                fail(where, "$ref", "\"" + ref + "\" points at nothing");
        }
        auto found = compiled_.find(target);
        if (found != compiled_.end())
            return found->second;
        // Compile the target once; a reference back into it (recursion) finds it in the map.
        auto& placeholder = nodes_.emplace_back();
        compiled_[target] = &placeholder;
        schema_node const* compiled = compile(*target, pointer);
        placeholder.ref = compiled;
        link_pending();
        return &placeholder;
    }

    void link_pending() {
        while (linked_ < refs_.size()) {
            auto [node, target] = refs_[linked_++];
            node->ref = resolve_ref(target.first, target.second);
        }
    }

public:
    void link_all() { link_pending(); }

    // A $ref that comes back to itself through allOf, anyOf or oneOf alone, without going into a
    // member or an item, would have the decoder check the same value for ever: refused.
    void refuse_cycles_in_place() {
        std::map<schema_node const*, std::string const*> ref_at;
        for (auto const& [node, target] : refs_)
            ref_at[node] = &target.second;
        std::map<schema_node const*, int> seen; // 1: on the path, 2: done
        std::vector<schema_node const*> path;
        auto visit = [&](auto& self, schema_node const* n) -> void {
            seen[n] = 1;
            path.push_back(n);
            auto next = [&](schema_node const* c) {
                if (!c)
                    return;
                if (seen[c] == 1) {
                    for (auto it = std::find(path.begin(), path.end(), c); it != path.end(); ++it)
                        if (auto at = ref_at.find(*it); at != ref_at.end())
                            fail(*at->second, "$ref",
                                 "refers back to itself through allOf, anyOf or oneOf without going into a member "
                                 "or an item, so no value could ever be checked against it: let the recursion go "
                                 "through "
                                 "properties or items, or remove the reference");
                } else if (seen[c] == 0) {
                    self(self, c);
                }
            };
            next(n->ref);
            for (auto const* list : {&n->all_of, &n->any_of, &n->one_of})
                for (auto const* c : *list)
                    next(c);
            path.pop_back();
            seen[n] = 2;
        };
        for (auto const& n : nodes_)
            if (seen[&n] == 0)
                visit(visit, &n);
    }

private:
    json::value const& root_;
    std::deque<schema_node>& nodes_;
    dialect dialect_;
    std::vector<std::pair<schema_node*, std::pair<std::string, std::string>>> refs_;
    std::size_t linked_ = 0;
    std::multimap<schema_node*, std::string> required_;
    std::map<json::value const*, schema_node const*> compiled_;
};

} // namespace

result<compiled_schema> compile_schema(json::value const& schema) {
    auto nodes = std::make_shared<std::deque<schema_node>>();
    try {
        compiler c(schema, *nodes);
        schema_node const* root = c.compile(schema, "");
        c.link_all();
        c.refuse_cycles_in_place();
        c.close_required();
        return compiled_schema(std::move(nodes), root);
    } catch (schema_error const& e) {
        error out;
        out.code = errc::invalid_schema;
        out.message =
            "the schema uses what agentrt cannot check: " + e.keyword + " at \"" + e.pointer + "\": " + e.detail;
        out.violations.push_back(violation{e.pointer, e.keyword, e.detail});
        return out;
    }
}

} // namespace agentrt
