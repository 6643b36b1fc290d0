// The LMDB engine's transactions: records read and written in one LMDB transaction each.
#include "environment.hpp"

#include "errors.hpp"
#include "keys.hpp"
#include "record_text.hpp"
#include "seal.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <sys/statvfs.h>

namespace agentrt::lmdb_detail {
namespace {

// Parses a stored record and converts it while the parsed value lives in a stack buffer: records are
// small, and most of a parse's cost was allocation.
template <class Record>
Record parse_record(std::string_view text, Record (*from)(boost::json::value const&)) {
    unsigned char buffer[4096];
    boost::json::monotonic_resource memory(buffer, sizeof buffer);
    return from(parse_record_text(text, &memory));
}

// Thrown, with `abandoned` set, when a work done ahead does what its snapshot cannot check.
struct abandon_speculation {};

class reader_impl : public virtual store_reader {
public:
    // With `ahead`, the reads go to a snapshot and are remembered there, and writes are kept there.
    reader_impl(lmdb_engine const& s, MDB_txn* t, speculation* ahead = nullptr) : s_(s), t_(t), ahead_(ahead) {}

    std::optional<run_record> run(std::string_view id) const override {
        return cached(s_.runs, keys::runs, id, s_.run_cache, run_from_json);
    }

    std::vector<run_record> runs_before(std::uint64_t before_order, std::size_t limit) const override {
        if (ahead_)
            abandon();
        std::vector<run_record> out;
        lmdb::cursor c(t_, s_.run_order);
        MDB_val k{}, v{};
        bool at;
        if (before_order == 0)
            at = c.last(k, v);
        else if (c.seek(lmdb::big_endian(before_order), k, v))
            at = c.prev(k, v); // the run of that order may be gone: the newest older one
        else
            at = c.last(k, v); // every run is older
        for (; at && out.size() < limit; at = c.prev(k, v))
            if (auto r = run(text_of(keys::run_order, lmdb::view(k), lmdb::view(v))))
                out.push_back(std::move(*r));
        return out;
    }

    std::optional<step_record> step(std::string_view run_id, std::uint64_t index) const override {
        return cached(s_.steps, keys::steps, keys::step(run_id, index), s_.step_cache, step_from_json);
    }

    std::vector<step_record> steps(std::string_view run_id) const override {
        return scan(s_.steps, keys::steps, run_id, step_from_json);
    }
    std::vector<approval_record> approvals(std::string_view run_id) const override {
        return scan(s_.approvals, keys::approvals, run_id, approval_from_json);
    }
    std::vector<event_record> events(std::string_view run_id) const override {
        return scan(s_.events, keys::events, run_id, event_from_json);
    }

    std::vector<model_call_record> model_calls(std::string_view run_id) const override {
        return scan(s_.model_calls, keys::model_calls, run_id, model_call_from_json);
    }

    std::optional<std::string> meta(std::string_view key) const override {
        auto v = find(s_.meta, key);
        if (!v)
            return std::nullopt;
        return std::string(key == bare_meta_key ? *v : text_of(keys::meta, key, *v));
    }
    std::optional<std::string> tool_spec(std::string_view hash) const override {
        auto v = find(s_.tool_specs, hash);
        if (!v)
            return std::nullopt;
        return std::string(text_of(keys::tool_specs, hash, *v));
    }

protected:
    // The stored value of `key`: the transaction's, or, done ahead, the work's own write or else the
    // snapshot's, remembered to be read again.
    std::optional<std::string_view> find(MDB_dbi dbi, std::string_view key) const {
        if (!ahead_)
            return lmdb::find(t_, dbi, key);
        for (auto w = ahead_->writes.rbegin(); w != ahead_->writes.rend(); ++w)
            if (w->dbi == dbi && w->key == key)
                return w->value ? std::optional<std::string_view>(*w->value) : std::nullopt;
        auto v = lmdb::find(t_, dbi, key);
        ahead_->points.push_back({dbi, std::string(key), v ? std::optional<std::string>(*v) : std::nullopt});
        return v;
    }

    [[noreturn]] void abandon() const {
        ahead_->abandoned = true;
        throw abandon_speculation{};
    }

    // The text of a stored value whose checksum holds (seal.hpp).
    std::string_view text_of(char const* table, std::string_view key, std::string_view stored) const {
        auto text = unseal(key, stored);
        if (!text)
            refuse_damaged_record(s_.path.string(), table, key);
        return *text;
    }

    // A record by its key, parsed once for the exact bytes stored (record_cache.hpp): bytes the cache
    // holds were checked when first read, or written here.
    template <class R>
    std::optional<R> cached(MDB_dbi dbi, char const* table, std::string_view key, record_cache<R>& cache,
                            R (*from)(boost::json::value const&)) const {
        auto v = find(dbi, key);
        if (!v)
            return std::nullopt;
        if (auto hit = cache.find(key, *v))
            return hit;
        auto r = parse_record(text_of(table, key, *v), from);
        cache.remember(key, *v, r);
        return r;
    }

    template <class R>
    std::vector<R> scan(MDB_dbi dbi, char const* table, std::string_view run_id,
                        R (*from)(boost::json::value const&)) const {
        std::vector<R> out;
        std::string prefix = keys::run_prefix(run_id);
        speculation::range* seen = nullptr;
        if (ahead_) {
            if (std::any_of(ahead_->writes.begin(), ahead_->writes.end(), [&](auto const& w) { return w.dbi == dbi; }))
                abandon();
            seen = &ahead_->ranges.emplace_back(speculation::range{dbi, prefix, {}});
        }
        lmdb::cursor c(t_, dbi);
        MDB_val k{}, v{};
        for (bool at = c.seek(prefix, k, v); at && lmdb::view(k).starts_with(prefix); at = c.next(k, v)) {
            out.push_back(parse_record(text_of(table, lmdb::view(k), lmdb::view(v)), from));
            if (seen)
                seen->records.emplace_back(lmdb::view(k), lmdb::view(v));
        }
        return out;
    }

    lmdb_engine const& s_;
    MDB_txn* t_;
    speculation* ahead_;
};

class writer_impl final : public reader_impl, public engine_writer {
public:
    writer_impl(lmdb_engine const& s, MDB_txn* t, speculation* ahead = nullptr) : reader_impl(s, t, ahead) {}

    // Whether the transaction has anything to commit: LMDB commits one with nothing written
    // without a sync.
    bool wrote() const noexcept { return wrote_; }

    void put(run_record& run) override {
        if (!find(s_.runs, run.id)) {
            auto next = meta("run_order_next");
            run.order = next ? stored_counter(*next, "run_order_next") : 1;
            put_meta("run_order_next", std::to_string(run.order + 1));
            auto order = lmdb::big_endian(run.order);
            write_raw(s_.run_order, order, seal(order, run.id));
        }
        auto sealed = seal(run.id, record_text::of(run));
        write_raw(s_.runs, run.id, sealed);
        s_.run_cache.remember_written(run.id, sealed, sealed_text(sealed), run);
    }
    void put(step_record const& step) override {
        auto key = keys::step(step.run_id, step.index);
        auto sealed = seal(key, record_text::of(step));
        write_raw(s_.steps, key, sealed);
        s_.step_cache.remember_written(key, sealed, sealed_text(sealed), step);
    }
    void put(approval_record const& a) override {
        put_sealed(s_.approvals, keys::approval(a.run_id, a.step_index, a.seq), record_text::of(a));
    }
    void put(model_call_record const& m) override {
        put_sealed(s_.model_calls, keys::event(m.run_id, m.seq), record_text::of(m));
    }
    void put(event_record const& e) override {
        put_sealed(s_.events, keys::event(e.run_id, e.seq), record_text::of(e));
    }
    void put_meta(std::string_view key, std::string_view value) override {
        if (key == bare_meta_key)
            write_raw(s_.meta, key, value);
        else
            put_sealed(s_.meta, key, value);
    }
    void put_tool_spec(std::string_view hash, std::string_view spec) override {
        // Content-addressed and written by every allowed step: rewriting the same bytes would still
        // copy a page of the tree in each commit.
        auto stored = find(s_.tool_specs, hash);
        if (!stored || unseal(hash, *stored) != spec)
            put_sealed(s_.tool_specs, hash, spec);
    }

    bool erase_run(std::string_view run_id) override {
        auto existing = run(run_id);
        if (!existing)
            return false;
        erase_raw(s_.run_order, lmdb::big_endian(existing->order));
        erase_raw(s_.runs, run_id);
        for (MDB_dbi dbi : {s_.steps, s_.approvals, s_.events, s_.model_calls})
            erase_prefix(dbi, keys::run_prefix(run_id));
        return true;
    }

private:
    void write_raw(MDB_dbi dbi, std::string_view key, std::string_view value) {
        if (ahead_)
            ahead_->writes.push_back({dbi, std::string(key), std::string(value)});
        else
            lmdb::put(t_, dbi, key, value);
        wrote_ = true;
    }
    void erase_raw(MDB_dbi dbi, std::string_view key) {
        if (!ahead_) {
            wrote_ = lmdb::del(t_, dbi, key) || wrote_;
        } else if (find(dbi, key)) {
            ahead_->writes.push_back({dbi, std::string(key), std::nullopt});
            wrote_ = true;
        }
    }

    void put_sealed(MDB_dbi dbi, std::string_view key, std::string_view text) { write_raw(dbi, key, seal(key, text)); }

    void erase_prefix(MDB_dbi dbi, std::string const& prefix) {
        if (ahead_)
            abandon();
        std::vector<std::string> doomed;
        {
            lmdb::cursor c(t_, dbi);
            MDB_val k{}, v{};
            for (bool at = c.seek(prefix, k, v); at && lmdb::view(k).starts_with(prefix); at = c.next(k, v))
                doomed.emplace_back(lmdb::view(k));
        }
        for (auto const& key : doomed)
            erase_raw(dbi, key);
    }

    bool wrote_ = false;
};

// LMDB reports a write cut short by a full disk as EIO, not ENOSPC: a failed commit on a filesystem
// left with almost no space is the disk full.
error commit_error(lmdb_engine const& s, error e) {
    struct statvfs fs {};
    if (e.code != errc::store_failed || ::statvfs(s.path.c_str(), &fs) != 0)
        return e;
    auto free_bytes = static_cast<std::uintmax_t>(fs.f_bavail) * fs.f_frsize;
    if (free_bytes >= 16 * static_cast<std::uintmax_t>(::sysconf(_SC_PAGESIZE)))
        return e;
    return err(errc::storage_full, "store " + s.path.string() + " is full: its filesystem has " +
                                       std::to_string(free_bytes) + " bytes free (" + e.message +
                                       "); the transaction was not written");
}

// A commit LMDB refused: its sync may have failed, which puts the commits before it in doubt.
struct failed_commit final : exception {
    using exception::exception;
};

// The work done against the newest snapshot, or none when it threw or did what a snapshot cannot
// check: then it is done again under the writer lock, which gives its error if it has one.
std::optional<speculation> speculate(lmdb_engine const& s, std::function<void(engine_writer&)> const& work) {
    try {
        std::shared_lock lock(s.grow);
        lmdb::reader_pool::read t(s.readers);
        speculation ahead;
        writer_impl w(s, t.get(), &ahead);
        work(w);
        if (ahead.abandoned)
            return std::nullopt;
        return ahead;
    } catch (...) {
        return std::nullopt;
    }
}

// Whether every record the work read ahead is in `t` as it read it.
bool still_holds(MDB_txn* t, speculation const& ahead) {
    for (auto const& p : ahead.points) {
        auto now = lmdb::find(t, p.dbi, p.key);
        if (now.has_value() != p.value.has_value() || (now && *now != *p.value))
            return false;
    }
    for (auto const& r : ahead.ranges) {
        lmdb::cursor c(t, r.dbi);
        MDB_val k{}, v{};
        std::size_t i = 0;
        for (bool at = c.seek(r.prefix, k, v); at && lmdb::view(k).starts_with(r.prefix); at = c.next(k, v), ++i)
            if (i == r.records.size() || lmdb::view(k) != r.records[i].first || lmdb::view(v) != r.records[i].second)
                return false;
        if (i != r.records.size())
            return false;
    }
    return true;
}

// A pending write's changes in `t`: those of its work done ahead when what that read still holds,
// or else of its work done now. Whether it wrote anything.
bool do_work(lmdb_engine const& s, MDB_txn* t, pending_write const& p) {
    if (p.ahead && still_holds(t, *p.ahead)) {
        for (auto const& w : p.ahead->writes)
            if (w.value)
                lmdb::put(t, w.dbi, w.key, *w.value);
            else
                lmdb::del(t, w.dbi, w.key);
        return !p.ahead->writes.empty();
    }
    writer_impl w(s, t);
    (*p.work)(w);
    return w.wrote();
}

} // namespace

void lmdb_engine::read(std::function<void(store_reader const&)> const& work) const {
    refuse_in_forked_child();
    for (;;) {
        std::shared_lock lock(grow);
        std::optional<lmdb::reader_pool::read> t;
        try {
            t.emplace(readers);
        } catch (lmdb::map_resized const&) {
            lock.unlock();
            adopt_grown_map(*this);
            continue; // nothing of the work has run
        }
        reader_impl r(*this, t->get());
        try {
            work(r);
        } catch (lmdb::damaged_page const& e) {
            throw exception(damaged_page_error(*this, e));
        }
        return;
    }
}

static thread_local std::uint64_t last_write_txnid = 0;

// Group commit. A writer queues its transaction; the first to find no commit under way commits every
// queued one, each in its own nested transaction (so a work that throws leaves the others' changes
// intact), in one commit. Writers of other processes are serialised by LMDB's writer lock, as before.
//
// Under power_loss a commit syncs its data pages and leaves its meta page to a later sync
// (MDB_NOMETASYNC). A transaction that starts a tool returns only once its meta page is synced too,
// and the next commit's data sync does that for every commit before it: while other transactions
// wait, the next group's commit carries this one's meta page to the disk, and only a transaction
// with nobody behind it syncs by itself. Under load a group costs one sync, not two.
void lmdb_engine::write(std::function<void(engine_writer&)> const& work, bool flush) {
    refuse_in_forked_child();
    std::unique_lock lock(commit_mutex);
    ++writing;
    std::optional<speculation> ahead;
    if (committing) { // it would wait for that commit: its work is done meanwhile, outside the writer lock
        lock.unlock();
        ahead = speculate(*this, work);
        lock.lock();
    }
    pending_write mine{&work, flush && options.durability == durability::power_loss, ahead ? &*ahead : nullptr};
    ready.push_back(&mine);
    for (;;) {
        if (mine.done && mine.flush && !mine.failure)
            if (auto const* d = doubt_of(mine.txnid))
                mine.failure = std::make_exception_ptr(exception(err(
                    d->cause.code, "store " + path.string() + ": a sync failed after this transaction committed (" +
                                       d->cause.message + "): it is in the store, but may not survive power loss")));
        if (mine.done && (mine.failure || !mine.flush || durable_through >= mine.txnid))
            break;
        if (!committing && !ready.empty())
            lead_commit(lock);
        else if (mine.done && !committing && !syncing)
            sync_meta(lock);
        else
            committed.wait(lock);
    }
    if (--writing == 0)
        forget_past_doubts();
    lock.unlock();
    last_write_txnid = mine.failure ? 0 : mine.txnid;
    if (mine.failure)
        std::rethrow_exception(mine.failure);
}

std::uint64_t last_write_txnid_of_this_thread() noexcept {
    return last_write_txnid;
}

void lmdb_engine::lead_commit(std::unique_lock<std::mutex>& lock) {
    committing = true;
    auto group = std::exchange(ready, {});
    std::uint64_t const durable_before = durable_through, failures_before = failed_syncs;
    lock.unlock();
    group_outcome outcome;
    try {
        outcome = commit_group(group);
    } catch (...) { // adopting a map another process grew failed: nothing of the group was written
        for (auto* p : group)
            if (!p->failure)
                p->failure = std::current_exception();
    }
    lock.lock();
    if (outcome.txnid != 0)
        last_commit = std::max(last_commit, outcome.txnid);
    if (outcome.commit_failure) {
        ++failed_syncs;
        last_failure = *outcome.commit_failure;
        doubt(durable_before, last_commit, *outcome.commit_failure);
    } else if (failed_syncs != failures_before) {
        // Its data sync ran beside one that failed. That failure may have left no doubt of its own
        // (everything before it was durable), so its cause is kept apart from the doubts.
        doubt(durable_before, last_commit, last_failure);
    } else if (outcome.txnid != 0 && options.durability == durability::power_loss) {
        durable_through = std::max(durable_through, outcome.txnid - 1); // its data sync took their meta pages
    }
    // A group that wrote nothing depends on what it read: perhaps another process's commit, whose
    // meta page that process left to a later sync.
    std::uint64_t const depends_on = outcome.txnid != 0 ? last_commit : std::max(last_commit, outcome.seen);
    for (auto* p : group) {
        p->txnid = depends_on;
        p->done = true;
    }
    committing = false;
    committed.notify_all();
}

// The meta pages of this process's commits synced when no commit is coming to take them. Another
// writer may commit meanwhile.
void lmdb_engine::sync_meta(std::unique_lock<std::mutex>& lock) {
    syncing = true;
    std::uint64_t const durable_before = durable_through, failures_before = failed_syncs;
    std::uint64_t through = last_commit;
    lock.unlock();
    std::optional<error> failure;
    try {
        MDB_envinfo info{};
        lmdb::check(mdb_env_info(env.get(), &info), "mdb_env_info"); // the commits whose meta page is written
        through = std::max<std::uint64_t>(through, info.me_last_txnid);
        lmdb::check(mdb_env_sync(env.get(), 1), "mdb_env_sync");
        ++syncs;
    } catch (exception const& e) {
        failure = e.error();
    } catch (std::exception const& e) {
        failure = store_error(std::string("mdb_env_sync failed: ") + e.what());
    }
    lock.lock();
    syncing = false;
    // A failed sync also fails the commits made while it ran: Linux reports the lost writeback once.
    if (failure) {
        ++failed_syncs;
        last_failure = *failure;
        doubt(durable_before, std::max(through, last_commit), *failure); // the caller's commit among them
    } else if (failed_syncs != failures_before) {
        doubt(durable_before, std::max(through, last_commit), last_failure);
    } else {
        durable_through = std::max(durable_through, through);
    }
    committed.notify_all();
}

// A doubt that overlaps the newest one extends it: the newer failure came after every commit of
// both, so its cause is true of them all, and the list grows only by failures that successes
// separate.
void lmdb_engine::doubt(std::uint64_t after, std::uint64_t through, error cause) {
    if (after >= through)
        return;
    if (!doubts.empty() && after <= doubts.back().through)
        doubts.back() = {doubts.back().after, std::max(through, doubts.back().through), std::move(cause)};
    else
        doubts.push_back({after, through, std::move(cause)});
}

// With no writer inside `write`, a doubt matters only to one to come, whose transaction id is the
// newest commit at the least (one that writes nothing takes it).
void lmdb_engine::forget_past_doubts() {
    std::erase_if(doubts, [&](sync_doubt const& d) { return d.through < last_commit; });
}

sync_doubt const* lmdb_engine::doubt_of(std::uint64_t txnid) const noexcept {
    for (auto const& d : doubts)
        if (d.after < txnid && txnid <= d.through)
            return &d;
    return nullptr;
}

group_outcome lmdb_engine::commit_group(std::vector<pending_write*> const& group) {
    if (group.size() == 1) {
        try {
            return commit_alone(*group.front());
        } catch (failed_commit const& e) {
            group.front()->failure = std::current_exception();
            return {.commit_failure = e.error()};
        } catch (...) {
            group.front()->failure = std::current_exception();
            return {};
        }
    }
    auto fail_all = [&](std::exception_ptr failure) {
        for (auto* p : group)
            if (!p->failure)
                p->failure = failure;
    };
    for (;;) {
        try {
            std::shared_lock lock(grow);
            lmdb::txn t(env.get(), false);
            bool wrote = false;
            for (auto* p : group) {
                p->failure = nullptr;
                lmdb::txn nested(env.get(), t.get());
                try {
                    bool const wrote_this = do_work(*this, nested.get(), *p);
                    nested.commit();
                    wrote = wrote || wrote_this;
                } catch (lmdb::map_full const&) {
                    throw;
                } catch (lmdb::map_resized const&) {
                    throw;
                } catch (lmdb::damaged_page const&) {
                    throw;
                } catch (...) {
                    p->failure = std::current_exception(); // its nested transaction is aborted
                }
            }
            std::uint64_t const seen = mdb_txn_id(t.get()) - 1;
            return {commit(t, wrote), seen};
        } catch (lmdb::damaged_page const& e) {
            fail_all(std::make_exception_ptr(exception(damaged_page_error(*this, e))));
            return {};
        } catch (lmdb::map_resized const&) {
            adopt_grown_map(*this);
        } catch (lmdb::map_full const&) {
            try {
                grow_map();
            } catch (...) {
                fail_all(std::current_exception());
                return {};
            }
        } catch (failed_commit const& e) {
            fail_all(std::current_exception()); // nothing of the group was written
            return {.commit_failure = e.error()};
        } catch (...) {
            fail_all(std::current_exception());
            return {};
        }
    }
}

group_outcome lmdb_engine::commit_alone(pending_write const& p) {
    for (;;) {
        try {
            std::shared_lock lock(grow);
            lmdb::txn t(env.get(), false);
            bool const wrote = do_work(*this, t.get(), p);
            std::uint64_t const seen = mdb_txn_id(t.get()) - 1;
            return {commit(t, wrote), seen};
        } catch (lmdb::damaged_page const& e) {
            throw exception(damaged_page_error(*this, e));
        } catch (lmdb::map_resized const&) {
            adopt_grown_map(*this);
        } catch (lmdb::map_full const&) {
            grow_map();
        }
    }
}

std::uint64_t lmdb_engine::commit(lmdb::txn& t, bool wrote) {
    std::uint64_t const txnid = mdb_txn_id(t.get());
    try {
        t.commit();
    } catch (lmdb::damaged_page const&) {
        throw;
    } catch (exception const& e) {
        throw failed_commit(commit_error(*this, e.error()));
    }
    ++commits;
    if (!wrote)
        return 0; // LMDB wrote nothing and synced nothing
    if (options.durability == durability::power_loss)
        ++syncs; // MDB_NOMETASYNC: the commit synced its data pages
    return txnid;
}

void lmdb_engine::grow_map() {
    std::unique_lock lock(grow);
    if (map_bytes >= options.lmdb.max_map_bytes)
        throw exception(err(errc::storage_full, "store " + path.string() + " is full at its maximum map size of " +
                                                    std::to_string(options.lmdb.max_map_bytes) +
                                                    " bytes; the transaction was not written"));
    std::size_t bigger = std::min(map_bytes * 2, options.lmdb.max_map_bytes);
    lmdb::check(mdb_env_set_mapsize(env.get(), bigger), "mdb_env_set_mapsize");
    MDB_envinfo info{};
    mdb_env_info(env.get(), &info);
    map_bytes = info.me_mapsize;
    ++grows;
}

} // namespace agentrt::lmdb_detail
