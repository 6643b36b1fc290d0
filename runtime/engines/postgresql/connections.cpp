#include "connections.hpp"

#include "errors.hpp"

#include <algorithm>
#include <chrono>
#include <poll.h>
#include <stdexcept>
#include <thread>
#include <utility>

namespace agentrt::pg_detail {

std::string redacted(std::string const& uri) {
    auto scheme = uri.find("://");
    if (scheme == std::string::npos)
        return uri;
    std::string out = uri;
    auto at = out.find('@', scheme + 3);
    auto colon = out.find(':', scheme + 3);
    if (at != std::string::npos && colon != std::string::npos && colon < at && out.find('/', scheme + 3) > colon)
        out = out.substr(0, colon + 1) + "***" + out.substr(at);
    for (auto p = out.find("password="); p != std::string::npos; p = out.find("password=", p + 1)) {
        auto end = out.find('&', p);
        out = out.substr(0, p + 9) + "***" + (end == std::string::npos ? "" : out.substr(end));
    }
    return out;
}

std::string said(std::exception const& e) {
    std::string out;
    for (char c : std::string_view(e.what())) {
        bool space = c == '\n' || c == '\t' || c == ' ';
        if (space && (out.empty() || out.back() == ' '))
            continue;
        out += space ? ' ' : c;
    }
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

std::unique_ptr<pqxx::connection> connection_pool::connect() const {
    std::unique_ptr<pqxx::connection> c;
    try {
        c = std::make_unique<pqxx::connection>(uri_);
        pqxx::nontransaction t(*c);
        // power_loss: a commit returns once its WAL is flushed (any setting but off does that);
        // process_crash: once the server has it, flushed within wal_writer_delay.
        if (level_ == durability::process_crash)
            t.exec0("SET synchronous_commit = off");
        else if (t.exec1("SHOW synchronous_commit")[0].as<std::string>() == "off")
            t.exec0("SET synchronous_commit = on");
    } catch (std::exception const& e) {
        throw exception(err(errc::store_failed, "cannot connect to store " + shown_ + ": " + said(e)));
    }
    return c;
}

connection_pool::lease connection_pool::take() {
    std::unique_lock lock(mutex_);
    auto const deadline = std::chrono::steady_clock::now() + options_.connection_wait;
    std::size_t const cap = std::max<std::size_t>(options_.max_connections, 1);
    for (;;) {
        if (!idle_.empty()) {
            auto c = std::move(idle_.back());
            idle_.pop_back();
            return lease(*this, std::move(c));
        }
        if (open_ < cap)
            break;
        if (returned_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() && open_ >= cap)
            throw exception(err(errc::store_failed, "store " + shown_ + ": all " + std::to_string(cap) +
                                                        " connections stayed busy for " +
                                                        std::to_string(options_.connection_wait.count()) +
                                                        " ms (postgresql_options::max_connections)"));
    }
    ++open_; // counted before connecting, so that threads connecting at once keep within the cap
    lock.unlock();
    try {
        return lease(*this, pooled{connect()});
    } catch (...) {
        forget({});
        throw;
    }
}

void connection_pool::prepare_on_each_connection(std::span<statement const> statements) {
    if (!options_.prepared_statements)
        return;
    // DEALLOCATE ALL first: a PREPARE outlives the failure of a statement after it, so that a
    // connection whose preparation failed half-way can prepare again.
    preparation_ = "DEALLOCATE ALL";
    for (auto const& s : statements)
        preparation_ += ";\nPREPARE " + s.name + " (" + s.parameter_types + ") AS " + s.body;
}

bool connection_pool::lease::prepare_statements() {
    if (!c_.prepared && !pool_->preparation_.empty()) {
        pqxx::nontransaction t(*c_.link);
        t.exec(pool_->preparation_);
        c_.prepared = true;
    }
    return c_.prepared;
}

void connection_pool::give_back(pooled c) noexcept {
    if (!c.link)
        return;
    if (!c.link->is_open())
        return forget(std::move(c));
    {
        std::lock_guard lock(mutex_);
        idle_.push_back(std::move(c));
    }
    returned_.notify_one();
}

void connection_pool::forget(pooled c) noexcept {
    c.link.reset();
    {
        std::lock_guard lock(mutex_);
        --open_;
    }
    returned_.notify_one();
}

void connection_pool::lease::drop() noexcept {
    if (!c_.link)
        return;
    std::vector<pooled> stale;
    {
        std::lock_guard lock(pool_->mutex_);
        stale.swap(pool_->idle_);
        pool_->open_ -= stale.size();
    }
    pool_->forget(std::move(c_));
    pool_->returned_.notify_all();
}

std::size_t connection_pool::open_connections() const {
    std::lock_guard lock(mutex_);
    return open_;
}

namespace {

constexpr int max_attempts = 20;

// Class 08 (connection exception) and 57P0x (the server terminated the session or is shutting down).
bool connection_lost(pqxx::sql_error const& e) {
    auto const& state = e.sqlstate();
    return state.starts_with("08") || state.starts_with("57P");
}

errc code_of(pqxx::sql_error const& e) {
    return e.sqlstate() == "53100" ? errc::storage_full : errc::store_failed; // disk_full
}

// An idle session has nothing to say: a socket with something to read holds the server's farewell
// (a restart's or pg_terminate_backend's FATAL) or its end.
bool looks_open(pqxx::connection_base const& c) {
    pollfd p{c.sock(), POLLIN, 0};
    return p.fd >= 0 && ::poll(&p, 1, 0) == 0;
}

} // namespace

transaction::transaction(pqxx::connection& c, txn_kind kind, bool snapshot, bool prepared)
    : t_(c), kind_(kind), snapshot_(snapshot || kind == txn_kind::write), prepared_(prepared) {}

pqxx::result transaction::exec(std::string_view sql) {
    if (!snapshot_ && !open_) {
        if (sent_alone_) {
            failure_ = std::make_exception_ptr(needs_snapshot{});
            throw needs_snapshot{};
        }
        if (queued_.empty()) { // one statement is one snapshot: no BEGIN, no COMMIT
            sent_alone_ = true;
            try {
                return t_.exec(std::string(sql));
            } catch (...) {
                failure_ = std::current_exception();
                throw;
            }
        }
        snapshot_ = true; // a savepoint queued (a read within this one): it needs a transaction block
    }
    std::string text;
    if (!open_)
        text = kind_ == txn_kind::read ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;\n" : "BEGIN;\n";
    text += queued_;
    text += sql;
    queued_.clear();
    open_ = true; // from here on, whatever reached the server is rolled back on failure
    try {
        return t_.exec(text);
    } catch (...) {
        if (!failure_)
            failure_ = std::current_exception();
        throw;
    }
}

void transaction::enter_savepoint() {
    queue("SAVEPOINT agentrt_nested_read");
}

void transaction::leave_savepoint(bool failed) noexcept {
    std::string_view const set = "SAVEPOINT agentrt_nested_read;\n";
    if (!failure_) {
        if (queued_.ends_with(set)) // the nested read sent nothing: nor need its savepoint be sent
            queued_.resize(queued_.size() - set.size());
        else
            queue("RELEASE SAVEPOINT agentrt_nested_read");
        return;
    }
    if (!failed)
        return;
    try {
        // When what failed came after the savepoint, the transaction is whole again; when the
        // writes queued before it failed, there is no savepoint and the failure stands.
        t_.exec("ROLLBACK TO SAVEPOINT agentrt_nested_read;\nRELEASE SAVEPOINT agentrt_nested_read");
        failure_ = nullptr;
    } catch (...) {
    }
}

void transaction::queue(std::string_view statement) {
    queued_ += statement;
    queued_ += ";\n";
}

std::string transaction::bytea(std::string_view bytes) {
    return t_.quote_raw(reinterpret_cast<unsigned char const*>(bytes.data()), bytes.size());
}

std::string transaction::text(std::string_view text) {
    return t_.quote(std::string(text));
}

std::string transaction::call(statement const& s, std::initializer_list<std::string_view> literals) const {
    auto const* given = literals.begin();
    std::string out;
    if (prepared_) {
        out = "EXECUTE " + s.name + "(";
        for (auto const* l = given; l != literals.end(); ++l)
            out.append(l == given ? "" : ", ").append(*l);
        return out += ")";
    }
    std::string_view const body = s.body;
    for (std::size_t at = 0; at < body.size();) {
        if (body[at] != '$') {
            out += body[at++];
            continue;
        }
        std::size_t n = 0, end = at + 1;
        while (end < body.size() && body[end] >= '0' && body[end] <= '9')
            n = n * 10 + static_cast<std::size_t>(body[end++] - '0');
        if (n == 0 || n > literals.size())
            throw std::logic_error("statement " + s.name + " has $" + std::to_string(n) + " and " +
                                   std::to_string(literals.size()) + " literals");
        out += given[n - 1];
        at = end;
    }
    return out;
}

void transaction::commit() {
    if (failure_) // a statement failed and `work` went on: COMMIT would quietly roll back
        std::rethrow_exception(failure_);
    if (!open_ && queued_.empty())
        return; // nothing was sent: there is no transaction
    if (!open_ && !(one_message_ && kind_ == txn_kind::write && looks_open(t_.conn())))
        exec(""); // BEGIN sent apart from COMMIT: a link already dead is then a plain retry, not a doubt
    std::string const begin = open_ ? "" : "BEGIN;\n";
    open_ = true;
    std::string text = begin + std::move(queued_) + "COMMIT";
    queued_.clear();
    if (kind_ == txn_kind::read) {
        open_ = false;
        try {
            t_.exec(text);
        } catch (std::exception const&) {
            lost_ = true; // what was read stands; the connection does not
        }
        return;
    }
    try {
        t_.exec(text);
        open_ = false;
    } catch (pqxx::broken_connection const& e) {
        open_ = false;
        throw pqxx::in_doubt_error(e.what());
    } catch (pqxx::sql_error const& e) {
        if (!connection_lost(e))
            throw; // a statement failed: the transaction is aborted, COMMIT never ran
        open_ = false;
        throw pqxx::in_doubt_error(e.what());
    }
}

bool transaction::rollback() noexcept {
    if (!open_)
        return true;
    open_ = false;
    try {
        t_.exec("ROLLBACK");
        return true;
    } catch (...) {
        return false;
    }
}

namespace {

// The transactions this thread is inside, innermost first: one store's engine may be called while
// another's transaction is open (an engine wrapping another), and then the first's again.
class inside {
public:
    inside(connection_pool const& pool, transaction& t) : pool_(&pool), open_(&t), outer_(innermost) {
        innermost = this;
    }
    ~inside() { innermost = outer_; }
    inside(inside const&) = delete;
    inside& operator=(inside const&) = delete;

    // The open transaction of `pool` on this thread, if any.
    static transaction* of(connection_pool const& pool) noexcept {
        for (inside const* at = innermost; at; at = at->outer_)
            if (at->pool_ == &pool)
                return at->open_;
        return nullptr;
    }

private:
    static thread_local inside const* innermost;
    connection_pool const* pool_;
    transaction* open_;
    inside const* outer_;
};
thread_local inside const* inside::innermost = nullptr;

} // namespace

bool inside_a_transaction(connection_pool const& pool) noexcept {
    return inside::of(pool) != nullptr;
}

void in_transaction(connection_pool& pool, txn_kind kind, std::function<void(transaction&)> const& work,
                    std::function<commit_outcome()> const& resolve) {
    if (transaction* open = kind == txn_kind::read ? inside::of(pool) : nullptr) {
        auto& t = *open;
        t.enter_savepoint();
        try {
            work(t);
        } catch (...) {
            t.leave_savepoint(true);
            throw;
        }
        t.leave_savepoint(false);
        return;
    }
    bool snapshot = false;
    for (int attempt = 1;; ++attempt) {
        std::string again;    // why this attempt is to be run again
        std::string in_doubt; // the connection was lost during COMMIT
        {
            auto c = pool.take();
            bool told = true; // the server knows the attempt ended
            try {
                bool lost = false;
                bool const prepared = c.prepare_statements();
                {
                    transaction t(*c, kind, snapshot, prepared);
                    inside scope(pool, t);
                    try {
                        work(t);
                        t.commit();
                    } catch (...) {
                        told = t.rollback();
                        t.rethrow_failure(); // the statement that failed, not what `work` made of it
                        throw;
                    }
                    lost = t.lost();
                } // the transaction object ends before its connection may
                if (lost)
                    c.drop();
                return;
            } catch (needs_snapshot const&) {
                snapshot = true;
                --attempt; // not a failure: the same read, as a transaction
                continue;
            } catch (run_again const& e) {
                again = e.why;
            } catch (pqxx::in_doubt_error const& e) {
                c.drop();
                in_doubt = said(e);
            } catch (pqxx::transaction_rollback const& e) { // serialization failure, deadlock
                again = said(e);
            } catch (pqxx::unique_violation const& e) { // two inserted one key: the loser sees it next time
                again = said(e);
            } catch (pqxx::broken_connection const& e) { // before the commit: nothing was written
                told = false;
                again = said(e);
            } catch (pqxx::sql_error const& e) {
                if (!connection_lost(e)) {
                    if (!told)
                        c.drop();
                    throw exception(err(code_of(e), "store " + pool.shown() + ": " + said(e)));
                }
                told = false; // the server ended the session (terminated, shutting down) before the commit
                again = said(e);
            } catch (pqxx::pqxx_exception const& e) { // libpqxx's own (a conversion, a misuse): typed too
                if (!told)
                    c.drop();
                throw exception(err(errc::store_failed, "store " + pool.shown() + ": " + said(e.base())));
            } catch (...) {
                if (!told)
                    c.drop();
                throw;
            }
            if (!told)
                c.drop();
        } // the connection goes back before the pause: other threads need not wait out this one's
        if (!in_doubt.empty()) {
            auto outcome = resolve ? resolve() : commit_outcome::unknown;
            if (outcome == commit_outcome::written)
                return;
            if (outcome == commit_outcome::unknown)
                throw exception(err(errc::store_failed, "store " + pool.shown() +
                                                            ": the connection was lost during COMMIT, so whether the "
                                                            "transaction was written is unknown: " +
                                                            in_doubt));
            again = in_doubt;
        }
        if (attempt == max_attempts)
            throw exception(err(errc::store_failed, "store " + pool.shown() + ": gave up after " +
                                                        std::to_string(max_attempts) + " attempts: " + again));
        std::this_thread::sleep_for(std::chrono::microseconds(100 << std::min(attempt, 10)));
    }
}

} // namespace agentrt::pg_detail
