// Reflected types lowered into schema nodes, once per type.
#include <agentrt/catalog/compiled_schema.hpp>

#include <map>
#include <mutex>

namespace agentrt {
namespace {

namespace json = boost::json;

class lowerer {
public:
    explicit lowerer(std::deque<schema_node>& nodes) : nodes_(nodes) {}

    schema_node const* lower(type_info const& t) {
        if (t.kind == type_kind::optional) // a member that may be absent: the property says so
            return lower(*t.element);
        auto& n = nodes_.emplace_back();
        n.type = &t;
        n.keywords = t.keywords;
        n.keywords.pattern = {};
        n.keywords.description = {};
        n.pattern = std::string(t.keywords.pattern);
        n.description = std::string(t.keywords.description);
        switch (t.kind) {
        case type_kind::boolean:
            n.types = json_type::boolean;
            break;
        case type_kind::integer:
            n.types = json_type::integer;
            break;
        case type_kind::number:
            n.types = json_type::number;
            break;
        case type_kind::string:
            n.types = json_type::string;
            break;
        case type_kind::enumeration:
            n.types = json_type::string;
            n.has_enum = true;
            for (auto const& e : t.enumerators)
                n.enumeration.emplace_back(json::string(e.name));
            break;
        case type_kind::tag:
            n.types = json_type::string;
            n.has_enum = n.is_const = true;
            n.enumeration.emplace_back(json::string(t.constant));
            break;
        case type_kind::object:
            n.types = json_type::object;
            n.additional = extra_members::forbidden;
            for (auto const& m : t.members)
                n.properties.push_back(property{std::string(m.name), lower(*m.type), m.required, &m});
            break;
        case type_kind::array:
            n.types = json_type::array;
            n.items = lower(*t.element);
            break;
        case type_kind::map:
            n.types = json_type::object;
            n.keywords.min_items = n.keywords.max_items = std::nullopt;
            n.keywords.unique_items = false;
            n.additional = extra_members::schema;
            n.additional_schema = lower(*t.element);
            break;
        case type_kind::variant:
            n.types = json_type::object;
            for (auto const* alternative : t.alternatives)
                n.one_of.push_back(lower(*alternative));
            break;
        case type_kind::optional:
            break;
        }
        return &n;
    }

private:
    std::deque<schema_node>& nodes_;
};

} // namespace

compiled_schema const& lowered(type_info const& type) {
    // decode_into(type_info) asks on every call: the last answer of this thread needs no lock.
    thread_local type_info const* last_type = nullptr;
    thread_local compiled_schema const* last = nullptr;
    if (last_type == &type)
        return *last;
    static std::mutex guard;
    static std::map<type_info const*, compiled_schema> cache; // nodes of a map never move
    std::lock_guard lock(guard);
    auto found = cache.find(&type);
    if (found == cache.end()) {
        auto nodes = std::make_shared<std::deque<schema_node>>();
        schema_node const* root = lowerer(*nodes).lower(type);
        found = cache.emplace(&type, compiled_schema(std::move(nodes), root)).first;
    }
    last_type = &type;
    last = &found->second;
    return *last;
}

schema_node const& resolve(schema_node const& node) noexcept {
    schema_node const* n = &node;
    for (int hops = 0; n->ref && hops < 64; ++hops)
        n = n->ref;
    return *n;
}

} // namespace agentrt
