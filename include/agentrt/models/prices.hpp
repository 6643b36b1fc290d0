// agentrt/models/prices.hpp — the providers' published prices, dated, for model_limits::prices.
//
//     options.models.prices = agentrt::published_prices();
//     options.models.prices["my-finetune"] = {.input_per_million = 3, .output_per_million = 15};
//     options.models.max_cost = 0.50; // a model missing from the table is refused, not free
//
// Prices change: the table says when it was read (published_prices_date), and a consumer that
// limits cost should set its own entries from the provider's page on the day.
#pragma once

#include <agentrt/runtime/model.hpp>

#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace agentrt {

inline constexpr std::string_view published_prices_date = "2025-08-01";

// US dollars per million tokens, standard (not batch) rates, keyed by the API's model name.
std::map<std::string, model_price, std::less<>> published_prices();

} // namespace agentrt
