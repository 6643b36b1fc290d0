// agentrt/testkit/store_contract.hpp — the store's promises, as a suite any store can be held to.
//
//     agentrt::testkit::check_store_contract([&] { return agentrt::store::open(fresh_path()).value(); });
//
// The runtime relies on exactly these: records read back as written; a write is atomic (an
// exception inside it leaves everything as it was); events chain and count per run; runs list
// newest first and page; observers see events only after their commit; what was committed
// survives reopening. Each broken promise is reported on its own.
#pragma once

#include <agentrt/testkit/report.hpp>

#include <agentrt/runtime/store.hpp>

#include <functional>

namespace agentrt::testkit {

// `open` opens the same, initially empty, store each time it is called (closing the previous
// handle first is the caller's duty: the suite destroys each store before opening the next).
bool check_store_contract(std::function<store()> const& open, source_location where = source_location::current());

} // namespace agentrt::testkit
