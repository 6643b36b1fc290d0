// Parsed records by their exact stored bytes. Internal.
//
// A step reads the run and its step back several times (the policy's view, the compare-and-set of
// each transaction, the check before the tool), and parsing the JSON each time was a measured fifth
// of a durable step's CPU. A record is served from here only when the bytes in the transaction are
// exactly the bytes it was parsed from or serialized to, so the cache can never answer differently
// from a parse: a change by another process, or behind the runtime's back, is a miss.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
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

    // After a parse of `bytes` gave `record`.
    void remember(std::string_view key, std::string_view bytes, Record const& record) {
        if (bytes.size() > max_bytes)
            return;
        auto& s = slots_[slot_of(key)];
        std::lock_guard lock(mutex_);
        s.key = key;
        s.bytes = bytes;
        s.record = record;
    }

    // After `record` was written as `bytes`, of which `text` is what a parse reads (the bytes less
    // the engine's checksum). Only ASCII text is remembered here: a record holding bytes that are not
    // UTF-8 (a decision kept verbatim may) is written but refused by the parser, and the cache must not
    // answer where a parse would fail. Other text is remembered once parsed.
    void remember_written(std::string_view key, std::string_view bytes, std::string_view text, Record const& record) {
        if (ascii(text))
            remember(key, bytes, record);
    }

private:
    static bool ascii(std::string_view text) {
        std::uint64_t high = 0;
        std::size_t i = 0;
        for (; i + 8 <= text.size(); i += 8) {
            std::uint64_t w;
            std::memcpy(&w, text.data() + i, 8);
            high |= w;
        }
        for (; i < text.size(); ++i)
            high |= static_cast<unsigned char>(text[i]);
        return (high & 0x8080808080808080ull) == 0;
    }

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
