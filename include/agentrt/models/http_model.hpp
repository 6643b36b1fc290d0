// agentrt/models/http_model.hpp — what the provider clients share: one HTTP exchange per call, over libcurl.
//
//     agentrt::anthropic_model model;                   // ANTHROPIC_API_KEY from the environment
//     agentrt::http_reply raw = model.exchange(request, context); // what a transcript keeps
//     agentrt::model_result reply = model.read(raw);    // what complete() returns
//
// complete() is exchange() then read(). The exchange POSTs the provider's request body with a
// timeout from the call's deadline; the call's stop token aborts the transfer; redirects are not
// followed; a body past `max_body_bytes` is refused. The API key is read from the environment when
// the client is made, is sent only over HTTPS or to a loopback address (never through a proxy), and
// never appears in an error, a record or a transcript: every message the client makes has it redacted.
#pragma once

#include <agentrt/runtime/model.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt {

inline constexpr std::size_t default_max_body_bytes = std::size_t{16} << 20;

// One exchange as it came back, before it is read as a reply.
struct http_reply {
    long status = 0;  // 0: no HTTP response arrived
    std::string body; // the raw bytes, as sent
    std::optional<std::chrono::milliseconds> retry_after;
    std::string location;        // of a redirect, which is never followed
    std::string transport_error; // empty when the transfer completed; redacted
    // How a transport error counts: transient when the request never left (the call cannot have
    // been charged), cut_off once it had, permanent for a TLS failure or the body cap.
    model_failure transport_failure = model_failure::transient;
};

struct http_endpoint {
    std::string url;                  // the full URL the request is POSTed to
    std::string api_key_variable;     // the environment variable holding the key; "" for none
    std::string key_header;           // "x-api-key", or "authorization" for a bearer token
    std::string key_prefix;           // "" or "Bearer "
    std::vector<std::string> headers; // further "name: value" lines
    std::size_t max_body_bytes = default_max_body_bytes;
    std::chrono::milliseconds connect_timeout{10'000};
};

class http_model : public model {
public:
    model_result complete(model_request const& request, model_call_context const& context) final;

    // Sends the request and returns what came back, whatever it is.
    http_reply exchange(model_request const& request, model_call_context const& context) const;
    // Reads an exchange's reply as the provider's wire format has it.
    virtual model_result read(http_reply const& reply) const = 0;
    // The provider's request body for `request`.
    virtual std::string body_of(model_request const& request) const = 0;

    std::string const& url() const noexcept { return endpoint_.url; }
    // `text` with the API key replaced by "[redacted]".
    std::string redacted(std::string text) const;

protected:
    // Throws std::invalid_argument when the URL is not http(s), the key's variable is unset or
    // empty, or a key would go over plain HTTP to an address that is not loopback.
    explicit http_model(http_endpoint endpoint);

    // The status part of every reply: a transport error, a redirect, a failure status; nullopt for a
    // success (2xx), whose body the provider reads.
    std::optional<model_error> failure_of(http_reply const& reply, std::string_view provider) const;

    // A success's body read with `whole` when it is one JSON object, else with `stream` (server-sent
    // events); `where` names the provider in errors, which come back redacted.
    using body_reader = model_result (*)(std::string_view body, std::string const& where);
    model_result read_body(std::string const& body, std::string const& where, body_reader whole,
                           body_reader stream) const;

private:
    http_endpoint endpoint_;
    std::string shown_url_; // the endpoint as messages name it, without what may be a secret
    std::string key_;
    bool loopback_ = false; // never through a proxy
};

} // namespace agentrt
