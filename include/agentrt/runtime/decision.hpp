// agentrt/runtime/decision.hpp — what an agent decides for one step, and the bounds on it.
//
//     agentrt::decision::call("lookup_order", R"({"order_id":"ord-1"})")
//     agentrt::decision::complete("the order has shipped")
//
// Arguments stay the text the model sent: the runtime records it verbatim before validating it.
#pragma once

#include <agentrt/runtime/records.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace agentrt {

// Larger inputs are refused before anything is stored.
inline constexpr std::size_t max_goal_bytes = std::size_t{64} << 10;
inline constexpr std::size_t max_decision_bytes = std::size_t{1} << 20;

struct decision {
    decision_kind kind = decision_kind::fail;
    std::string tool;
    std::string arguments;           // JSON text, as sent
    std::string summary;             // the answer of complete, the reason of fail
    std::uint64_t ignored_calls = 0; // further tool calls in the same model reply: noted, never run

    static decision call(std::string tool, std::string arguments, std::uint64_t ignored_calls = 0);
    static decision complete(std::string summary);
    static decision fail(std::string reason);

    // The verbatim record: {"kind":...,"tool":...,"arguments":"<text>","summary":...,"ignored_calls":n}
    std::string to_text() const;
    std::size_t size() const noexcept { return tool.size() + arguments.size() + summary.size(); }
};

} // namespace agentrt
