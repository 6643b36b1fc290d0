// Small helpers to build the library's error values.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/runtime/records.hpp>

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt {

inline error err(errc code, std::string message) {
    return error{code, std::move(message), {}};
}

// The run a session works on, as a transaction read it. A held run is never removed; one that ended
// may be pruned under a session that has not yet let it go: that is errc::not_found, thrown as
// agentrt::exception for the public call's own catch to return, never a bad_optional_access.
inline run_record existing_run(std::optional<run_record> found, std::string_view run_id) {
    if (!found)
        throw exception(
            err(errc::not_found, "run " + std::string(run_id) + " is no longer in the store: it ended and was pruned"));
    return std::move(*found);
}

// What an operator does about a store that contradicts itself.
inline constexpr char const* damage_advice =
    ": run `agentrt verify` on the store, and if it fails restore it from a backup (a copy `agentrt backup` made)";

// A step its run names, as a transaction read it: missing, the store contradicts itself, which is a
// typed error for the public call's catch, never a bad_optional_access.
inline step_record existing_step(std::optional<step_record> found, std::string_view run_id, std::uint64_t index) {
    if (!found)
        throw exception(err(errc::store_damaged, "step " + std::string(run_id) + "/" + std::to_string(index) +
                                                     " is missing from the store, though its run names it" +
                                                     damage_advice));
    return std::move(*found);
}

// A counter the store keeps as decimal text (a meta value): text that is not one is damage.
inline std::uint64_t stored_counter(std::string_view text, std::string_view name) {
    std::uint64_t n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc{} || end != text.data() + text.size())
        throw exception(err(errc::store_damaged, "the store's " + std::string(name) + " is \"" + std::string(text) +
                                                     "\", not a count" + damage_advice));
    return n;
}

} // namespace agentrt
