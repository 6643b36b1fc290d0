// Parsed records by their exact stored bytes. Internal.
//
// A step reads the run and its step back several times (the policy's view, the compare-and-set of
// each transaction, the check before the tool), and parsing the JSON each time was a measured fifth
// of a durable step's CPU. A record is served from here only when the bytes in the transaction are
// exactly the bytes it was parsed from or serialized to, so the cache can never answer differently
// from a parse: a change by another process, or behind the runtime's back, is a miss.
#pragma once

#include <array>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt {

template <class Record>
class record_cache {
public:
    std::optional<Record> find(std::string_view key, std::string_view bytes) const {
        auto const& s = slots_[slot_of(key)];
        std::lock_guard lock(mutex_);
        if (s.record && s.key == key && s.bytes == bytes)
            return s.record;
        return std::nullopt;
    }

    void remember(std::string_view key, std::string_view bytes, Record const& record) {
        if (bytes.size() > max_bytes)
            return;
        auto& s = slots_[slot_of(key)];
        std::lock_guard lock(mutex_);
        s.key = key;
        s.bytes = bytes;
        s.record = record;
    }

private:
    static constexpr std::size_t slot_count = 16;
    static constexpr std::size_t max_bytes = std::size_t{64} << 10; // larger records are parsed each time

    struct slot {
        std::string key;
        std::string bytes;
        std::optional<Record> record;
    };
    static std::size_t slot_of(std::string_view key) { return std::hash<std::string_view>{}(key) % slot_count; }

    mutable std::mutex mutex_;
    std::array<slot, slot_count> slots_;
};

} // namespace agentrt
