#include "lmdb.hpp"

#include <agentrt/catalog/error.hpp>

#include "errors.hpp"

namespace agentrt::lmdb {

void fail(int rc, std::string_view what) {
    if (rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND)
        throw damaged_page(err(errc::store_damaged, "LMDB " + std::string(what) + " failed: " + mdb_strerror(rc)));
    auto code = rc == ENOSPC || rc == MDB_MAP_FULL ? errc::storage_full : errc::store_failed;
    throw exception(err(code, "LMDB " + std::string(what) + " failed: " + mdb_strerror(rc)));
}

env::env() {
    check(mdb_env_create(&env_), "mdb_env_create");
}
env::~env() {
    if (env_)
        mdb_env_close(env_);
}

namespace {
MDB_txn* begin(MDB_env* env, bool read_only) {
    MDB_txn* t = nullptr;
    check(mdb_txn_begin(env, nullptr, read_only ? MDB_RDONLY : 0, &t), "mdb_txn_begin");
    return t;
}
} // namespace

txn::txn(MDB_env* env, bool read_only) : txn_(begin(env, read_only)) {}
txn::txn(MDB_env* env, MDB_txn* parent) {
    check(mdb_txn_begin(env, parent, 0, &txn_), "mdb_txn_begin");
}
txn::~txn() {
    abort();
}
void txn::commit() {
    MDB_txn* t = txn_;
    txn_ = nullptr;
    check(mdb_txn_commit(t), "mdb_txn_commit");
}
void txn::abort() noexcept {
    if (txn_)
        mdb_txn_abort(txn_);
    txn_ = nullptr;
}

reader_pool::~reader_pool() {
    // In a forked child the slots are its parent's: ending the transactions would free them under it.
    if (::getpid() != owner_)
        return;
    for (MDB_txn* t : idle_)
        mdb_txn_abort(t);
}

MDB_txn* reader_pool::take() {
    MDB_txn* t = nullptr;
    {
        std::lock_guard lock(mutex_);
        if (!idle_.empty()) {
            t = idle_.back();
            idle_.pop_back();
        }
    }
    if (t && mdb_txn_renew(t) == MDB_SUCCESS)
        return t;
    if (t)
        mdb_txn_abort(t); // MDB_MAP_RESIZED among others: begin afresh, which reports it
    return begin(env_, true);
}

void reader_pool::give_back(MDB_txn* t) noexcept {
    mdb_txn_reset(t);
    try {
        std::lock_guard lock(mutex_);
        if (idle_.size() < max_idle) {
            idle_.push_back(t);
            return;
        }
    } catch (...) {
    }
    mdb_txn_abort(t);
}

cursor::cursor(MDB_txn* t, MDB_dbi dbi) {
    check(mdb_cursor_open(t, dbi, &cursor_), "mdb_cursor_open");
}
cursor::~cursor() {
    mdb_cursor_close(cursor_);
}
bool cursor::step(MDB_val& k, MDB_val& v, MDB_cursor_op op) {
    int rc = mdb_cursor_get(cursor_, &k, &v, op);
    if (rc == MDB_NOTFOUND)
        return false;
    check(rc, "mdb_cursor_get");
    return true;
}
bool cursor::seek(std::string_view key, MDB_val& k, MDB_val& v) {
    k = val(key);
    return step(k, v, MDB_SET_RANGE);
}
bool cursor::next(MDB_val& k, MDB_val& v) {
    return step(k, v, MDB_NEXT);
}
bool cursor::prev(MDB_val& k, MDB_val& v) {
    return step(k, v, MDB_PREV);
}
bool cursor::first(MDB_val& k, MDB_val& v) {
    return step(k, v, MDB_FIRST);
}

bool cursor::last(MDB_val& k, MDB_val& v) {
    return step(k, v, MDB_LAST);
}

bool get(MDB_txn* t, MDB_dbi dbi, std::string_view key, std::string& out) {
    MDB_val k = val(key), v{};
    int rc = mdb_get(t, dbi, &k, &v);
    if (rc == MDB_NOTFOUND)
        return false;
    check(rc, "mdb_get");
    out.assign(view(v));
    return true;
}

std::optional<std::string_view> find(MDB_txn* t, MDB_dbi dbi, std::string_view key) {
    MDB_val k = val(key), v{};
    int rc = mdb_get(t, dbi, &k, &v);
    if (rc == MDB_NOTFOUND)
        return std::nullopt;
    check(rc, "mdb_get");
    return view(v);
}

void put(MDB_txn* t, MDB_dbi dbi, std::string_view key, std::string_view value) {
    MDB_val k = val(key), v = val(value);
    check(mdb_put(t, dbi, &k, &v, 0), "mdb_put");
}

std::string big_endian(std::uint64_t n) {
    std::string out(8, '\0');
    for (int i = 7; i >= 0; --i, n >>= 8)
        out[static_cast<std::size_t>(i)] = static_cast<char>(n & 0xff);
    return out;
}

bool del(MDB_txn* t, MDB_dbi dbi, std::string_view key) {
    MDB_val k = val(key);
    int rc = mdb_del(t, dbi, &k, nullptr);
    if (rc == MDB_NOTFOUND)
        return false;
    check(rc, "mdb_del");
    return true;
}

} // namespace agentrt::lmdb
