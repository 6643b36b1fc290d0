// The PostgreSQL engine: records as the same JSON text the LMDB engine keeps, one table per kind.
#include "postgresql_engine.hpp"

#include "connections.hpp"
#include "errors.hpp"
#include "record_text.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
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

pqxx::binarystring bytes(std::string_view s) {
    return pqxx::binarystring(s.data(), s.size());
}
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

// Reads of one transaction. In a write, a run's row and a meta row are read FOR UPDATE: every write
// of the runtime reads its run first, so the writers of one run queue on its row, and those that
// create runs on the chain head, each seeing what the one before it committed.
class reader_impl : public virtual store_reader {
public:
    reader_impl(pqxx::transaction_base& t, bool locking) : t_(t), lock_(locking ? " FOR UPDATE" : "") {}

    std::optional<run_record> run(std::string_view id) const override {
        flush();
        auto r = t_.exec_params("SELECT record FROM agentrt_runs WHERE id = $1" + lock_, bytes(id));
        if (r.empty()) {
            if (!lock_.empty())
                absent_.emplace(id);
            return std::nullopt;
        }
        if (!lock_.empty())
            present_.emplace(id);
        return run_from_json(parse_record_text(text_of(r[0][0])));
    }
    std::vector<run_record> runs_before(std::uint64_t before_order, std::size_t limit) const override {
        flush();
        auto r = t_.exec_params("SELECT record FROM agentrt_runs WHERE ($1::bigint = 0 OR run_order < $1::bigint) "
                                "ORDER BY run_order DESC LIMIT $2::bigint",
                                signed_of(before_order), signed_of(std::min<std::uint64_t>(limit, INT64_MAX)));
        return all_of(r, run_from_json);
    }
    std::optional<step_record> step(std::string_view run_id, std::uint64_t index) const override {
        flush();
        auto r = t_.exec_params("SELECT record FROM agentrt_steps WHERE run_id = $1 AND idx = $2", bytes(run_id),
                                signed_of(index));
        if (r.empty())
            return std::nullopt;
        return step_from_json(parse_record_text(text_of(r[0][0])));
    }
    std::vector<step_record> steps(std::string_view run_id) const override {
        flush();
        return all_of(t_.exec_params("SELECT record FROM agentrt_steps WHERE run_id = $1 ORDER BY idx", bytes(run_id)),
                      step_from_json);
    }
    std::vector<approval_record> approvals(std::string_view run_id) const override {
        flush();
        return all_of(
            t_.exec_params("SELECT record FROM agentrt_approvals WHERE run_id = $1 ORDER BY step, seq", bytes(run_id)),
            approval_from_json);
    }
    std::vector<event_record> events(std::string_view run_id) const override {
        flush();
        return all_of(t_.exec_params("SELECT record FROM agentrt_events WHERE run_id = $1 ORDER BY seq", bytes(run_id)),
                      event_from_json);
    }
    std::vector<model_call_record> model_calls(std::string_view run_id) const override {
        flush();
        return all_of(
            t_.exec_params("SELECT record FROM agentrt_model_calls WHERE run_id = $1 ORDER BY seq", bytes(run_id)),
            model_call_from_json);
    }
    std::optional<std::string> meta(std::string_view key) const override {
        flush();
        auto r = t_.exec_params("SELECT value FROM agentrt_meta WHERE key = $1" + lock_, bytes(key));
        if (r.empty())
            return std::nullopt;
        return text_of(r[0][0]);
    }
    std::optional<std::string> tool_spec(std::string_view hash) const override {
        flush();
        auto r = t_.exec_params("SELECT spec FROM agentrt_tool_specs WHERE hash = $1", bytes(hash));
        if (r.empty())
            return std::nullopt;
        return text_of(r[0][0]);
    }

protected:
    template <class R>
    static std::vector<R> all_of(pqxx::result const& r, R (*from)(boost::json::value const&)) {
        std::vector<R> out;
        out.reserve(r.size());
        for (auto const& row : r)
            out.push_back(from(parse_record_text(text_of(row[0]))));
        return out;
    }

    pqxx::transaction_base& t_;
    std::string lock_;
    // Runs this write read as absent: there is no row to lock, so a put creating one must be a plain
    // insert, which fails when another writer created it meanwhile (and the attempt is run again).
    mutable std::set<std::string, std::less<>> absent_;
    mutable std::set<std::string, std::less<>> present_; // and as present, locked: a put updates it

public:
    // Sends the writer's puts not yet sent, all in one round trip; every read first, and the commit.
    void flush() const {
        if (pending_.empty())
            return;
        std::string sql;
        sql.swap(pending_);
        t_.exec(sql);
    }

protected:
    mutable std::string pending_;
};

// A write's puts are buffered and sent together before its next read and before its commit, so a
// step's records cost one round trip, not one each.
class writer_impl final : public reader_impl, public engine_writer {
public:
    explicit writer_impl(pqxx::transaction_base& t) : reader_impl(t, true) {}

private:
    std::string raw(std::string_view bytes) const {
        return t_.quote_raw(reinterpret_cast<unsigned char const*>(bytes.data()), bytes.size());
    }
    void send(std::string statement) {
        pending_ += statement;
        pending_ += ";\n";
        if (pending_.size() > (std::size_t{1} << 20)) // a copy of a whole store: in batches of about 1 MiB
            flush();
    }

public:
    void put(run_record& run) override {
        bool creating = absent_.erase(run.id) > 0;
        if (!creating && present_.contains(run.id)) {
            send("UPDATE agentrt_runs SET record = " + raw(record_text::of(run)) + " WHERE id = " + raw(run.id));
            return;
        }
        if (!creating) {
            auto known = t_.exec_params("SELECT run_order FROM agentrt_runs WHERE id = $1", bytes(run.id));
            creating = known.empty();
            if (!creating)
                run.order = known[0][0].as<std::uint64_t>();
        }
        if (creating) {
            auto next = meta("run_order_next");
            run.order = next ? std::stoull(*next) : 1;
            put_meta("run_order_next", std::to_string(run.order + 1));
        }
        if (creating) // a plain insert: two creators of one id must not both succeed
            t_.exec_params("INSERT INTO agentrt_runs (id, run_order, record) VALUES ($1, $2, $3)", bytes(run.id),
                           signed_of(run.order), bytes(record_text::of(run)));
        else
            t_.exec_params("UPDATE agentrt_runs SET record = $2 WHERE id = $1", bytes(run.id),
                           bytes(record_text::of(run)));
    }
    void put(step_record const& s) override {
        send("INSERT INTO agentrt_steps (run_id, idx, record) VALUES (" + raw(s.run_id) + ", " +
             std::to_string(s.index) + ", " + raw(record_text::of(s)) +
             ") ON CONFLICT (run_id, idx) DO UPDATE SET record = EXCLUDED.record");
    }
    void put(approval_record const& a) override {
        send("INSERT INTO agentrt_approvals (run_id, step, seq, record) VALUES (" + raw(a.run_id) + ", " +
             std::to_string(a.step_index) + ", " + std::to_string(a.seq) + ", " + raw(record_text::of(a)) +
             ") ON CONFLICT (run_id, step, seq) DO UPDATE SET record = EXCLUDED.record");
    }
    void put(model_call_record const& m) override {
        send("INSERT INTO agentrt_model_calls (run_id, seq, record) VALUES (" + raw(m.run_id) + ", " +
             std::to_string(m.seq) + ", " + raw(record_text::of(m)) +
             ") ON CONFLICT (run_id, seq) DO UPDATE SET record = EXCLUDED.record");
    }
    void put(event_record const& e) override {
        send("INSERT INTO agentrt_events (run_id, seq, record) VALUES (" + raw(e.run_id) + ", " +
             std::to_string(e.seq) + ", " + raw(record_text::of(e)) +
             ") ON CONFLICT (run_id, seq) DO UPDATE SET record = EXCLUDED.record");
    }
    void put_meta(std::string_view key, std::string_view value) override {
        send("INSERT INTO agentrt_meta (key, value) VALUES (" + raw(key) + ", " + raw(value) +
             ") ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value");
    }
    void put_tool_spec(std::string_view hash, std::string_view spec) override {
        send("INSERT INTO agentrt_tool_specs (hash, spec) VALUES (" + raw(hash) + ", " + raw(spec) +
             ") ON CONFLICT (hash) DO NOTHING"); // a spec's hash names its text
    }
    bool erase_run(std::string_view run_id) override {
        flush();
        // The run's row first: a writer of the run waits on it, then finds the run gone.
        t_.exec_params("SELECT 1 FROM agentrt_runs WHERE id = $1 FOR UPDATE", bytes(run_id));
        for (char const* table : {"agentrt_steps", "agentrt_approvals", "agentrt_events", "agentrt_model_calls"})
            t_.exec_params(std::string("DELETE FROM ") + table + " WHERE run_id = $1", bytes(run_id));
        return t_.exec_params("DELETE FROM agentrt_runs WHERE id = $1", bytes(run_id)).affected_rows() > 0;
    }
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

    std::string const& location() const noexcept override { return shown_; }
    agentrt::durability durability() const noexcept override { return options_.durability; }

    void read(std::function<void(store_reader const&)> const& work) const override {
        in_transaction(pool_, txn_kind::read, [&](pqxx::transaction_base& t) {
            reader_impl r(t, false);
            work(r);
        });
    }

    void write(std::function<void(engine_writer&)> const& work, bool flush) override {
        keep_alive();
        // The commit is the flush: with synchronous_commit on it returns once its WAL is on disk. Under
        // process_crash the commit that starts a tool is flushed too, so that a server crash cannot
        // lose a tool's start and let it be decided, and run, again.
        bool const sync_this = flush && options_.durability == durability::process_crash;
        in_transaction(pool_, txn_kind::write, [&](pqxx::transaction_base& t) {
            if (sync_this)
                t.exec0("SET LOCAL synchronous_commit = on");
            writer_impl w(t);
            work(w);
            w.flush();
        });
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
            in_transaction(pool_, txn_kind::read, [&](pqxx::transaction_base& t) {
                held =
                    t.exec_params1("SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
                                   "AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 1 "
                                   "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))",
                                   signed_of(key >> 32), signed_of(key & 0xffffffffu))[0]
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
            take_liveness_lock();
        } catch (exception const& e) {
            return e.error();
        } catch (std::exception const& e) {
            return err(errc::store_failed, "store " + shown_ + ": " + said(e));
        }
        return {};
    }

private:
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
        in_transaction(pool_, txn_kind::write, [&](pqxx::transaction_base& t) {
            outcome = {};
            bool exists = !t.exec1("SELECT to_regclass('agentrt_meta') IS NULL")[0].as<bool>();
            if (!exists && options_.access == store_access::operator_only) {
                outcome = err(errc::not_found, "no store at " + shown_ + " (an operator never creates one)");
                return;
            }
            if (options_.access == store_access::writer) {
                t.exec_params("SELECT pg_advisory_xact_lock($1)", schema_lock_key);
                t.exec0(schema_v2);
            }
            writer_impl w(t);
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
            w.flush();
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
