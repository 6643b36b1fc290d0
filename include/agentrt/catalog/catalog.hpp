// agentrt/catalog/catalog.hpp — a compile-time list of tools, and typed policies over it.
//
//     using tools = agentrt::catalog<lookup_order, send_email, wipe_account>;
//     tools catalogue;                                  // or tools{lookup_order{db}, send_email{smtp}, ...}
//     agentrt::tool_table table = catalogue.table();
//     agentrt::evaluator policy = agentrt::lower_policy(mail_policy{}, catalogue);
//
// Names are checked at compile time (unique, 1–64 characters of [A-Za-z0-9_-]), and so is whether
// a policy decides every tool: a policy needs a call operator for each tool's argument type, or a
// fallback taking untyped_request. The table's entries share ownership of the tool objects.
#pragma once

#include <agentrt/catalog/decode.hpp>
#include <agentrt/catalog/policy.hpp>
#include <agentrt/catalog/reflect.hpp>
#include <agentrt/catalog/schema.hpp>
#include <agentrt/catalog/tool.hpp>
#include <agentrt/catalog/tool_table.hpp>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentrt {

// The decoded struct of accepted arguments when it is a T, else null.
template <class T>
T const* arguments_as(arguments const& a) noexcept {
    return a.type() == &type_info_of<T>() ? static_cast<T const*>(a.data()) : nullptr;
}

namespace catalog_detail {

// What a typed decode needs of an argument type besides its type_info: making and deleting one.
struct argument_lifetime {
    void* (*create)();
    void (*destroy)(void const*);
};

template <class T>
void delete_as(void const* object) {
    delete static_cast<T const*>(object);
}

template <class Args>
struct lifetime_of {
    static void* create() { return new Args(); }
    static constexpr argument_lifetime value{&create, &delete_as<Args>};
};

// A typed tool as the library's compiled code takes it: constants, and the tool object in the
// catalogue's holder. The table is built from these in catalog.cpp, so a consumer's translation
// unit instantiates no std::function, shared_ptr or tool_entry per tool, only three small functions.
struct typed_tool {
    std::size_t catalogue_index;
    std::string_view name;
    std::string_view description;
    side_effect effect;
    std::chrono::milliseconds timeout;
    bool terminal;
    type_info const* argument_type;
    argument_lifetime const* lifetime;
    tool_result (*invoke)(void* tool, void const* args, call_context const& context);
    void* tool;
};

tool_table typed_table(std::span<typed_tool const> tools, std::shared_ptr<void> holder);

// The tools of a catalogue side by side: a flat aggregate of one slot per tool, where a
// std::tuple would nest a level per tool and weigh each level's constructors.
template <class Tool>
struct tool_slot {
    Tool tool;
};

template <class... Tools>
struct tool_slots : tool_slot<Tools>... {
    tool_slots() = default;
    explicit tool_slots(Tools... tools) : tool_slot<Tools>{std::move(tools)}... {}

    template <class Tool>
    Tool& get() noexcept {
        return static_cast<tool_slot<Tool>&>(*this).tool;
    }
};

template <class Tool>
tool_result invoke_tool(void* tool, void const* args, call_context const& context) {
    return (*static_cast<Tool*>(tool))(*static_cast<typename Tool::arguments const*>(args), context);
}

// One static_assert per requirement of the tool concept, so that the compiler says which one a
// tool misses; the instantiation notes name the tool.
template <class Tool>
struct tool_check {
    static_assert(has_tool_name<Tool>, "agentrt: a tool needs `static constexpr std::string_view name`");
    static_assert(has_tool_description<Tool>, "agentrt: a tool needs `static constexpr std::string_view description`");
    static_assert(has_side_effect_class<Tool>, "agentrt: a tool needs `static constexpr agentrt::side_effect effect`");
    static_assert(has_timeout<Tool>, "agentrt: a tool needs `static constexpr std::chrono::milliseconds timeout`");
    static_assert(has_arguments_type<Tool>, "agentrt: a tool needs `using arguments = <its argument struct>;`");
    static_assert(callable_with_its_arguments<Tool>,
                  "agentrt: a tool needs `agentrt::tool_result operator()(arguments const&, agentrt::call_context "
                  "const&)`");
    static constexpr bool value = tool<Tool>;
};

template <class Tool>
struct name_check {
    static_assert(valid_tool_name(Tool::name),
                  "agentrt: a tool name must be 1 to 64 characters of [A-Za-z0-9_-]; the notes name the tool");
    static constexpr bool value = true;
};

template <std::size_t N>
constexpr bool unique(std::array<std::string_view, N> const& names) {
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = i + 1; j < N; ++j)
            if (names[i] == names[j])
                return false;
    return true;
}

} // namespace catalog_detail

template <class... Tools>
class catalog {
public:
    static constexpr std::size_t size = sizeof...(Tools);
    static_assert(size > 0, "agentrt: a catalogue needs at least one tool");
    static_assert((catalog_detail::tool_check<Tools>::value && ...));
    static constexpr std::array<std::string_view, size> names{std::string_view(Tools::name)...};
    static_assert((catalog_detail::name_check<Tools>::value && ...));
    static_assert(catalog_detail::unique(names), "agentrt: two tools of a catalogue have the same name");

    catalog() requires(std::default_initializable<Tools>&&...) : tools_(std::make_shared<slots>()) {}
    explicit catalog(Tools... tools) : tools_(std::make_shared<slots>(std::move(tools)...)) {}

    static constexpr std::optional<std::size_t> index_of(std::string_view name) noexcept {
        for (std::size_t i = 0; i < size; ++i)
            if (names[i] == name)
                return i;
        return std::nullopt;
    }

    template <class Tool>
    Tool& get() noexcept {
        return tools_->template get<Tool>();
    }

    tool_table table() const {
        return [this]<std::size_t... Index>(std::index_sequence<Index...>) {
            catalog_detail::typed_tool const tools[] = {typed<Tools>(Index)...};
            return catalog_detail::typed_table(tools, tools_);
        }
        (std::index_sequence_for<Tools...>{});
    }

private:
    template <class Tool>
    catalog_detail::typed_tool typed(std::size_t index) const {
        using args = typename Tool::arguments;
        return {index,
                Tool::name,
                Tool::description,
                Tool::effect,
                std::chrono::milliseconds(Tool::timeout),
                is_terminal<Tool>(),
                &type_info_of<args>(),
                &catalog_detail::lifetime_of<args>::value,
                &catalog_detail::invoke_tool<Tool>,
                &tools_->template get<Tool>()};
    }

    using slots = catalog_detail::tool_slots<Tools...>;
    std::shared_ptr<slots> tools_;
};

template <class Policy>
concept has_identity = requires {
    { Policy::identity } -> std::convertible_to<std::string_view>;
};

template <class Policy>
concept has_fallback = requires(Policy const& p, untyped_request const& r, run_view const& v) {
    { p(r, v) } -> std::convertible_to<verdict>;
};

template <class Policy, class Args>
concept decides_arguments = requires(Policy const& p, Args const& a, run_view const& v) {
    { p(a, v) } -> std::convertible_to<verdict>;
};

template <class Policy, class Tool>
concept decides = decides_arguments<Policy, typename Tool::arguments> || has_fallback<Policy>;

template <class Policy, class Catalog>
inline constexpr bool covers = false;
template <class Policy, class... Tools>
inline constexpr bool covers<Policy, catalog<Tools...>> = (decides<Policy, Tools> && ...);

namespace catalog_detail {

template <class Policy, class Tool>
struct coverage_check {
    static_assert(decides<Policy, Tool>,
                  "agentrt: the policy does not decide this tool: give it "
                  "`verdict operator()(Args const&, run_view const&) const` for the tool's arguments, "
                  "or a fallback `verdict operator()(untyped_request const&, run_view const&) const`; "
                  "the notes name the tool");
    static constexpr bool value = true;
};

// The rule for one tool: the policy's own for its arguments, else its fallback.
template <class Policy, class Tool>
verdict decide_as(Policy const& policy, tool_entry const& tool, arguments const& a, run_view const& view) {
    using args = typename Tool::arguments;
    if constexpr (decides_arguments<Policy, args>)
        return policy(*static_cast<args const*>(a.data()), view);
    else
        return policy(untyped_request{tool.name, tool.effect, a.json()}, view);
}

// Each tool's rule and argument type, by the tool's place in the catalogue.
template <class Policy, class... Tools>
struct rule_table {
    using rule = verdict (*)(Policy const&, tool_entry const&, arguments const&, run_view const&);
    static constexpr rule rules[] = {&decide_as<Policy, Tools>...};

    static type_info const* type_at(std::size_t index) noexcept {
        static type_info const* const types[] = {&type_info_of<typename Tools::arguments>()...};
        return types[index];
    }
};

template <class Policy, class Tool>
bool try_decide(Policy const& policy, arguments const& a, run_view const& view, verdict& out) {
    using args = typename Tool::arguments;
    if constexpr (decides_arguments<Policy, args>) {
        if (auto const* typed = arguments_as<args>(a)) {
            out = policy(*typed, view);
            return true;
        }
    }
    return false;
}

template <class Policy, class... Tools>
verdict decide_with(void const* erased, tool_entry const& tool, arguments const& a, run_view const& view) {
    auto const& policy = *static_cast<Policy const*>(erased);
    using table = rule_table<Policy, Tools...>;
    // By the tool's place in the catalogue: one comparison and one call, whatever its size.
    if (std::size_t i = tool.catalogue_index; i < sizeof...(Tools) && a.type() == table::type_at(i))
        return table::rules[i](policy, tool, a, view);
    verdict out; // an entry made elsewhere with a typed tool's arguments: found by their type
    if (a.type() && (try_decide<Policy, Tools>(policy, a, view, out) || ...))
        return out;
    if constexpr (has_fallback<Policy>)
        return policy(untyped_request{tool.name, tool.effect, a.json()}, view);
    else
        return deny("policy " + std::string(Policy::identity) + " has no rule for tool " + tool.name);
}

} // namespace catalog_detail

// Lowers a typed policy against a catalogue into an evaluator over its tool table. Tools of the
// table that the catalogue does not type (schemas known at run time) go to the fallback, or are
// denied when the policy has none.
template <class Policy, class... Tools>
evaluator lower_policy(Policy policy, catalog<Tools...> const&) {
    static_assert(has_identity<Policy>,
                  "agentrt: a policy needs `static constexpr std::string_view identity`, recorded with "
                  "each of its verdicts so that a run can be re-checked");
    static_assert((catalog_detail::coverage_check<Policy, Tools>::value && ...));
    void const* held = new Policy(std::move(policy));
    return evaluator(std::string(Policy::identity),
                     std::shared_ptr<void const>(held, &catalog_detail::delete_as<Policy>),
                     &catalog_detail::decide_with<Policy, Tools...>);
}

} // namespace agentrt
