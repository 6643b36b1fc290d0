// Key layout of the LMDB store: a run's steps, approvals and events sort together, in order, under
// the run id followed by a NUL byte, so one cursor reads them in order. (Run ids never hold NUL.)
#pragma once

#include "lmdb.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace agentrt::keys {

inline constexpr char const* runs = "runs";
inline constexpr char const* run_order = "run_order";
inline constexpr char const* steps = "steps";
inline constexpr char const* approvals = "approvals";
inline constexpr char const* events = "events";
inline constexpr char const* tool_specs = "tool_specs";
inline constexpr char const* model_calls = "model_calls";
inline constexpr char const* meta = "meta";

inline std::string run_prefix(std::string_view run_id) {
    std::string k(run_id);
    k.push_back('\0');
    return k;
}
inline std::string step(std::string_view run_id, std::uint64_t index) {
    return run_prefix(run_id) + lmdb::big_endian(index);
}
inline std::string event(std::string_view run_id, std::uint64_t seq) {
    return run_prefix(run_id) + lmdb::big_endian(seq);
}
inline std::string approval(std::string_view run_id, std::uint64_t step_index, std::uint64_t seq) {
    return run_prefix(run_id) + lmdb::big_endian(step_index) + lmdb::big_endian(seq);
}

} // namespace agentrt::keys
