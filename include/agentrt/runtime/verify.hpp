// agentrt/runtime/verify.hpp — checks the hash chains of a store's events.
//
//     agentrt::verify_report report = agentrt::verify(store);
//     if (!report.ok()) std::cerr << report.first_break << '\n';
//
// Each run's events form a chain (every event carries the hash of the one before, and the run
// record the hash of the last); every run's run.created event links to the previous run's, and the
// store's metadata holds the newest. So an altered event, a deleted event and a deleted run each
// break a chain, and the report names the first break. A link to a run that prune removed (and
// recorded, prune.hpp) is accepted. Every other record of each run is read too, so that a record
// the engine finds damaged (LMDB seals each with a checksum) is a break as well.
#pragma once

#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace agentrt {

struct verify_report {
    std::string first_break; // empty when every chain holds
    std::uint64_t runs = 0;
    std::uint64_t events = 0;
    bool damaged = false; // a record failed the engine's own check (errc::store_damaged): restore a backup
    bool ok() const noexcept { return first_break.empty(); }
};

verify_report verify(store const& s);
// The same, inside a transaction the caller holds (prune verifies in the one that removes runs); a
// damaged record is then an exception (errc::store_damaged), as the engine reports it.
verify_report verify(store_reader const& r);
// One run's exported events on their own: the chain from the first event, and, when given, the
// hash the last event must have (the run record's head).
verify_report verify_events(std::span<event_record const> events, std::string_view expected_head = {});

} // namespace agentrt
