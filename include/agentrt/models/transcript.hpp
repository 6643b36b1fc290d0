// agentrt/models/transcript.hpp — record a provider's exchanges once, then replay them with no network.
//
//     agentrt::anthropic_model live;
//     agentrt::recording_model recorder(live, "tests/transcripts/refund.jsonl"); // run once, against the provider
//
//     agentrt::anthropic_model wire({.api_key_variable = ""});                    // reads replies, sends nothing
//     agentrt::replaying_model replay(wire, "tests/transcripts/refund.jsonl");   // every later run
//
// A transcript is JSON lines, one exchange each: the request's canonical text (canonical_request)
// and the reply as it came back (status, raw body, retry-after, transport error). The key is never
// in it: requests carry none, and replies are redacted. Replay answers the calls in order, reading
// each reply with the client's own reader; a request that differs from the recorded one fails the
// call, naming the exchange, the file and the first byte that differs.
#pragma once

#include <agentrt/models/http_model.hpp>

#include <cstddef>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace agentrt {

struct transcript_entry {
    std::string request; // canonical_request
    http_reply reply;
};

// Reads a transcript; throws std::runtime_error naming the file and line of what it cannot read.
std::vector<transcript_entry> read_transcript(std::filesystem::path const& file);
// One line of a transcript, newline included.
std::string transcript_line(transcript_entry const& entry);

class recording_model final : public model {
public:
    // Appends to `file` (created if missing); throws std::runtime_error when it cannot be opened.
    recording_model(http_model& live, std::filesystem::path file);

    model_result complete(model_request const& request, model_call_context const& context) override;

private:
    http_model* live_;
    std::filesystem::path file_;
    std::mutex mutex_;
};

class replaying_model final : public model {
public:
    replaying_model(http_model const& wire, std::filesystem::path file);

    model_result complete(model_request const& request, model_call_context const& context) override;

    std::size_t replayed() const;
    std::size_t size() const noexcept { return entries_.size(); }

private:
    http_model const* wire_;
    std::filesystem::path file_;
    std::vector<transcript_entry> entries_;
    mutable std::mutex mutex_;
    std::size_t next_ = 0;
};

} // namespace agentrt
