// agentrt/catalog/tool.hpp — what a tool is: a named, typed operation with a side-effect class.
//
//     struct send_email {
//         static constexpr std::string_view name = "send_email";
//         static constexpr std::string_view description = "Send an email to one recipient.";
//         static constexpr agentrt::side_effect effect = agentrt::side_effect::remote_mutation;
//         static constexpr std::chrono::milliseconds timeout{5000};
//         using arguments = send_args;
//         agentrt::tool_result operator()(send_args const& a, agentrt::call_context const& c);
//     };
//
// `static constexpr bool terminal = true;` marks a tool whose success completes the run.
// The header a consumer includes to declare tools: it pulls in Hana's and Describe's macros and
// nothing of the runtime, LMDB or RapidCheck.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/catalog/field.hpp>

#include <boost/describe/enum.hpp>
#include <boost/hana/adapt_struct.hpp>
#include <boost/hana/define_struct.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <concepts>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

namespace agentrt {

// `unknown` is for a tool nobody has classified (an MCP tool missing from the operator's file): the
// class table denies it.
enum class side_effect : std::uint8_t { read_only, local_mutation, remote_mutation, destructive, unknown };

std::string_view to_string(side_effect effect) noexcept;
std::optional<side_effect> parse_side_effect(std::string_view text) noexcept;

// What a tool knows of the call it serves. The idempotency key is the same for every attempt of
// one request, so a remote service or a reconcile hook can recognise a repeat.
struct call_context {
    std::string_view run_id;
    std::string_view step_id;
    std::uint64_t step_index = 0;
    std::uint32_t attempt = 1;
    std::string_view idempotency_key;
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    std::stop_token stop;
};

struct tool_output {
    boost::json::value content;
    std::string summary; // one line for logs and operators
};

using tool_result = result<tool_output>;

// A failure the tool reports itself (a tool error, not a broken invariant).
error tool_error(std::string message);

template <class T>
concept has_tool_name = requires {
    { T::name } -> std::convertible_to<std::string_view>;
};
template <class T>
concept has_tool_description = requires {
    { T::description } -> std::convertible_to<std::string_view>;
};
template <class T>
concept has_side_effect_class = requires {
    { T::effect } -> std::convertible_to<side_effect>;
};
template <class T>
concept has_timeout = requires {
    { T::timeout } -> std::convertible_to<std::chrono::milliseconds>;
};
template <class T>
concept has_arguments_type = requires {
    typename T::arguments;
};
template <class T>
concept callable_with_its_arguments = has_arguments_type<T> &&
    requires(T& t, typename T::arguments const& a, call_context const& c) {
    { t(a, c) } -> std::convertible_to<tool_result>;
};

// Each requirement is its own concept, so a compiler names the one a tool misses.
template <class T>
concept tool = has_tool_name<T> && has_tool_description<T> && has_side_effect_class<T> && has_timeout<T> &&
    has_arguments_type<T> && callable_with_its_arguments<T>;

template <tool T>
constexpr bool is_terminal() noexcept {
    if constexpr (requires {
                      { T::terminal } -> std::convertible_to<bool>;
                  })
        return T::terminal;
    else
        return false;
}

// Tool names: 1 to 64 characters of [A-Za-z0-9_-], as model providers accept them.
constexpr bool valid_tool_name(std::string_view name) noexcept {
    if (name.empty() || name.size() > 64)
        return false;
    for (char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    return true;
}

} // namespace agentrt
