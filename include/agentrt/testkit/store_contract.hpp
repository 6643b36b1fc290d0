// agentrt/testkit/store_contract.hpp — the store's promises, as a suite any store or engine can be
// held to.
//
//     agentrt::testkit::check_store_contract([&] { return agentrt::store::open(fresh_path()).value(); });
//     agentrt::testkit::check_engine_contract([&] { return std::make_shared<my_engine>(...); });
//
// The runtime relies on exactly these: every record reads back as written; a write is atomic (an
// exception inside it leaves everything as it was); a run's steps, approvals, events and model
// calls read back in order; events chain and count per run; runs list newest first and page, also
// past a run that was removed; removing a run removes all that is its own; observers see events
// only after their commit; what was committed survives reopening. Each broken promise is reported
// on its own.
#pragma once

#include <agentrt/testkit/report.hpp>

#include <agentrt/runtime/store.hpp>

#include <functional>
#include <memory>

namespace agentrt::testkit {

// `open` opens the same, initially empty, store each time it is called (closing the previous
// handle first is the caller's duty: the suite destroys each store before opening the next).
bool check_store_contract(std::function<store()> const& open, source_location where = source_location::current());

// The same suite over an engine (engine.hpp): the store every engine gets is held to it.
bool check_engine_contract(std::function<std::shared_ptr<engine>()> const& open,
                           source_location where = source_location::current());

} // namespace agentrt::testkit
