#include <agentrt/runtime/events.hpp>

#include <boost/describe/enumerators.hpp>
#include <boost/mp11/algorithm.hpp>

#include <array>
#include <string>

namespace agentrt {
namespace {

using described = boost::describe::describe_enumerators<event_type>;
constexpr std::size_t type_count = boost::mp11::mp_size<described>::value;

// The stored names, from the enumerators: the first '_' becomes '.'.
std::array<std::string, type_count> const& names() {
    static auto const table = [] {
        std::array<std::string, type_count> out;
        boost::mp11::mp_for_each<described>([&](auto d) {
            std::string name = d.name;
            name[name.find('_')] = '.';
            out[static_cast<std::size_t>(d.value)] = std::move(name);
        });
        return out;
    }();
    return table;
}

} // namespace

std::string_view to_string(event_type t) noexcept {
    return names()[static_cast<std::size_t>(t)];
}

std::optional<event_type> event_type_named(std::string_view name) noexcept {
    auto const& all = names();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i] == name)
            return static_cast<event_type>(i);
    return std::nullopt;
}

} // namespace agentrt
