#include "seal.hpp"

#include "errors.hpp"

#include <agentrt/catalog/error.hpp>

#include <zlib.h>

#include <cstdint>
#include <cstdio>

namespace agentrt::lmdb_detail {
namespace {

// CRC-32 (ISO-HDLC, zlib's): a fifth of the instructions of Boost.CRC's byte-at-a-time table.
std::uint32_t checksum(std::string_view key, std::string_view text) {
    uLong crc = ::crc32_z(0, nullptr, 0);
    for (std::string_view part : {key, text})
        if (!part.empty()) // given a null buffer, as an empty view may hold, crc32_z starts over at 0
            crc = ::crc32_z(crc, reinterpret_cast<Bytef const*>(part.data()), part.size());
    return static_cast<std::uint32_t>(crc);
}

// A key that prints: record keys hold big-endian numbers.
std::string printable(std::string_view key) {
    std::string out;
    for (unsigned char c : key) {
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            out += hex;
        }
    }
    return out;
}

} // namespace

std::string seal(std::string_view key, std::string_view text) {
    std::uint32_t sum = checksum(key, text);
    std::string out;
    out.reserve(text.size() + checksum_bytes);
    out.append(text);
    for (int shift = 24; shift >= 0; shift -= 8)
        out += static_cast<char>((sum >> shift) & 0xff);
    return out;
}

std::optional<std::string_view> unseal(std::string_view key, std::string_view stored) {
    if (stored.size() < checksum_bytes)
        return std::nullopt;
    auto text = stored.substr(0, stored.size() - checksum_bytes);
    std::uint32_t sum = 0;
    for (unsigned char c : stored.substr(text.size()))
        sum = (sum << 8) | c;
    if (sum != checksum(key, text))
        return std::nullopt;
    return text;
}

void refuse_damaged_record(std::string const& store, std::string_view table, std::string_view key) {
    throw exception(err(errc::store_damaged,
                        "store " + store + " is damaged: the record '" + printable(key) + "' of " + std::string(table) +
                            " does not match its checksum: restore the store from a backup (a copy `agentrt "
                            "backup` made), then resume its runs"));
}

} // namespace agentrt::lmdb_detail
