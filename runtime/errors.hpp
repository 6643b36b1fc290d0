// Small helpers to build the library's error values.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/runtime/records.hpp>

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

} // namespace agentrt
