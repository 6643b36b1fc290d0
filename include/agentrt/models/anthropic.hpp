// agentrt/models/anthropic.hpp — a client of Anthropic's Messages API (https://docs.anthropic.com/en/api/messages).
//
//     agentrt::anthropic_model model;  // https://api.anthropic.com, key from ANTHROPIC_API_KEY
//     agentrt::chat_agent agent(model, table, {.model = "claude-sonnet-4-0"});
//
// The request streams (server-sent events: message_start, content_block_start/_delta/_stop with
// text and input_json_delta fragments, message_delta with the stop reason and usage, message_stop);
// a stream that ends before message_stop, or carries an error event, is cut_off. Statuses 429, 5xx
// and 529 (overloaded) are transient, with retry-after; other statuses are permanent.
#pragma once

#include <agentrt/models/http_model.hpp>

#include <string>

namespace agentrt {

struct anthropic_options {
    std::string base_url = "https://api.anthropic.com"; // requests go to base_url + "/v1/messages"
    std::string api_key_variable = "ANTHROPIC_API_KEY";
    std::string version = "2023-06-01"; // the anthropic-version header
    bool stream = true;
    std::size_t max_body_bytes = default_max_body_bytes;
};

class anthropic_model final : public http_model {
public:
    explicit anthropic_model(anthropic_options options = {});

    model_result read(http_reply const& reply) const override;
    std::string body_of(model_request const& request) const override;

private:
    anthropic_options options_;
};

} // namespace agentrt
