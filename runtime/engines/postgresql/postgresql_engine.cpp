// The PostgreSQL engine: records as the same JSON text the LMDB engine keeps, one table per kind.
#include "postgresql_engine.hpp"

#include "connections.hpp"
#include "errors.hpp"
#include "record_text.hpp"
#include "run_bundles.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <unistd.h>

namespace agentrt::pg_detail {
namespace {

// Created by a writer, in one transaction, under a transaction-level advisory lock so that two
// writers opening a new store at once do not race. Keys and records are bytea: a record may hold any
// byte a model sent. The meta rows every run creation changes exist from the start, so that creators
// queue on their row locks (a row that does not exist yet locks nothing).
constexpr char const* schema_v2 = R"sql(
CREATE TABLE IF NOT EXISTS agentrt_meta (key bytea PRIMARY KEY, value bytea NOT NULL);
CREATE TABLE IF NOT EXISTS agentrt_runs (id bytea PRIMARY KEY, run_order bigint NOT NULL UNIQUE, record bytea NOT NULL);
CREATE TABLE IF NOT EXISTS agentrt_steps (run_id bytea, idx bigint, record bytea NOT NULL, PRIMARY KEY (run_id, idx));
CREATE TABLE IF NOT EXISTS agentrt_approvals (run_id bytea, step bigint, seq bigint, record bytea NOT NULL,
                                              PRIMARY KEY (run_id, step, seq));
CREATE TABLE IF NOT EXISTS agentrt_events (run_id bytea, seq bigint, record bytea NOT NULL, PRIMARY KEY (run_id, seq));
CREATE TABLE IF NOT EXISTS agentrt_model_calls (run_id bytea, seq bigint, record bytea NOT NULL,
                                                PRIMARY KEY (run_id, seq));
CREATE TABLE IF NOT EXISTS agentrt_tool_specs (hash bytea PRIMARY KEY, spec bytea NOT NULL);
INSERT INTO agentrt_meta (key, value) VALUES ('run_chain_head'::bytea, ''::bytea), ('run_order_next'::bytea, '1'::bytea)
    ON CONFLICT (key) DO NOTHING;
)sql";

constexpr long long schema_lock_key = 0x61676e7472740001; // "agntrt" 1

std::string text_of(pqxx::field const& f) {
    return pqxx::binarystring(f).str();
}
long long signed_of(std::uint64_t n) {
    return static_cast<long long>(n);
}

// The advisory lock key of a lease holder: FNV-1a of "host/pid".
long long holder_key(std::string_view host, std::int64_t pid) {
    std::uint64_t h = 14695981039346656037ull;
    auto mix = [&](std::string_view s) {
        for (unsigned char c : s)
            h = (h ^ c) * 1099511628211ull;
    };
    mix(host);
    mix("/");
    mix(std::to_string(pid));
    return static_cast<long long>(h);
}

// The statements a step sends, and the other reads and puts of one record, prepared by each
// connection. Their names carry the schema version.
statement const lock_run{"agentrt_2_lock_run", "bytea", "SELECT 1 FROM agentrt_runs WHERE id = $1 FOR UPDATE"};
statement const step_at{"agentrt_2_step_at", "bytea, bigint",
                        "SELECT record FROM agentrt_steps WHERE run_id = $1 AND idx = $2"};
statement const run_order_of{"agentrt_2_run_order_of", "bytea", "SELECT run_order FROM agentrt_runs WHERE id = $1"};
statement const insert_run{"agentrt_2_insert_run", "bytea, bigint, bytea",
                           "INSERT INTO agentrt_runs (id, run_order, record) VALUES ($1, $2, $3)"};
statement const update_run{"agentrt_2_update_run", "bytea, bytea", "UPDATE agentrt_runs SET record = $2 WHERE id = $1"};
statement const put_step{"agentrt_2_put_step", "bytea, bigint, bytea",
                         "INSERT INTO agentrt_steps (run_id, idx, record) VALUES ($1, $2, $3) "
                         "ON CONFLICT (run_id, idx) DO UPDATE SET record = EXCLUDED.record"};
statement const put_approval{"agentrt_2_put_approval", "bytea, bigint, bigint, bytea",
                             "INSERT INTO agentrt_approvals (run_id, step, seq, record) VALUES ($1, $2, $3, $4) "
                             "ON CONFLICT (run_id, step, seq) DO UPDATE SET record = EXCLUDED.record"};
statement const put_model_call{"agentrt_2_put_model_call", "bytea, bigint, bytea",
                               "INSERT INTO agentrt_model_calls (run_id, seq, record) VALUES ($1, $2, $3) "
                               "ON CONFLICT (run_id, seq) DO UPDATE SET record = EXCLUDED.record"};
statement const put_event{"agentrt_2_put_event", "bytea, bigint, bytea",
                          "INSERT INTO agentrt_events (run_id, seq, record) VALUES ($1, $2, $3) "
                          "ON CONFLICT (run_id, seq) DO UPDATE SET record = EXCLUDED.record"};
statement const meta_at{"agentrt_2_meta", "bytea", "SELECT value FROM agentrt_meta WHERE key = $1"};
statement const meta_locked{"agentrt_2_meta_locked", "bytea",
                            "SELECT value FROM agentrt_meta WHERE key = $1 FOR UPDATE"};
statement const put_meta_value{"agentrt_2_put_meta", "bytea, bytea",
                               "INSERT INTO agentrt_meta (key, value) VALUES ($1, $2) "
                               "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"};
statement const tool_spec_of{"agentrt_2_tool_spec", "bytea", "SELECT spec FROM agentrt_tool_specs WHERE hash = $1"};
statement const put_tool_spec_text{"agentrt_2_put_tool_spec", "bytea, bytea",
                                   "INSERT INTO agentrt_tool_specs (hash, spec) VALUES ($1, $2) "
                                   "ON CONFLICT (hash) DO NOTHING"}; // a spec's hash names its text

statement const bundle_of_run{
    "agentrt_2_run_bundle", "bytea",
    "SELECT 0, 0::bigint, 0::bigint, record FROM agentrt_runs WHERE id = $1 "
    "UNION ALL (SELECT 1, idx, 0, record FROM agentrt_steps WHERE run_id = $1 ORDER BY idx DESC LIMIT " +
        std::to_string(run_bundle::steps_kept) +
        ") UNION ALL (SELECT 2, step, seq, record FROM agentrt_approvals WHERE run_id = $1 ORDER BY step, seq LIMIT " +
        std::to_string(run_bundle::approvals_kept + 1) + ") ORDER BY 1, 2, 3"};

// Fails with a serialization failure unless the run's bundle is still the one of the digest $2.
statement const expect_bundle{"agentrt_2_expect_bundle", "bytea, text", "SELECT agentrt_2_expect_run_bundle($1, $2)"};

std::vector<statement> statements_to_prepare(bool optimistic) {
    std::vector<statement> out{lock_run,     bundle_of_run,  step_at,        meta_at,      meta_locked,
                               run_order_of, insert_run,     update_run,     put_step,     put_approval,
                               put_event,    put_model_call, put_meta_value, tool_spec_of, put_tool_spec_text};
    if (optimistic) // prepared only where the function exists
        out.push_back(expect_bundle);
    return out;
}

std::string schema_script() {
    return schema_v2 + expect_run_bundle_function(bundle_of_run.body);
}

// A write's last put of a run's record, when it changed the record: after a connection lost during
// COMMIT, the record read again says whether the commit was written (no other writer writes the
// same bytes: a record carries its holder, its times and the hash of its last event).
struct written_run {
    std::string id, text;
};

// Reads of one transaction. In a write, a run's row and a meta row are read FOR UPDATE: every write
// of the runtime reads its run first, so the writers of one run queue on its row, and those that
// create runs on the chain head, each seeing what the one before it committed.
class reader_impl : public virtual store_reader {
public:
    reader_impl(transaction& t, bool locking) : t_(t), locking_(locking) {}

    std::optional<run_record> run(std::string_view id) const override {
        auto const& b = bundle_of(id);
        if (!b.run)
            return std::nullopt;
        return run_from_json(parse_record_text(*b.run));
    }
    std::vector<run_record> runs_before(std::uint64_t before_order, std::size_t limit) const override {
        auto order = signed_of(before_order);
        return all_of(t_.exec("SELECT record FROM agentrt_runs" +
                              (order == 0 ? std::string() : " WHERE run_order < " + std::to_string(order)) +
                              " ORDER BY run_order DESC LIMIT " +
                              std::to_string(std::min<std::uint64_t>(limit, INT64_MAX))),
                      run_from_json);
    }
    std::optional<step_record> step(std::string_view run_id, std::uint64_t index) const override {
        if (auto b = bundles_.find(run_id); b != bundles_.end() && b->second.knows_step(index)) {
            auto text = b->second.step(index);
            if (!text)
                return std::nullopt;
            return step_from_json(parse_record_text(*text));
        }
        auto r = t_.exec(t_.call(step_at, {t_.bytea(run_id), std::to_string(signed_of(index))}));
        if (r.empty())
            return std::nullopt;
        return step_from_json(parse_record_text(text_of(r[0][0])));
    }
    std::vector<step_record> steps(std::string_view run_id) const override {
        if (auto b = bundles_.find(run_id); b != bundles_.end() && b->second.steps.size() < run_bundle::steps_kept) {
            std::vector<step_record> out;
            for (auto const& [i, text] : b->second.steps)
                out.push_back(step_from_json(parse_record_text(text)));
            return out;
        }
        return all_of(t_.exec("SELECT record FROM agentrt_steps WHERE run_id = " + t_.bytea(run_id) + " ORDER BY idx"),
                      step_from_json);
    }
    std::vector<approval_record> approvals(std::string_view run_id) const override {
        if (auto b = bundles_.find(run_id); b != bundles_.end() && !b->second.more_approvals()) {
            std::vector<approval_record> out;
            for (auto const& a : b->second.approvals)
                out.push_back(approval_from_json(parse_record_text(a.text)));
            return out;
        }
        return all_of(
            t_.exec("SELECT record FROM agentrt_approvals WHERE run_id = " + t_.bytea(run_id) + " ORDER BY step, seq"),
            approval_from_json);
    }
    std::vector<event_record> events(std::string_view run_id) const override {
        return all_of(t_.exec("SELECT record FROM agentrt_events WHERE run_id = " + t_.bytea(run_id) + " ORDER BY seq"),
                      event_from_json);
    }
    std::vector<model_call_record> model_calls(std::string_view run_id) const override {
        return all_of(
            t_.exec("SELECT record FROM agentrt_model_calls WHERE run_id = " + t_.bytea(run_id) + " ORDER BY seq"),
            model_call_from_json);
    }
    std::optional<std::string> meta(std::string_view key) const override {
        auto r = t_.exec(t_.call(locking_ ? meta_locked : meta_at, {t_.bytea(key)}));
        if (r.empty())
            return std::nullopt;
        return text_of(r[0][0]);
    }
    std::optional<std::string> tool_spec(std::string_view hash) const override {
        auto r = t_.exec(t_.call(tool_spec_of, {t_.bytea(hash)}));
        if (r.empty())
            return std::nullopt;
        return text_of(r[0][0]);
    }

    // The bundles this transaction read, by run.
    // The run bundles the read took, once its work is done.
    std::map<std::string, run_bundle, std::less<>> take_bundles() noexcept { return std::move(bundles_); }

protected:
    template <class R>
    static std::vector<R> all_of(pqxx::result const& r, R (*from)(boost::json::value const&)) {
        std::vector<R> out;
        out.reserve(r.size());
        for (auto const& row : r)
            out.push_back(from(parse_record_text(text_of(row[0]))));
        return out;
    }

    // The run's bundle, read once per transaction (again after this write changed the run). In a
    // write the run's row is locked by a statement of its own first: under READ COMMITTED the
    // bundle's statement then starts after the lock was granted, and sees what the writer before
    // committed.
    run_bundle const& bundle_of(std::string_view id) const {
        if (auto known = bundles_.find(id); known != bundles_.end())
            return known->second;
        if (auto const* seen = base_seen_before(id))
            return taken(id, *seen);
        auto key = t_.bytea(id);
        std::string sql;
        if (locking_)
            sql = t_.call(lock_run, {key}) + ";\n";
        sql += t_.call(bundle_of_run, {key});
        run_bundle b;
        for (auto const& row : t_.exec(sql)) {
            switch (row[0].as<int>()) {
            case 0:
                b.run = text_of(row[3]);
                break;
            case 1:
                b.steps.emplace_back(row[1].as<std::uint64_t>(), text_of(row[3]));
                break;
            default:
                b.approvals.push_back({row[1].as<std::uint64_t>(), row[2].as<std::uint64_t>(), text_of(row[3])});
            }
        }
        if (locking_)
            (b.run ? present_ : absent_).emplace(id);
        return taken(id, std::move(b));
    }

    // A write's base for the run, when it may take what this thread saw last instead of reading.
    virtual run_bundle const* base_seen_before(std::string_view) const { return nullptr; }
    virtual run_bundle const& taken(std::string_view id, run_bundle b) const {
        return bundles_.insert_or_assign(std::string(id), std::move(b)).first->second;
    }

    transaction& t_;
    bool locking_;
    mutable std::map<std::string, run_bundle, std::less<>> bundles_;
    // Runs this write read as absent: there is no row to lock, so a put creating one must be a plain
    // insert, which fails when another writer created it meanwhile (and the attempt is run again).
    mutable std::set<std::string, std::less<>> absent_;
    mutable std::set<std::string, std::less<>> present_; // and as present, locked: a put updates it
};

// A read answered from what this thread last saw of each run it asks for, without a round trip:
// for a read a later write checks (that write's digest is of the same bundle). Whatever the
// bundles do not hold throws not_seen, and the read goes to the server instead.
class last_seen_reader final : public store_reader {
public:
    struct not_seen {};

    explicit last_seen_reader(connection_pool const& pool) : pool_(pool) {}

    std::optional<run_record> run(std::string_view id) const override {
        auto const& b = seen(id);
        if (!b.run) // seen absent, perhaps before another thread created it: the server says
            throw not_seen{};
        return run_from_json(parse_record_text(*b.run));
    }
    std::optional<step_record> step(std::string_view run_id, std::uint64_t index) const override {
        auto const& b = seen(run_id);
        if (!b.knows_step(index))
            throw not_seen{};
        auto text = b.step(index);
        if (!text)
            return std::nullopt;
        return step_from_json(parse_record_text(*text));
    }
    std::vector<approval_record> approvals(std::string_view run_id) const override {
        auto const& b = seen(run_id);
        if (b.more_approvals())
            throw not_seen{};
        std::vector<approval_record> out;
        for (auto const& a : b.approvals)
            out.push_back(approval_from_json(parse_record_text(a.text)));
        return out;
    }
    std::vector<run_record> runs_before(std::uint64_t, std::size_t) const override { throw not_seen{}; }
    std::vector<step_record> steps(std::string_view) const override { throw not_seen{}; }
    std::vector<event_record> events(std::string_view) const override { throw not_seen{}; }
    std::vector<model_call_record> model_calls(std::string_view) const override { throw not_seen{}; }
    std::optional<std::string> meta(std::string_view) const override { throw not_seen{}; }
    std::optional<std::string> tool_spec(std::string_view) const override { throw not_seen{}; }

private:
    run_bundle const& seen(std::string_view run_id) const {
        auto const* b = seen_bundles::find(pool_, run_id);
        if (!b)
            throw not_seen{};
        return *b;
    }
    connection_pool const& pool_;
};

// A write's puts are queued and sent together with its next read or with its commit, so a step's
// records cost no round trip of their own. A write may take a run's bundle from what this thread
// saw last (`optimistic`): it then reads nothing, and sends the run's lock and the digest of that
// bundle ahead of its puts, so that the server refuses the write if the run changed meanwhile, and
// the whole write travels in one message with its COMMIT.
class writer_impl final : public reader_impl, public engine_writer {
public:
    writer_impl(transaction& t, connection_pool const& pool, bool optimistic)
        : reader_impl(t, true), pool_(pool), optimistic_(optimistic) {}

    // The last put of a run's record that changed what this write found, if there is one.
    std::optional<written_run> changed_run() const {
        for (auto const& [id, text] : last_put_)
            if (auto base = base_run_.find(id); base != base_run_.end() && base->second != text)
                return written_run{id, text};
        return std::nullopt;
    }
    // What this write leaves of each run it read, for seen_bundles once it committed, and the runs
    // it changed without reading: taken once its work is done.
    std::map<std::string, run_bundle, std::less<>> take_bundles_after() noexcept { return std::move(after_); }
    std::set<std::string, std::less<>> take_unknown_after() noexcept { return std::move(unknown_); }
    // Whether the write took a run as this thread had seen it, unchecked until the commit.
    bool took_what_was_seen() const noexcept { return took_seen_; }

private:
    run_bundle const* base_seen_before(std::string_view id) const override {
        if (!optimistic_ || base_run_.contains(id))
            return nullptr;
        auto const* seen = seen_bundles::find(pool_, id);
        if (!seen || !seen->run)
            return nullptr; // a run created meanwhile is left to the insert that creates it
        auto key = t_.bytea(id);
        t_.queue(t_.call(lock_run, {key}));
        t_.queue(t_.call(expect_bundle, {key, t_.text(seen->digest())}));
        present_.emplace(id);
        took_seen_ = true;
        return seen;
    }
    run_bundle const& taken(std::string_view id, run_bundle b) const override {
        base_run_.try_emplace(std::string(id), b.run);
        after_.insert_or_assign(std::string(id), b);
        return reader_impl::taken(id, std::move(b));
    }

    void send(std::string const& statement) {
        t_.queue(statement);
        if (t_.queued_bytes() > (std::size_t{1} << 20)) // a copy of a whole store: in batches of about 1 MiB
            t_.exec("SELECT 1");
    }
    // The bundle of `run_id` after this put, or unknown when this write did not read it.
    run_bundle* changed(std::string_view run_id) {
        if (auto b = bundles_.find(run_id); b != bundles_.end())
            bundles_.erase(b);
        if (auto a = after_.find(run_id); a != after_.end())
            return &a->second;
        unknown_.emplace(run_id);
        return nullptr;
    }

public:
    void put(run_record& run) override {
        auto* after = changed(run.id);
        bool creating = absent_.erase(run.id) > 0;
        if (!creating && !present_.contains(run.id)) {
            auto known = t_.exec(t_.call(run_order_of, {t_.bytea(run.id)}));
            creating = known.empty();
            if (!creating)
                run.order = known[0][0].as<std::uint64_t>();
        }
        if (creating) {
            auto next = meta("run_order_next");
            run.order = next ? stored_counter(*next, "run_order_next") : 1;
            put_meta("run_order_next", std::to_string(run.order + 1));
        }
        auto text = record_text::of(run);
        if (creating) // a plain insert: two creators of one id must not both succeed
            send(t_.call(insert_run, {t_.bytea(run.id), std::to_string(signed_of(run.order)), t_.bytea(text)}));
        else
            send(t_.call(update_run, {t_.bytea(run.id), t_.bytea(text)}));
        if (after)
            after->run = text;
        last_put_.insert_or_assign(run.id, std::move(text));
    }
    void put(step_record const& s) override {
        auto* after = changed(s.run_id);
        auto text = record_text::of(s);
        send(t_.call(put_step, {t_.bytea(s.run_id), std::to_string(s.index), t_.bytea(text)}));
        if (after)
            after->put_step(s.index, std::move(text));
    }
    void put(approval_record const& a) override {
        auto* after = changed(a.run_id);
        auto text = record_text::of(a);
        send(t_.call(put_approval,
                     {t_.bytea(a.run_id), std::to_string(a.step_index), std::to_string(a.seq), t_.bytea(text)}));
        if (after)
            after->put_approval(a.step_index, a.seq, std::move(text));
    }
    void put(model_call_record const& m) override {
        send(t_.call(put_model_call, {t_.bytea(m.run_id), std::to_string(m.seq), t_.bytea(record_text::of(m))}));
    }
    void put(event_record const& e) override {
        send(t_.call(put_event, {t_.bytea(e.run_id), std::to_string(e.seq), t_.bytea(record_text::of(e))}));
    }
    void put_meta(std::string_view key, std::string_view value) override {
        send(t_.call(put_meta_value, {t_.bytea(key), t_.bytea(value)}));
    }
    void put_tool_spec(std::string_view hash, std::string_view spec) override {
        send(t_.call(put_tool_spec_text, {t_.bytea(hash), t_.bytea(spec)}));
    }
    bool erase_run(std::string_view run_id) override {
        changed(run_id);
        if (auto a = after_.find(run_id); a != after_.end())
            after_.erase(a);
        if (auto p = last_put_.find(run_id); p != last_put_.end())
            last_put_.erase(p);
        unknown_.emplace(run_id);
        auto key = t_.bytea(run_id);
        // The run's row first: a writer of the run waits on it, then finds the run gone.
        std::string sql = "SELECT 1 FROM agentrt_runs WHERE id = " + key + " FOR UPDATE;\n";
        for (char const* table : {"agentrt_steps", "agentrt_approvals", "agentrt_events", "agentrt_model_calls"})
            sql += std::string("DELETE FROM ") + table + " WHERE run_id = " + key + ";\n";
        sql += "DELETE FROM agentrt_runs WHERE id = " + key;
        return t_.exec(sql).affected_rows() > 0;
    }

private:
    connection_pool const& pool_;
    bool optimistic_;
    mutable std::map<std::string, std::optional<std::string>, std::less<>> base_run_; // as first taken
    mutable bool took_seen_ = false;
    mutable std::map<std::string, run_bundle, std::less<>> after_;
    std::set<std::string, std::less<>> unknown_;
    std::map<std::string, std::string, std::less<>> last_put_;
};

std::string this_host() {
    char buffer[256] = {};
    ::gethostname(buffer, sizeof buffer - 1);
    return buffer;
}

class postgresql_engine final : public engine {
public:
    postgresql_engine(std::string uri, store_options options)
        : shown_(redacted(uri)), options_(options),
          pool_(std::move(uri), shown_, options.durability, options.postgresql) {}

    ~postgresql_engine() override { seen_bundles::forget_all(pool_); }

    std::string const& location() const noexcept override { return shown_; }
    agentrt::durability durability() const noexcept override { return options_.durability; }

    void read(std::function<void(store_reader const&)> const& work) const override {
        in_transaction(pool_, txn_kind::read, [&](transaction& t) {
            reader_impl r(t, false);
            work(r);
            if (t.kind() == txn_kind::read) // not a read within a write, which sees what is not committed
                for (auto& [id, b] : r.take_bundles())
                    seen_bundles::remember(pool_, id, std::move(b));
        });
    }

    // Only where the server checks a write's digest: there the write that follows refuses a run
    // that changed since this thread saw it.
    void read_as_last_seen(std::function<void(store_reader const&)> const& work) const override {
        if (optimistic_ && !inside_a_transaction(pool_))
            try {
                work(last_seen_reader(pool_));
                return;
            } catch (last_seen_reader::not_seen const&) {
            }
        read(work);
    }

    void write(std::function<void(engine_writer&)> const& work, bool flush) override {
        keep_alive();
        // The commit is the flush: with synchronous_commit on it returns once its WAL is on disk. Under
        // process_crash the commit that starts a tool is flushed too, so that a server crash cannot
        // lose a tool's start and let it be decided, and run, again.
        bool const sync_this = flush && options_.durability == durability::process_crash;
        int attempt = 0;
        std::optional<written_run> changed;
        std::map<std::string, run_bundle, std::less<>> after;
        std::set<std::string, std::less<>> unknown;
        try {
            in_transaction(
                pool_, txn_kind::write,
                [&](transaction& t) {
                    if (sync_this)
                        t.queue("SET LOCAL synchronous_commit = on");
                    // After a failed attempt (the run had changed, most often), from what the server holds.
                    writer_impl w(t, pool_, optimistic_ && ++attempt == 1);
                    try {
                        work(w);
                    } catch (...) {
                        // Work that failed on a run as this thread saw it, which the commit would
                        // have refused had it changed, runs again from what the server holds.
                        if (w.took_what_was_seen())
                            throw run_again{"its work failed on a run as this thread had seen it"};
                        throw;
                    }
                    changed = w.changed_run();
                    if (changed)
                        t.may_commit_in_one_message();
                    after = w.take_bundles_after();
                    unknown = w.take_unknown_after();
                },
                [&] { return changed ? look_again(*changed) : commit_outcome::unknown; });
        } catch (...) {
            seen_bundles::forget_all(pool_);
            throw;
        }
        for (auto const& id : unknown)
            seen_bundles::forget(pool_, id);
        for (auto& [id, b] : after)
            seen_bundles::remember(pool_, id, std::move(b));
        ++commits_;
        if (options_.durability == durability::power_loss)
            ++syncs_;
    }

    std::string const& host() const noexcept override { return host_; }
    std::int64_t process_id() const noexcept override { return ::getpid(); }

    // A holder is alive while its process's liveness connection holds its advisory lock: the server
    // drops the lock the moment that connection ends (the process killed, or cut off once the TCP
    // keepalives set on it give up).
    bool holder_alive(lease_record const& lease) const override {
        if (lease.owner.empty())
            return false;
        if (lease.host == host_ && lease.pid == ::getpid())
            return true; // which of this process's sessions live is the runtime's to say
        auto key = static_cast<std::uint64_t>(holder_key(lease.host, lease.pid));
        try {
            bool held = false;
            in_transaction(pool_, txn_kind::read, [&](transaction& t) {
                held = t.exec("SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
                              "AND classid = " +
                              std::to_string(key >> 32) +
                              "::bigint::oid AND objid = " + std::to_string(key & 0xffffffffu) +
                              "::bigint::oid AND objsubid = 1 "
                              "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))")[0][0]
                           .as<bool>();
            });
            return held;
        } catch (std::exception const&) {
            return true; // cannot tell: the lease's expiry still frees the run
        }
    }

    result<void> backup(std::filesystem::path const&) const override {
        return err(errc::refused, "store " + shown_ +
                                      " is a PostgreSQL database: back it up with the database's own tools "
                                      "(pg_dump, or a base backup with its WAL)");
    }

    store_stats stats() const override { return {commits_.load(), syncs_.load(), 0, 0}; }

    // Creates or migrates the schema (a writer) or checks it (an operator), then takes this process's
    // liveness lock.
    result<void> start() {
        try {
            if (auto ok = prepare_schema(); !ok)
                return ok;
            auto statements = statements_to_prepare(optimistic_);
            pool_.prepare_on_each_connection(statements);
            take_liveness_lock();
        } catch (exception const& e) {
            return e.error();
        } catch (std::exception const& e) {
            return err(errc::store_failed, "store " + shown_ + ": " + said(e));
        }
        return {};
    }

private:
    // Whether a write whose connection was lost during COMMIT was written: its run's record, read
    // under the run's lock (so after the lost session's transaction ended, if it still runs), is
    // the one it wrote.
    commit_outcome look_again(written_run const& w) {
        try {
            std::optional<std::string> now;
            in_transaction(pool_, txn_kind::write, [&](transaction& t) {
                auto r = t.exec("SET LOCAL lock_timeout = '10s';\nSELECT record FROM agentrt_runs WHERE id = " +
                                t.bytea(w.id) + " FOR UPDATE");
                now = r.empty() ? std::nullopt : std::optional(text_of(r[0][0]));
            });
            return now == w.text ? commit_outcome::written : commit_outcome::not_written;
        } catch (std::exception const&) {
            return commit_outcome::unknown;
        }
    }

    // Shared, so that every store this process opens on the database holds it (a second exclusive
    // lock of the same key would wait for the first forever).
    void take_liveness_lock() {
        liveness_ = pool_.connect();
        pqxx::nontransaction t(*liveness_);
        for (auto const* setting :
             {"SET tcp_keepalives_idle = 5", "SET tcp_keepalives_interval = 2", "SET tcp_keepalives_count = 3",
              "SET tcp_user_timeout = 10000", "SET idle_session_timeout = 0"})
            try {
                t.exec0(setting);
            } catch (pqxx::sql_error const&) {
                // An older server without the setting: the connection still holds the lock.
            }
        t.exec_params("SELECT pg_advisory_lock_shared($1)", holder_key(host_, ::getpid()));
        liveness_checked_ = std::chrono::steady_clock::now();
    }

    // The server may end the liveness session (terminated, restarted, a network cut): the process
    // would then look dead while it lives. At most once a second, before a write, it is checked and,
    // when gone, taken again.
    void keep_alive() {
        std::lock_guard lock(liveness_mutex_);
        auto now = std::chrono::steady_clock::now();
        if (now - liveness_checked_ < std::chrono::seconds(1))
            return;
        liveness_checked_ = now;
        try {
            pqxx::nontransaction t(*liveness_);
            t.exec0("SELECT 1");
        } catch (std::exception const&) {
            try {
                take_liveness_lock();
            } catch (std::exception const&) {
                // The write that follows reports the server; the next one tries again.
            }
        }
    }

    result<void> prepare_schema() {
        result<void> outcome;
        in_transaction(pool_, txn_kind::write, [&](transaction& t) {
            outcome = {};
            bool exists = !t.exec("SELECT to_regclass('agentrt_meta') IS NULL")[0][0].as<bool>();
            if (!exists && options_.access == store_access::operator_only) {
                outcome = err(errc::not_found, "no store at " + shown_ + " (an operator never creates one)");
                return;
            }
            if (options_.access == store_access::writer) {
                t.exec("SELECT pg_advisory_xact_lock(" + std::to_string(schema_lock_key) + ");\n" + schema_script());
            }
            // A store made by an earlier agentrt, opened by an operator, may not have it yet.
            optimistic_ = t.exec("SELECT to_regprocedure('agentrt_2_expect_run_bundle(bytea, text)') IS NOT NULL")[0][0]
                              .as<bool>();
            writer_impl w(t, pool_, false);
            auto text = w.meta("schema_version");
            int version = 0;
            if (text) {
                auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), version);
                if (ec != std::errc{} || end != text->data() + text->size()) {
                    outcome =
                        err(errc::store_failed, "store " + shown_ + " is damaged: its schema version is '" +
                                                    text->substr(0, 40) + "', not a number: restore it from a backup");
                    return;
                }
            }
            if (version > store_schema_version)
                outcome =
                    err(errc::store_failed, "store " + shown_ + " has schema version " + std::to_string(version) +
                                                ", newer than this library's " + std::to_string(store_schema_version) +
                                                ": open it with a newer agentrt");
            else if (version < store_schema_version && options_.access == store_access::operator_only)
                outcome = err(errc::store_failed, "store " + shown_ + " has schema version " + std::to_string(version) +
                                                      ", older than " + std::to_string(store_schema_version) +
                                                      "; an operator never migrates: open it once with a writer");
            else if (version < store_schema_version) // a new store: version 2 is this engine's first
                w.put_meta("schema_version", std::to_string(store_schema_version));
        });
        return outcome;
    }

    std::string shown_;
    store_options options_;
    mutable connection_pool pool_;
    std::string host_ = this_host();
    std::mutex liveness_mutex_;
    std::unique_ptr<pqxx::connection> liveness_;
    std::chrono::steady_clock::time_point liveness_checked_{};
    std::atomic<std::uint64_t> commits_{0}, syncs_{0};
    bool optimistic_ = false; // set by start(), before the engine is shared
};

} // namespace
} // namespace agentrt::pg_detail

namespace agentrt::engines {

result<std::shared_ptr<engine>> open_postgresql(std::string const& uri, store_options const& options) {
    try {
        auto e = std::make_shared<pg_detail::postgresql_engine>(uri, options);
        if (auto started = e->start(); !started)
            return started.error();
        return std::shared_ptr<engine>(std::move(e));
    } catch (exception const& e) {
        return e.error();
    }
}

} // namespace agentrt::engines
