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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt {

// Larger inputs are refused before anything is stored.
inline constexpr std::size_t max_goal_bytes = std::size_t{64} << 10;
inline constexpr std::size_t max_decision_bytes = std::size_t{1} << 20;

// A tool call a model asked for in the same reply after the one that runs: recorded, never run.
struct ignored_call {
    std::string tool;
    std::string arguments;
};

struct decision {
    decision_kind kind = decision_kind::fail;
    std::string tool;
    std::string arguments; // JSON text, as sent
    // The answer of complete, the reason of fail; for a call, the text the model sent with it.
    std::string summary;
    std::vector<ignored_call> ignored;

    static decision call(std::string tool, std::string arguments, std::vector<ignored_call> ignored = {});
    static decision complete(std::string summary);
    static decision fail(std::string reason);

    // The verbatim record, canonical JSON:
    // {"arguments":"<text>","ignored":[{"arguments":...,"tool":...}],"ignored_calls":n,"kind":...,"summary":...,"tool":...}
    // where "ignored" is there only when a call was ignored, so records from before it read the same.
    std::string to_text() const;
    // What to_text wrote, read back; nullopt for a text that is not a decision's.
    static std::optional<decision> from_text(std::string_view text);
    std::size_t size() const noexcept;
};

} // namespace agentrt
