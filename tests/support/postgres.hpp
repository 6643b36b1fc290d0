// A real PostgreSQL server for the tests (tests/support/postgres-server): the one ctest started for
// the `postgresql` fixture (AGENTRT_TEST_POSTGRES names it), or, when a test binary runs on its own,
// one it starts for itself and stops when it exits.
#pragma once

#include <string>

namespace test_support {

// The server's database, as a libpq URI.
std::string const& postgres_uri();

// A location for a new, empty store: the database, with its tables in a schema of their own.
std::string fresh_postgres_store();

// Runs `sql` on its own connection, as the superuser (pg_terminate_backend, pg_sleep, ...).
void postgres_sql(std::string const& sql);

} // namespace test_support
