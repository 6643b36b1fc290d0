#include "sse.hpp"

namespace agentrt::sse {

std::optional<event_view> reader::next() {
    event_view current;
    bool open = false;      // a field of the current event has been read
    int data_lines = 0;     // an event without data is not dispatched
    std::string_view first; // the only data line, while there is one
    while (!rest_.empty()) {
        auto end = rest_.find_first_of("\r\n");
        if (end == std::string_view::npos) { // the last line has no end: the stream was cut
            rest_ = {};
            ended_cleanly_ = false;
            return std::nullopt;
        }
        auto line = rest_.substr(0, end);
        auto skip = end + 1;
        if (rest_[end] == '\r' && end + 1 < rest_.size() && rest_[end + 1] == '\n')
            ++skip;
        rest_.remove_prefix(skip);
        if (line.empty()) {
            if (data_lines > 0) {
                current.data = data_lines == 1 ? first : std::string_view(joined_);
                return current;
            }
            current = {};
            open = false;
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
            if (data_lines == 0) {
                first = value;
            } else {
                if (data_lines == 1)
                    joined_.assign(first);
                joined_ += '\n';
                joined_ += value;
            }
            ++data_lines;
            open = true;
        }
    }
    ended_cleanly_ = !open;
    return std::nullopt;
}

stream parse(std::string_view bytes) {
    stream out;
    reader r(bytes);
    while (auto e = r.next())
        out.events.push_back({std::string(e->type), std::string(e->data)});
    out.ended_cleanly = r.ended_cleanly();
    return out;
}

} // namespace agentrt::sse
