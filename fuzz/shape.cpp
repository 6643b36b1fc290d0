#include <agentrt/fuzz/shape.hpp>

#include <map>
#include <mutex>

namespace agentrt::fuzz {
namespace {

namespace json = boost::json;

class lowerer {
public:
    explicit lowerer(std::deque<shape_node>& nodes) : nodes_(nodes) {}

    shape_node const* lower(type_info const& t) {
        if (t.kind == type_kind::optional)
            return lower(*t.element);
        auto& n = nodes_.emplace_back();
        n.typed = true;
        n.keywords = t.keywords;
        n.keywords.pattern = {};
        n.pattern = std::string(t.keywords.pattern);
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
                n.properties.push_back(property{std::string(m.name), lower(*m.type), m.required});
            break;
        case type_kind::array:
            n.types = json_type::array;
            n.items = lower(*t.element);
            break;
        case type_kind::map:
            // The decoder reads item counts of a map nowhere, so the shape carries none either.
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
    std::deque<shape_node>& nodes_;
};

} // namespace

shape shape_of(type_info const& type) {
    static std::mutex guard;
    static std::map<type_info const*, shape> cache;
    std::lock_guard lock(guard);
    if (auto found = cache.find(&type); found != cache.end())
        return found->second;
    auto nodes = std::make_shared<std::deque<shape_node>>();
    shape_node const* root = lowerer(*nodes).lower(type);
    shape s(std::move(nodes), root);
    cache.emplace(&type, s);
    return s;
}

shape_node const& resolve(shape_node const& node) noexcept {
    shape_node const* n = &node;
    for (int hops = 0; n->ref && hops < 64; ++hops)
        n = n->ref;
    return *n;
}

} // namespace agentrt::fuzz
