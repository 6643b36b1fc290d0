// A thin RAII layer over lmdb.h: only what the store needs, every return code checked.
// (Debian's liblmdb++ double-frees when commit throws, so we keep our own.)
#pragma once

#include <agentrt/catalog/error.hpp>

#include <lmdb.h>
#include <unistd.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::lmdb {

// A full map: the store grows it and retries the whole transaction.
struct map_full : std::runtime_error {
    map_full() : std::runtime_error("LMDB map full") {}
};

// Another process grew the map: the store adopts the new size while no transaction of this process
// is open (LMDB requires it), then begins again.
struct map_resized : std::runtime_error {
    map_resized() : std::runtime_error("LMDB map grown by another process") {}
};

// A page LMDB found damaged (MDB_CORRUPTED, MDB_PAGE_NOTFOUND), with errc::store_damaged: the
// engine names the store and what to do.
struct damaged_page : exception {
    using exception::exception;
};

[[noreturn]] void fail(int rc, std::string_view what);
inline void check(int rc, std::string_view what) {
    if (rc == MDB_MAP_FULL)
        throw map_full();
    if (rc == MDB_MAP_RESIZED)
        throw map_resized();
    if (rc != MDB_SUCCESS)
        fail(rc, what);
}

inline MDB_val val(std::string_view s) {
    return MDB_val{s.size(), const_cast<char*>(s.data())};
}
inline std::string_view view(MDB_val const& v) {
    return {static_cast<char const*>(v.mv_data), v.mv_size};
}

class env {
public:
    env();
    ~env();
    env(env const&) = delete;
    env& operator=(env const&) = delete;
    MDB_env* get() const noexcept { return env_; }

private:
    MDB_env* env_ = nullptr;
};

// Aborts unless committed; commit() frees the handle whether or not it succeeds (as LMDB does).
class txn {
public:
    txn(MDB_env* env, bool read_only);
    // A write transaction nested in `parent`: its commit merges into the parent, its abort undoes only it.
    txn(MDB_env* env, MDB_txn* parent);
    ~txn();
    txn(txn const&) = delete;
    txn& operator=(txn const&) = delete;
    MDB_txn* get() const noexcept { return txn_; }
    void commit();
    void abort() noexcept;

private:
    MDB_txn* txn_ = nullptr;
};

// Read transactions kept reset between reads: renewing one skips the lock on the shared reader table
// that beginning one takes (MDB_NOTLS). Thread-safe. A reset transaction holds a reader slot but no
// snapshot, so it keeps no page from reuse.
class reader_pool {
public:
    explicit reader_pool(MDB_env* env) noexcept : env_(env) {}
    ~reader_pool();
    reader_pool(reader_pool const&) = delete;
    reader_pool& operator=(reader_pool const&) = delete;

    // A read transaction on the newest snapshot, for one read; the guard gives it back.
    class read {
    public:
        explicit read(reader_pool& pool) : pool_(pool), txn_(pool.take()) {}
        ~read() { pool_.give_back(txn_); }
        read(read const&) = delete;
        read& operator=(read const&) = delete;
        MDB_txn* get() const noexcept { return txn_; }

    private:
        reader_pool& pool_;
        MDB_txn* txn_;
    };

private:
    // Reader slots are shared by every process of the store (256 in all): keep a few, not one per
    // thread that ever read.
    static constexpr std::size_t max_idle = 4;

    MDB_txn* take();
    void give_back(MDB_txn* t) noexcept;

    MDB_env* env_;
    pid_t owner_ = ::getpid();
    std::mutex mutex_;
    std::vector<MDB_txn*> idle_;
};

class cursor {
public:
    cursor(MDB_txn* t, MDB_dbi dbi);
    ~cursor();
    cursor(cursor const&) = delete;
    cursor& operator=(cursor const&) = delete;
    // Positions at the first key >= `key`; false at the end.
    bool seek(std::string_view key, MDB_val& k, MDB_val& v);
    bool next(MDB_val& k, MDB_val& v);
    bool prev(MDB_val& k, MDB_val& v);
    bool first(MDB_val& k, MDB_val& v);
    bool last(MDB_val& k, MDB_val& v);

private:
    bool step(MDB_val& k, MDB_val& v, MDB_cursor_op op);
    MDB_cursor* cursor_ = nullptr;
};

bool get(MDB_txn* t, MDB_dbi dbi, std::string_view key, std::string& out);
// The value in the map, valid until the transaction ends or writes.
std::optional<std::string_view> find(MDB_txn* t, MDB_dbi dbi, std::string_view key);
void put(MDB_txn* t, MDB_dbi dbi, std::string_view key, std::string_view value);
// Deletes `key`; false when it was not there.
bool del(MDB_txn* t, MDB_dbi dbi, std::string_view key);

std::string big_endian(std::uint64_t n);

} // namespace agentrt::lmdb
