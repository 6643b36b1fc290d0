// Server-sent events (the WHATWG HTML standard, section 9.2): the framing both providers stream in. Internal.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::sse {

// One event; its views are valid until the reader's next call.
struct event_view {
    std::string_view type = "message"; // the `event:` field
    std::string_view data;             // the `data:` lines, joined by "\n"
};

// Reads the events of `bytes` one at a time, copying nothing unless an event has several data
// lines. Lines end in \n, \r\n or \r; comments (": ...") and unknown fields are skipped.
class reader {
public:
    explicit reader(std::string_view bytes) noexcept : rest_(bytes) {}

    std::optional<event_view> next();
    // Once next() has returned nullopt: false when the bytes stopped inside an event.
    bool ended_cleanly() const noexcept { return ended_cleanly_; }

private:
    std::string_view rest_;
    std::string joined_;
    bool ended_cleanly_ = true;
};

struct event {
    std::string type;
    std::string data;
};
struct stream {
    std::vector<event> events;
    bool ended_cleanly = true;
};
// Every event of `bytes`, copied.
stream parse(std::string_view bytes);

} // namespace agentrt::sse
