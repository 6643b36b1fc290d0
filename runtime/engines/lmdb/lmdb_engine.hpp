// The LMDB engine: one environment per store directory, for the processes of one host. Internal:
// store::open picks it for "lmdb:PATH" and plain paths.
#pragma once

#include <agentrt/runtime/engine.hpp>
#include <agentrt/runtime/store.hpp>

#include <filesystem>
#include <memory>

namespace agentrt::engines {

result<std::shared_ptr<engine>> open_lmdb(std::filesystem::path const& directory, store_options const& options);

} // namespace agentrt::engines
