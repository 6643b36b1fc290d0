#include "sse.hpp"

namespace agentrt::sse {

stream parse(std::string_view bytes) {
    stream out;
    event current;
    bool open = false;     // a field of the current event has been read
    bool has_data = false; // an event without data is not dispatched
    while (!bytes.empty()) {
        auto end = bytes.find_first_of("\r\n");
        if (end == std::string_view::npos) { // the last line has no end: the stream was cut
            out.ended_cleanly = false;
            return out;
        }
        auto line = bytes.substr(0, end);
        auto skip = end + 1;
        if (bytes[end] == '\r' && end + 1 < bytes.size() && bytes[end + 1] == '\n')
            ++skip;
        bytes.remove_prefix(skip);
        if (line.empty()) {
            if (has_data)
                out.events.push_back(std::move(current));
            current = {};
            open = has_data = false;
            continue;
        }
        if (line.front() == ':')
            continue;
        auto colon = line.find(':');
        auto field = line.substr(0, colon);
        std::string_view value;
        if (colon != std::string_view::npos) {
            value = line.substr(colon + 1);
            if (!value.empty() && value.front() == ' ')
                value.remove_prefix(1);
        }
        if (field == "event") {
            current.type = value;
            open = true;
        } else if (field == "data") {
            if (has_data)
                current.data += '\n';
            current.data += value;
            open = has_data = true;
        }
    }
    out.ended_cleanly = !open;
    return out;
}

} // namespace agentrt::sse
