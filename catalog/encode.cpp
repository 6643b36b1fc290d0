#include <agentrt/catalog/decode.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>

namespace agentrt {
namespace {

namespace json = boost::json;

std::int64_t load_signed(void const* p, std::size_t size) {
    switch (size) {
    case 1:
        return *static_cast<std::int8_t const*>(p);
    case 2:
        return *static_cast<std::int16_t const*>(p);
    case 4:
        return *static_cast<std::int32_t const*>(p);
    default:
        return *static_cast<std::int64_t const*>(p);
    }
}

std::uint64_t load_unsigned(void const* p, std::size_t size) {
    switch (size) {
    case 1:
        return *static_cast<std::uint8_t const*>(p);
    case 2:
        return *static_cast<std::uint16_t const*>(p);
    case 4:
        return *static_cast<std::uint32_t const*>(p);
    default:
        return *static_cast<std::uint64_t const*>(p);
    }
}

} // namespace

json::value encode(type_info const& t, void const* p) {
    switch (t.kind) {
    case type_kind::boolean:
        return *static_cast<bool const*>(p);
    case type_kind::integer:
        if (t.is_signed)
            return load_signed(p, t.size);
        return load_unsigned(p, t.size);
    case type_kind::number:
        if (t.size == 4)
            return double(*static_cast<float const*>(p));
        return *static_cast<double const*>(p);
    case type_kind::string:
        return json::string(*static_cast<std::string const*>(p));
    case type_kind::enumeration: {
        std::int64_t value = t.is_signed ? load_signed(p, t.size) : std::int64_t(load_unsigned(p, t.size));
        for (auto const& e : t.enumerators)
            if (e.value == value)
                return json::string(e.name);
        throw std::invalid_argument("agentrt: enum value " + std::to_string(value) +
                                    " is not among the described enumerators");
    }
    case type_kind::tag:
        return json::string(t.constant);
    case type_kind::object: {
        json::object o;
        for (auto const& m : t.members) {
            void const* member = m.cget(p);
            if (m.type->kind == type_kind::optional) {
                member = m.type->ops.value(member);
                if (!member)
                    continue;
                o[m.name] = encode(*m.type->element, member);
            } else
                o[m.name] = encode(*m.type, member);
        }
        return o;
    }
    case type_kind::array: {
        json::array a;
        std::size_t n = t.ops.size(p);
        a.reserve(n);
        for (std::size_t i = 0; i < n; ++i)
            a.push_back(encode(*t.element, t.ops.at(p, i)));
        return a;
    }
    case type_kind::map: {
        json::object o;
        struct context {
            json::object* out;
            type_info const* element;
        } c{&o, t.element};
        t.ops.visit(p, &c, [](void* raw, std::string_view key, void const* value) {
            auto* ctx = static_cast<context*>(raw);
            (*ctx->out)[key] = encode(*ctx->element, value);
        });
        return o;
    }
    case type_kind::optional: {
        void const* value = t.ops.value(p);
        return value ? encode(*t.element, value) : json::value(nullptr);
    }
    case type_kind::variant:
        return encode(*t.alternatives[t.ops.index(p)], t.ops.alternative(p));
    }
    return nullptr;
}

} // namespace agentrt
