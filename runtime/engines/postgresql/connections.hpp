// The PostgreSQL engine's connections: a pool shared by the engine's threads, and the transaction
// loop that retries what PostgreSQL asks to retry. Internal to runtime/engines/postgresql.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/runtime/engine.hpp>
#include <agentrt/runtime/store.hpp>

#include <pqxx/pqxx>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace agentrt::pg_detail {

// The location with its password hidden, for messages.
std::string redacted(std::string const& uri);
// What a libpq or libpqxx exception says, on one line.
std::string said(std::exception const& e);

// A statement each of the pool's connections prepares once, with SQL-level PREPARE rather than the
// protocol's, so that its EXECUTE is text and travels in one message with BEGIN and the queued writes.
struct statement {
    std::string name; // carries the schema version: another version's statement has another name
    std::string parameter_types;
    std::string body; // $1, $2...: the parameters
};

// At most max_connections open at once; a thread past them waits for one to come back. A connection
// lost or ended by the server is dropped, and with it every idle one, which the same restart or cut
// has most likely ended too.
class connection_pool {
public:
    connection_pool(std::string uri, std::string redacted_uri, durability level, postgresql_options options)
        : uri_(std::move(uri)), shown_(std::move(redacted_uri)), level_(level), options_(options) {}

    // A connection of its own, outside the pool, set up for the store's durability level
    // (synchronous_commit).
    std::unique_ptr<pqxx::connection> connect() const;

    struct pooled {
        std::unique_ptr<pqxx::connection> link;
        bool prepared = false; // the pool's statements, on this session
    };

    // One of the pool's connections, given back when `lease` ends unless dropped first.
    class lease {
    public:
        lease(connection_pool& pool, pooled c) : pool_(&pool), c_(std::move(c)) {}
        lease(lease&&) = delete;
        ~lease() { pool_->give_back(std::move(c_)); }
        pqxx::connection& operator*() const noexcept { return *c_.link; }
        // Prepares the pool's statements on this connection unless it has them (one round trip, once
        // per connection); whether it has them.
        bool prepare_statements();
        // The connection is lost: it is closed, and so is every idle one.
        void drop() noexcept;

    private:
        connection_pool* pool_;
        pooled c_;
    };
    // Waits at most connection_wait for a connection while max_connections are taken.
    lease take();

    // From now on each connection prepares `statements` before its first transaction (unless
    // postgresql_options::prepared_statements is off). Called once the schema they name exists,
    // before the pool is shared between threads.
    void prepare_on_each_connection(std::span<statement const> statements);

    std::string const& shown() const noexcept { return shown_; }
    std::size_t open_connections() const;
    // Unique to this pool in the process, unlike its address, which a later pool may take.
    std::uint64_t identity() const noexcept { return identity_; }

private:
    static std::uint64_t next_identity() noexcept {
        static std::atomic<std::uint64_t> last{0};
        return ++last;
    }
    std::uint64_t const identity_ = next_identity();
    void give_back(pooled c) noexcept;
    void forget(pooled c) noexcept;

    std::string uri_, shown_;
    durability level_;
    postgresql_options options_;
    mutable std::mutex mutex_;
    std::condition_variable returned_;
    std::string preparation_; // the PREPARE statements each connection sends once
    std::vector<pooled> idle_;
    std::size_t open_ = 0; // idle or taken
};

enum class txn_kind { read, write };

// One transaction on a pooled connection. Its statements go as simple-query text, so that BEGIN and
// the writes queued since the last read travel with the next read, and the last writes with COMMIT:
// a write that reads once costs two round trips, not one per statement. A read that is one statement
// costs one: it is sent alone, outside a transaction block, its own snapshot (see needs_snapshot).
class transaction {
public:
    // `snapshot`: a read sends BEGIN ISOLATION LEVEL REPEATABLE READ with its first statement.
    // `prepared`: the connection has prepared the pool's statements.
    transaction(pqxx::connection& c, txn_kind kind, bool snapshot = true, bool prepared = false);
    transaction(transaction const&) = delete;
    transaction& operator=(transaction const&) = delete;

    // Sends what is queued, then `sql`; the result of the last statement of `sql`. In a read, `sql` is
    // one statement; a read without `snapshot` that sends a second throws needs_snapshot.
    pqxx::result exec(std::string_view sql);
    // Sent with the next exec, or with the commit.
    void queue(std::string_view statement);
    std::size_t queued_bytes() const noexcept { return queued_.size(); }

    // The bytes as a bytea literal; the text as a text literal.
    std::string bytea(std::string_view bytes);
    std::string text(std::string_view text);
    // `s` with its parameters given as literals: EXECUTE when the connection prepared it, else its body
    // with the literals in place of $1, $2...
    std::string call(statement const& s, std::initializer_list<std::string_view> literals) const;

    // A statement failed and `work` went on regardless: commit throws that failure again.
    // A read's commit ends its snapshot. A write's sends its queued statements with COMMIT; a link
    // lost during it throws pqxx::in_doubt_error: the transaction may or may not have been written.
    void commit();
    // False when the connection could not be told (and must not be used again).
    bool rollback() noexcept;
    // Throws the failure kept for commit, if there is one.
    void rethrow_failure() const {
        if (failure_)
            std::rethrow_exception(failure_);
    }
    // A read nested in this transaction runs in a savepoint, set and released with the statements
    // around it: a statement of it that fails leaves the transaction as it was.
    void enter_savepoint();
    void leave_savepoint(bool failed) noexcept;

    // A read's commit did not reach the server: the connection is not to be used again.
    bool lost() const noexcept { return lost_; }

    txn_kind kind() const noexcept { return kind_; }
    // A write that has read nothing may send BEGIN, its statements and COMMIT as one message, when
    // its caller can tell afterwards whether a commit lost on the way was written (see
    // in_transaction's `resolve`), and the connection shows no sign of having been ended since it
    // was last used. Otherwise BEGIN goes alone first, so that a connection found dead is a retry.
    void may_commit_in_one_message() noexcept { one_message_ = true; }

private:
    pqxx::nontransaction t_;
    txn_kind kind_;
    std::string queued_;
    bool open_ = false;       // BEGIN was sent
    bool snapshot_;           // a read's statements share a REPEATABLE READ snapshot
    bool sent_alone_ = false; // a read sent its statement outside a transaction block
    bool lost_ = false;
    bool prepared_;
    bool one_message_ = false;
    std::exception_ptr failure_; // the first statement that failed, unless a savepoint undid it
};

// A read sent its first statement alone, with that statement's own snapshot, and then needed a
// second one: the read is run again from its start, as one REPEATABLE READ transaction. Not a
// std::exception, so that no handler of a reader's caller takes it for a failure of its own.
struct needs_snapshot {};

// Thrown by `work` for an attempt to be rolled back and run again (counted as an attempt): a write
// whose work failed on what this thread had seen, which may be what failed it.
struct run_again {
    std::string why;
};

// What a write whose connection was lost during COMMIT finds when it looks again.
enum class commit_outcome { written, not_written, unknown };

// Runs `work` in one transaction (read: REPEATABLE READ, read only; write: READ COMMITTED with the
// writer's row locks) on a pooled connection and commits it. Called within a transaction of the same
// pool on this thread (a holder's liveness asked while a write decides on its run), a read runs in
// a savepoint of that transaction instead of waiting for a second connection. A read runs first as
// one statement outside a transaction block, and again as a transaction if it needs more. A deadlock, a serialization
// failure, two inserts of one key, or a connection lost before the commit aborts the attempt and runs `work` again, a
// bounded number of times. A connection lost during COMMIT leaves the outcome unknown: errc::store_failed saying so,
// never a retry, unless `resolve` (called on a connection of its own) tells: written is success, not written a
// retry. Other database errors are agentrt::exception (errc::store_failed; errc::storage_full for a full disk).
void in_transaction(connection_pool& pool, txn_kind kind, std::function<void(transaction&)> const& work,
                    std::function<commit_outcome()> const& resolve = {});

// Whether this thread is inside a transaction of `pool` (in_transaction's `work`).
bool inside_a_transaction(connection_pool const& pool) noexcept;

} // namespace agentrt::pg_detail
