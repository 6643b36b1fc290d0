// Small helpers to build the library's error values.
#pragma once

#include <agentrt/catalog/error.hpp>

#include <string>

namespace agentrt {

inline error err(errc code, std::string message) {
    return error{code, std::move(message), {}};
}

} // namespace agentrt
