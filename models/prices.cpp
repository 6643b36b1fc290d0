#include <agentrt/models/prices.hpp>

namespace agentrt {

// Anthropic: https://docs.anthropic.com/en/docs/about-claude/pricing (cache reads 0.1x input,
// 5-minute cache writes 1.25x). OpenAI: https://openai.com/api/pricing (cached input as listed).
std::map<std::string, model_price, std::less<>> published_prices() {
    return {
        {"claude-opus-4-1", {15.00, 75.00, 1.50, 18.75}},
        {"claude-opus-4-0", {15.00, 75.00, 1.50, 18.75}},
        {"claude-sonnet-4-0", {3.00, 15.00, 0.30, 3.75}},
        {"claude-3-7-sonnet-latest", {3.00, 15.00, 0.30, 3.75}},
        {"claude-3-5-haiku-latest", {0.80, 4.00, 0.08, 1.00}},
        {"gpt-4.1", {2.00, 8.00, 0.50, 0}},
        {"gpt-4.1-mini", {0.40, 1.60, 0.10, 0}},
        {"gpt-4.1-nano", {0.10, 0.40, 0.025, 0}},
        {"gpt-4o", {2.50, 10.00, 1.25, 0}},
        {"gpt-4o-mini", {0.15, 0.60, 0.075, 0}},
        {"o4-mini", {1.10, 4.40, 0.275, 0}},
        {"o3", {2.00, 8.00, 0.50, 0}},
    };
}

} // namespace agentrt
