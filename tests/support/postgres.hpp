// A real PostgreSQL server for the tests (tests/support/postgres-server): the one ctest started for
// the `postgresql` fixture (AGENTRT_TEST_POSTGRES names it), or, when a test binary runs on its own,
// one it starts for itself and stops when it exits.
#pragma once

#include <string>

namespace test_support {

// The server's database, as a libpq URI.
std::string const& postgres_uri();

// A location for a new, empty store: the database, with its tables in a schema of their own, and
// its sessions' application_name that schema's name. The URI ends with its `options` parameter, so
// that a test may append settings ("%20-cstatement_timeout%3D100").
std::string fresh_postgres_store();
// The schema (and application_name) of a location fresh_postgres_store gave.
std::string schema_of(std::string const& location);

// Runs `sql` on its own connection, as the superuser (pg_terminate_backend, pg_sleep, ...); the first
// column of its first row, if any.
std::string postgres_sql(std::string const& sql);

// A server of one test's own, for the faults that would disturb every other test of the shared one.
class private_postgres_server {
public:
    private_postgres_server();
    ~private_postgres_server();
    private_postgres_server(private_postgres_server const&) = delete;
    private_postgres_server& operator=(private_postgres_server const&) = delete;

    std::string const& uri() const noexcept { return uri_; }
    // Stops the server as a crash would and starts it again; returns once it accepts connections.
    void restart();
    // What the server has logged so far.
    std::string log() const;

private:
    std::string dir_, uri_;
};

} // namespace test_support
