// Syncs that fail as a disk's do, beneath LMDB. This test program defines fdatasync and fsync, which
// LMDB's shared library reaches through the dynamic linker; they pass to the C library's until a test
// arms one. A failed sync reports EIO once, and the syncs after it pass, as Linux's do.
#pragma once

#include <cstdint>
#include <functional>

namespace runtime_test::syncs {

enum class outcome : std::uint8_t { passes, fails };

// The nth sync from now (1 is the next) waits for release(), then passes or fails.
void hold(int nth, outcome then);
// The nth sync from now fails with EIO at once.
void fail(int nth);
// Blocks until the held sync has been reached; false after `seconds` without it.
bool wait_until_held(int seconds = 30);
void release();
// How many syncs ran since the last reset; disarms, stops observing, and lets a held sync go on.
int reset();

// While observed, each sync first asks `newest_on_file` for the newest commit whose meta page is in
// the file; a sync that passes puts every commit up to it on the disk.
void observe(std::function<std::uint64_t()> newest_on_file);
// The newest commit a passed sync put on the disk, 0 before any.
std::uint64_t synced_through();

} // namespace runtime_test::syncs
