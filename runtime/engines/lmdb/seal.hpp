// Record checksums of the LMDB engine. Internal to runtime/engines/lmdb.
//
// LMDB 0.9 keeps no page checksums, so a page that damage changed is read back as if it were sound.
// Every value the engine stores therefore ends with a CRC-32 of its key and its text (4 bytes,
// big-endian), and a value whose checksum fails is refused as damage, never believed. The store's
// schema version alone is stored bare, so that any version of agentrt can read it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::lmdb_detail {

inline constexpr std::string_view bare_meta_key = "schema_version";
inline constexpr std::size_t checksum_bytes = 4;

std::string seal(std::string_view key, std::string_view text);

// The text of a value sealed here, without checking it.
inline std::string_view sealed_text(std::string_view sealed) {
    return sealed.substr(0, sealed.size() - checksum_bytes);
}

// The text of a sealed value; empty when its checksum fails.
std::optional<std::string_view> unseal(std::string_view key, std::string_view stored);

// An agentrt::exception (errc::store_damaged) naming the record and what to do.
[[noreturn]] void refuse_damaged_record(std::string const& store, std::string_view table, std::string_view key);

} // namespace agentrt::lmdb_detail
