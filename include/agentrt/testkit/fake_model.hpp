// agentrt/testkit/fake_model.hpp — a model that answers from a script: no network, no tokens.
//
//     using agentrt::testkit::turn;
//     agentrt::testkit::fake_model model({turn::call("lookup_order", R"({"order_id":"ord-1"})"),
//                                         turn::transient_failure(503), turn::text("the order has shipped")});
//     // ... drive an agent that calls it; then model.requests()[0].text is the first request's bytes.
//
// Each call takes the next turn of the script, whoever makes it and on whatever thread. A turn is a
// reply (text, text in chunks, tool calls, with usage and a stop reason) or a failure the runtime must
// survive (a stall, a stream cut off midway, a transient or permanent error, an unknown tool,
// malformed argument bytes). Every request is recorded with its canonical bytes. A call past the end
// of the script throws std::out_of_range naming the call, so a test that runs longer than it
// scripted fails loudly rather than hanging or inventing a reply.
//
// In a scenario that crashes and resumes, each process of crash_mode::process starts with a fresh copy
// of the model, so a script taken in call order would start over after every crash (in simulated mode
// a model captured by reference is shared instead, and carries on); and a crash can leave a step behind
// undecided, so the next decision has another step index. A script `per_decision` keys the turns by
// the conversation instead: turn list i answers a request that carries i earlier decisions (i
// assistant messages), in every process:
//
//     fake_model model(per_decision, {{turn::call("lookup_order", R"({"order_id":"ord-1"})")},   // 1st
//                                     {turn::transient_failure(503), turn::text("shipped")}});  // 2nd
#pragma once

#include <agentrt/runtime/model.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::testkit {

// One scripted tool call: the tool's name and the argument bytes exactly as the model sends them.
struct scripted_call {
    std::string tool;
    std::string arguments;
};

// What the fake model does for one call. Build turns with the named constructors below.
class turn {
public:
    // --- replies ---
    // A reply of text only, delivered as one chunk (stop reason end_turn).
    static turn text(std::string text);
    // A reply whose text arrives as these chunks, in order; the response text is their concatenation.
    static turn chunks(std::vector<std::string> chunks);
    // A reply asking for one tool call (stop reason tool_use).
    static turn call(std::string tool, std::string arguments);
    // A reply asking for several tool calls in one turn (the runtime runs the first, notes the others).
    static turn calls(std::vector<scripted_call> calls);
    // A reply given as is (tool calls without an id get one, as every scripted call does).
    static turn reply(model_response response);

    // --- failures ---
    // Never answers: waits for the call's deadline or stop token (or `at_most`, whichever is first),
    // then fails cut_off, as a client's timeout would. Without a deadline, a stoppable token or
    // `at_most`, it would wait forever, so it throws std::logic_error instead.
    static turn stall(std::optional<std::chrono::milliseconds> at_most = std::nullopt);
    // Streams these chunks of text, then the connection drops: fails cut_off, naming how many chunks
    // and bytes arrived.
    static turn abort_mid_stream(std::vector<std::string> delivered);
    // An error the runtime may retry, with an HTTP-like status: "HTTP 503: overloaded".
    static turn transient_failure(int status = 503, std::string message = "overloaded");
    // An error that will not go away on retry: "HTTP 401: invalid API key".
    static turn permanent_failure(int status = 400, std::string message = "invalid request");
    // A tool call naming a tool the request does not offer (checked against the request's tools).
    static turn unknown_tool(std::string tool, std::string arguments = "{}");
    // A tool call whose argument bytes the JSON boundary refuses (checked: bytes it accepts are a
    // mistake in the script, reported by std::invalid_argument).
    static turn malformed_arguments(std::string tool, std::string bytes = R"({"order_id":)");

    // --- details of a reply turn (a failure turn has none: they throw std::logic_error there) ---
    [[nodiscard]] turn with_usage(std::uint64_t input_tokens, std::uint64_t output_tokens) const;
    [[nodiscard]] turn with_stop(stop_reason stop) const;

    // "text", "chunks", "call", "calls", "reply", "stall", "abort_mid_stream", "transient_failure",
    // "permanent_failure", "unknown_tool" or "malformed_arguments": how a failure names its turn.
    std::string_view kind() const noexcept { return kind_; }

private:
    friend class fake_model;
    enum class action : std::uint8_t { reply, stall, abort, fail };

    turn(std::string_view kind, action a) : kind_(kind), action_(a) {}
    turn& require_reply(std::string_view what);

    std::string_view kind_;
    action action_;
    model_response response_;         // reply
    std::vector<std::string> chunks_; // reply (streamed text) and abort (what arrived)
    std::optional<std::chrono::milliseconds> stall_bound_;
    model_error error_; // fail
};

// One chunk of streamed text, as the chunk observer sees it.
struct text_chunk {
    std::uint64_t call = 0; // 1-based call number
    std::size_t index = 0;  // 0-based within the call
    std::string_view text;  // valid during the observer's call only
};

// One call the fake model received.
struct recorded_request {
    std::uint64_t call = 0; // 1-based, in the order calls arrived
    std::string run_id;     // from the call's context
    std::uint64_t step_index = 0;
    std::uint32_t attempt = 1;
    model_request request;
    std::string text; // canonical_request(request)
};

// Selects the script keyed by decision: fake_model(per_decision, {...}).
struct per_decision_t {
    explicit per_decision_t() = default;
};
inline constexpr per_decision_t per_decision{};

class fake_model final : public model {
public:
    // Turn N answers the Nth call.
    explicit fake_model(std::vector<turn> script);
    // decisions[i][a - 1] answers attempt a (the runtime's retries of one call count attempts) of a
    // request with i assistant messages, however often and in whichever process it is made.
    fake_model(per_decision_t, std::vector<std::vector<turn>> decisions);

    // Plays the call's turn; throws std::out_of_range past the script (see the header comment).
    model_result complete(model_request const& request, model_call_context const& context) override;

    // Sees every chunk of streamed text as it is delivered, in order, outside the model's lock.
    void on_chunk(std::function<void(text_chunk const&)> observer);

    std::vector<recorded_request> requests() const; // a copy: safe while calls go on
    std::size_t calls() const;                      // calls received, past the script included
    std::size_t remaining() const;                  // turns never taken
    std::size_t turns() const noexcept { return script_.size(); }

private:
    // The turn for a call, or null past the script (with why in `missing`).
    turn const* pick(std::uint64_t call, model_request const& request, model_call_context const& context,
                     std::string& missing);
    model_result play(turn const& t, std::size_t number, std::uint64_t call, model_call_context const& context,
                      model_request const& request);
    void deliver(std::uint64_t call, std::vector<std::string> const& chunks);

    std::vector<turn> const script_;
    std::vector<std::size_t> const decision_starts_; // per decision: where list i begins, and the end
    mutable std::mutex mutex_;
    std::vector<bool> taken_;
    std::vector<recorded_request> requests_;
    std::function<void(text_chunk const&)> observer_;
};

} // namespace agentrt::testkit
