// Server-sent events (the WHATWG HTML standard, section 9.2): the framing both providers stream in. Internal.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace agentrt::sse {

struct event {
    std::string type = "message"; // the `event:` field
    std::string data;             // the `data:` lines, joined by "\n"
};

struct stream {
    std::vector<event> events;
    bool ended_cleanly = true; // false when the bytes stop inside an event
};

// Every event of `bytes`; lines end in \n, \r\n or \r, comments (": ...") and unknown fields are skipped.
stream parse(std::string_view bytes);

} // namespace agentrt::sse
