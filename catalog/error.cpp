#include <agentrt/catalog/error.hpp>

#include <ostream>

namespace agentrt {

char const* to_string(errc code) noexcept {
    switch (code) {
    case errc::invalid_json:
        return "invalid_json";
    case errc::invalid_arguments:
        return "invalid_arguments";
    case errc::unknown_tool:
        return "unknown_tool";
    case errc::invalid_schema:
        return "invalid_schema";
    case errc::refused:
        return "refused";
    case errc::tool_failed:
        return "tool_failed";
    case errc::not_found:
        return "not_found";
    case errc::conflict:
        return "conflict";
    case errc::lease_held:
        return "lease_held";
    case errc::too_large:
        return "too_large";
    case errc::store_failed:
        return "store_failed";
    case errc::storage_full:
        return "storage_full";
    case errc::store_damaged:
        return "store_damaged";
    case errc::server_failed:
        return "server_failed";
    case errc::timed_out:
        return "timed_out";
    case errc::pin_mismatch:
        return "pin_mismatch";
    }
    return "unknown";
}

std::string violation::to_string() const {
    std::string text = pointer.empty() ? std::string("(root)") : pointer;
    text += ": ";
    text += keyword;
    if (!detail.empty()) {
        text += ' ';
        text += detail;
    }
    return text;
}

std::ostream& operator<<(std::ostream& out, violation const& v) {
    return out << v.to_string();
}

std::string error::to_string() const {
    std::string text = message;
    for (auto const& v : violations) {
        text += "\n  ";
        text += v.to_string();
    }
    return text;
}

std::ostream& operator<<(std::ostream& out, error const& e) {
    return out << e.to_string();
}

exception::exception(agentrt::error e) : std::runtime_error(e.to_string()), error_(std::move(e)) {}

void throw_exception_from_error(error const& e, boost::source_location const&) {
    throw exception(e);
}

} // namespace agentrt
