// agentrt/models/openai.hpp — a client of OpenAI's Chat Completions API, and of the servers that speak it.
//
//     agentrt::openai_model model;  // https://api.openai.com/v1, key from OPENAI_API_KEY
//     agentrt::openai_model local({.base_url = "http://127.0.0.1:11434/v1", .api_key_variable = ""}); // Ollama
//
// The request streams (`data:` chunks whose tool_calls deltas are keyed by index, usage in the last
// chunk, then `data: [DONE]`); a stream that ends before [DONE], or carries an error, is cut_off.
// Statuses 429 and 5xx are transient, with retry-after; other statuses are permanent. OpenAI has no
// error flag on a tool result: an error result's content is sent prefixed with "error: ".
#pragma once

#include <agentrt/models/http_model.hpp>

#include <string>

namespace agentrt {

struct openai_options {
    std::string base_url = "https://api.openai.com/v1"; // requests go to base_url + "/chat/completions"
    std::string api_key_variable = "OPENAI_API_KEY";
    // The output cap's key: "max_tokens" is what compatible servers read; OpenAI's newer models
    // want "max_completion_tokens".
    std::string max_tokens_key = "max_tokens";
    bool stream = true;
    std::size_t max_body_bytes = default_max_body_bytes;
};

class openai_model final : public http_model {
public:
    explicit openai_model(openai_options options = {});

    model_result read(http_reply const& reply) const override;
    std::string body_of(model_request const& request) const override;

private:
    openai_options options_;
};

} // namespace agentrt
