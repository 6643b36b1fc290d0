// agentrt/runtime/model.hpp — the model seam: requests, responses, and what a call is charged.
//
//     struct my_model : agentrt::model {
//         agentrt::model_result complete(agentrt::model_request const& r, agentrt::model_call_context const& c)
//         override;
//     };
//     // inside an agent: agentrt::result<agentrt::model_response> reply = view.call_model(model, request);
//     return agentrt::decision_from(*reply);
//
// Every call goes through the session, which checks the limits first, records the call (dispatched,
// then ok, error or ambiguous, with usage and cost) and retries transient failures with backoff.
#pragma once

#include <agentrt/runtime/decision.hpp>

#include <boost/json/array.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace agentrt {

// A message is a list of content blocks, as the providers' APIs have it: text, the assistant's tool
// calls (each with its id) and, from the user's side, the results of those calls.
struct model_tool_call {
    std::string id;
    std::string name;
    std::string arguments; // JSON text as the model sent it
};

struct tool_result_block {
    std::string call_id; // the id of the model_tool_call it answers
    std::string content;
    bool is_error = false;
};

struct text_block {
    std::string text;
};

using content_block = std::variant<text_block, model_tool_call, tool_result_block>;

enum class message_role : std::uint8_t { user, assistant };

struct model_message {
    message_role role = message_role::user;
    std::vector<content_block> content;

    static model_message user(std::string text);
    static model_message assistant(std::string text);

    std::string text() const; // the text blocks, concatenated
};

struct model_request {
    std::string model;
    std::string system;
    std::vector<model_message> messages;
    boost::json::array tools; // tool definitions in the neutral shape (tool_definitions.hpp); clients convert
    std::uint32_t max_output_tokens = 1024;
};

// input_tokens counts the uncached input only, as both providers' usage has it once the cached part
// is taken out; what a call costs adds the cache reads and writes at their own prices.
struct model_usage {
    std::uint64_t input_tokens = 0;
    std::uint64_t output_tokens = 0;
    std::uint64_t cache_read_tokens = 0;
    std::uint64_t cache_write_tokens = 0;

    std::uint64_t total() const noexcept {
        return input_tokens + output_tokens + cache_read_tokens + cache_write_tokens;
    }
};

enum class stop_reason : std::uint8_t { end_turn, tool_use, max_tokens, stop_sequence, refusal, other };
std::string_view to_string(stop_reason r) noexcept;

struct model_response {
    std::string text;
    std::vector<model_tool_call> tool_calls;
    model_usage usage;
    agentrt::stop_reason stop = stop_reason::end_turn;
};

// transient: may be retried; permanent: will not succeed; cut_off: the call may have been charged and
// its reply is lost (recorded ambiguous, charged a conservative estimate).
enum class model_failure : std::uint8_t { transient, permanent, cut_off };

struct model_error {
    model_failure kind = model_failure::permanent;
    std::string message;
    // A transient failure's wait asked for by the provider (HTTP retry-after): the retry waits this
    // long instead of the backoff, or the call fails when it is longer than model_limits::max_retry_wait.
    std::optional<std::chrono::milliseconds> retry_after = std::nullopt;
};

using model_result = std::variant<model_response, model_error>;

// The model is called on the gate's runner thread while the caller renews the run's lease, so it must
// not call back into its session. At the deadline `stop` is requested: end the call on either (report
// it cut_off), since from then on the lease is no longer renewed (docs/runtime.md).
struct model_call_context {
    std::string_view run_id;
    std::uint64_t step_index = 0;
    std::uint32_t attempt = 1;
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    std::stop_token stop;
};

class model {
public:
    virtual ~model() = default;
    virtual model_result complete(model_request const& request, model_call_context const& context) = 0;
};

// US dollars per million tokens.
struct model_price {
    double input_per_million = 0;
    double output_per_million = 0;
    double cache_read_per_million = 0;
    double cache_write_per_million = 0;
};

// What `usage` costs at `price`, in millionths of a US dollar.
std::uint64_t cost_micros(model_usage const& usage, model_price const& price) noexcept;

struct model_limits {
    std::optional<std::uint64_t> max_calls;
    std::optional<std::uint64_t> max_tokens;
    std::optional<double> max_cost; // a model missing from `prices` under a cost limit is refused, not free
    std::map<std::string, model_price, std::less<>> prices;
    std::chrono::milliseconds timeout{60'000};
    std::uint32_t max_attempts = 3;                   // transient failures are retried up to this many calls in all
    std::chrono::milliseconds backoff{200};           // doubled after each transient failure
    std::chrono::milliseconds max_retry_wait{60'000}; // a longer retry-after fails the call instead
};

// The request's canonical JSON text: what a model call record's request_hash is the SHA-256 of, and
// what render equivalence compares byte for byte.
std::string canonical_request(model_request const& request);

// The first tool call of a reply becomes the step's decision (the others are recorded with it, never
// run); a reply without tool calls completes the run with its text, unless the model refused
// (stop_reason::refusal) or its reply was cut at the output cap (max_tokens): those fail the run,
// since neither text is an answer.
decision decision_from(model_response const& response);

} // namespace agentrt
