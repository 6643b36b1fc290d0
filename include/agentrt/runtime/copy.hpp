// agentrt/runtime/copy.hpp — copies a store into another, of any engine (LMDB to PostgreSQL and back).
//
//     auto from = agentrt::store::open("/var/lib/app/agentrt", {.access = agentrt::store_access::operator_only});
//     auto to = agentrt::store::open("postgresql://db.example/app");
//     agentrt::copy_store(*from, *to);  // then `agentrt verify` passes on the copy
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/runtime/store.hpp>

#include <cstdint>

namespace agentrt {

struct copy_report {
    std::uint64_t runs = 0;
    std::uint64_t events = 0;
};

// Copies every run of `from`, as of one read snapshot, with its steps, approvals, events, model calls
// and tool specs, oldest first, and the chain of runs (with what prune recorded of removed runs),
// into `to` in one write transaction: the copy verifies when the source does, and a failure leaves
// `to` as it was. Refuses a destination that already holds a run. Stop the source's writers first:
// what they write after the snapshot is not copied.
result<copy_report> copy_store(store const& from, store& to);

} // namespace agentrt
