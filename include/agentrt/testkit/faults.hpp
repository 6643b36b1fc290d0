// agentrt/testkit/faults.hpp — storage failures on purpose, in the style of SQLite's I/O-error tests.
//
//     using namespace agentrt::testkit;
//     agentrt::store s(std::make_shared<faulty_engine>(opened.engine(),
//                                                      fault{fault_site::commit, 3, fault_error::no_space}));
//     // the third commit through `s` fails: the public call returns errc::storage_full
//
//     explore_faults(shop);  // every site, the N-th operation failing for N = 1, 2, ... until a run
//                            // gets through untouched; each run checked and then resumed fault-free
//
// A fault is what a real engine reports when its disk is full or fails, injected below the runtime as
// an engine decorator, so the runtime cannot tell it from the real thing.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/testkit/engine_decorator.hpp>
#include <agentrt/testkit/report.hpp>
#include <agentrt/testkit/scenario.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace agentrt::testkit {

// Where the fault strikes.
enum class fault_site : std::uint8_t {
    put,    // a record written inside a write transaction: the transaction aborts, none of it is kept
    commit, // a commit: none of its transaction is kept
    sync,   // the sync of a flushed commit (the one before a side effect): the commit is kept, and
            // the caller is told it failed, as when fsync fails after the data reached the file
    read,   // a read transaction (a query outside a write): it fails and changes nothing, as when a
            // page cannot be read or the server's connection is lost
};
// What the engine reports: no_space (ENOSPC) and map_full are errc::storage_full, io_error (EIO)
// is errc::store_failed.
enum class fault_error : std::uint8_t { no_space, io_error, map_full };

std::string_view to_string(fault_site site) noexcept;
std::string_view to_string(fault_error error) noexcept;

struct fault {
    fault_site site = fault_site::commit;
    std::uint64_t nth = 1; // the N-th operation at `site` through this engine fails, and only that one
    fault_error error = fault_error::no_space;
};

std::string to_string(fault const& f); // "the 3rd commit fails with no_space"

// The error value a fault makes the engine throw (agentrt::exception), named like the engine's own.
agentrt::error error_of(fault const& f);

class faulty_engine final : public engine_decorator {
public:
    faulty_engine(std::shared_ptr<engine> inner, fault f) : engine_decorator(std::move(inner)), fault_(f) {}

    void read(std::function<void(store_reader const&)> const& work) const override;
    void write(std::function<void(engine_writer&)> const& work, bool flush) override;

    agentrt::testkit::fault const& fault() const noexcept { return fault_; }
    bool fired() const noexcept { return seen_.load() >= fault_.nth; }
    std::uint64_t seen() const noexcept { return seen_.load(); } // operations at the site so far

private:
    bool strikes() const noexcept { return ++seen_ == fault_.nth; }

    agentrt::testkit::fault fault_;
    mutable std::atomic<std::uint64_t> seen_{0};
};

struct fault_summary {
    std::size_t faults_tried = 0; // scenario runs with a fault that fired
    std::size_t failures = 0;
    double seconds = 0;
};

// For each site, runs the scenario (simulated processes) once per N = 1, 2, ... with the N-th
// operation at that site failing with `error` in its first process, until a run gets through
// untouched. Reads are among the sites for io_error only: an engine reports no full disk or map
// on a read. At every N: every public call returns a typed error (an exception out of the driver,
// the gate or the operator API is a failure), the store opens, its chains verify and its invariants
// hold, and the next processes, fault-free, resume the run to its end with no tool run twice
// without an approval. Reports every failure; prints a summary line. Fails when no fault fired.
fault_summary explore_faults(scenario const& s, fault_error error = fault_error::no_space,
                             source_location where = source_location::current());

} // namespace agentrt::testkit
