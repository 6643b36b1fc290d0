// The PostgreSQL engine: one store in one database (the tables of the connection's search_path), for
// workers on any number of machines. Internal: store::open picks it for "postgresql://..." and
// "postgres://..." locations (libpq connection URIs).
#pragma once

#include <agentrt/runtime/engine.hpp>
#include <agentrt/runtime/store.hpp>

#include <memory>
#include <string>

namespace agentrt::engines {

result<std::shared_ptr<engine>> open_postgresql(std::string const& uri, store_options const& options);

} // namespace agentrt::engines
