// The PostgreSQL engine's connections: a pool shared by the engine's threads, and the transaction
// loop that retries what PostgreSQL asks to retry. Internal to runtime/engines/postgresql.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/runtime/engine.hpp>

#include <pqxx/pqxx>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace agentrt::pg_detail {

// The location with its password hidden, for messages.
std::string redacted(std::string const& uri);
// What a libpq or libpqxx exception says, on one line.
std::string said(std::exception const& e);

class connection_pool {
public:
    connection_pool(std::string uri, std::string redacted_uri, durability level)
        : uri_(std::move(uri)), shown_(std::move(redacted_uri)), level_(level) {}

    // A connection set up for the store's durability level (synchronous_commit).
    std::unique_ptr<pqxx::connection> connect() const;
    std::unique_ptr<pqxx::connection> take();
    void give_back(std::unique_ptr<pqxx::connection> c);

    std::string const& shown() const noexcept { return shown_; }

private:
    std::string uri_, shown_;
    durability level_;
    std::mutex mutex_;
    std::vector<std::unique_ptr<pqxx::connection>> idle_;
};

enum class txn_kind { read, write };

// Runs `work` in one transaction (read: REPEATABLE READ, read only; write: READ COMMITTED with the
// writer's row locks) on a pooled connection and commits it. A deadlock, a serialization failure, two
// inserts of one key, or a connection lost before the commit aborts the attempt and runs `work`
// again, a bounded number of times. A connection lost
// during COMMIT leaves the outcome unknown: errc::store_failed saying so, never a retry. Other
// database errors are agentrt::exception (errc::store_failed; errc::storage_full for a full disk).
void in_transaction(connection_pool& pool, txn_kind kind, std::function<void(pqxx::transaction_base&)> const& work);

} // namespace agentrt::pg_detail
