// agentrt/testkit/fake_provider.hpp — a model provider's HTTP API on a loopback port, serving a script.
//
//     using agentrt::testkit::provider_reply;
//     agentrt::testkit::fake_provider server(agentrt::testkit::wire_format::anthropic,
//                                            {provider_reply::fault("overloaded"),
//                                             provider_reply::call("lookup_order", R"({"order_id":"ord-1"})"),
//                                             provider_reply::text("It has shipped.")});
//     agentrt::anthropic_model model({.base_url = server.base_url(), .api_key_variable = ""});
//
// A real HTTP server (Boost.Beast) on 127.0.0.1 that speaks the provider's wire format as its
// documentation has it. Anthropic's Messages API streams message_start, ping, content_block_start,
// content_block_delta (text_delta, and input_json_delta fragments that split the arguments' JSON at
// arbitrary places), content_block_stop, message_delta with the stop reason and usage, and
// message_stop. OpenAI's Chat Completions API streams chunks whose tool_calls deltas are keyed by
// index, usage in a last chunk without choices, then `data: [DONE]`. A non-streaming request gets
// the whole message as JSON.
//
// Each request takes the next reply of the script. Before that the request is checked as the
// provider checks it (the path, the version header and key, the body's shape, roles that
// alternate, each tool result answering a call of the message before): a request the provider
// would refuse gets its 400 and does not take a reply. A request past the script gets a 400 naming it.
#pragma once

#include <agentrt/testkit/fake_model.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::testkit {

enum class wire_format { anthropic, openai };

class provider_reply {
public:
    // --- replies ---
    static provider_reply text(std::string text);
    static provider_reply call(std::string tool, std::string arguments);
    // Several calls in one reply, after `text` (none when empty).
    static provider_reply calls(std::vector<scripted_call> calls, std::string text = {});
    // Exactly these bytes with this status and these "name: value" headers: a recorded reply.
    static provider_reply raw(int status, std::string body, std::vector<std::string> headers = {});

    // --- faults, each also by name through fault() ---
    static provider_reply rate_limited(std::chrono::seconds retry_after = std::chrono::seconds(1)); // 429
    static provider_reply server_error();                                                           // 500
    static provider_reply overloaded();     // Anthropic's 529; 503 on OpenAI's wire
    static provider_reply cut_mid_event();  // the connection closes in the middle of an event
    static provider_reply malformed_json(); // an event whose data is not JSON
    static provider_reply error_event();    // an error event in the middle of the stream
    static provider_reply invalid_arguments(std::string tool = "lookup_order", std::string bytes = R"({"order_id":)");
    static provider_reply unknown_tool(std::string tool = "no_such_tool");
    // The head of a stream, then nothing for `length` (or until the client goes away or the server stops).
    static provider_reply stall(std::chrono::milliseconds length = std::chrono::seconds(30));
    // "rate_limited", "server_error", "overloaded", "cut_mid_event", "malformed_json", "error_event",
    // "invalid_arguments", "unknown_tool" or "stall"; throws std::invalid_argument listing them for
    // another name.
    static provider_reply fault(std::string_view name);
    static std::vector<std::string_view> const& fault_names();

    [[nodiscard]] provider_reply with_usage(std::uint64_t input, std::uint64_t output, std::uint64_t cache_read = 0,
                                            std::uint64_t cache_write = 0) const;

    std::string_view kind() const noexcept { return kind_; }

private:
    friend class fake_provider;
    explicit provider_reply(std::string_view kind) : kind_(kind) {}

    std::string_view kind_;
    std::string text_;
    std::vector<scripted_call> calls_;
    int status_ = 200;
    std::string body_; // raw
    std::vector<std::string> headers_;
    std::chrono::milliseconds stall_{0};
    std::uint64_t input_tokens_ = 120, output_tokens_ = 30, cache_read_ = 0, cache_write_ = 0;
};

// One request as the server received it.
struct received_request {
    std::string method;
    std::string target;
    std::map<std::string, std::string> headers; // names in lower case
    std::string body;
    int status = 0;      // what the server answered
    std::string refused; // why the server refused the request, when it did
    std::string sent;    // the response's bytes as written, head included
};

struct fake_provider_options {
    // When set, a request that does not carry this key (x-api-key, or authorization: Bearer) gets 401.
    std::string expected_key;
};

class fake_provider {
public:
    fake_provider(wire_format wire, std::vector<provider_reply> script, fake_provider_options options = {});
    ~fake_provider(); // stops serving, ending any stall
    fake_provider(fake_provider const&) = delete;
    fake_provider& operator=(fake_provider const&) = delete;

    // The base URL a client is given: "http://127.0.0.1:<port>" for Anthropic's wire (the client adds
    // /v1/messages), "http://127.0.0.1:<port>/v1" for OpenAI's (the client adds /chat/completions).
    std::string base_url() const;
    std::uint16_t port() const noexcept;

    std::vector<received_request> requests() const; // a copy, in arrival order
    std::size_t remaining() const;                  // replies not yet served

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace agentrt::testkit
