#include "support/postgres.hpp"

#include <pqxx/pqxx>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <unistd.h>

namespace test_support {
namespace {

std::string run(std::string const& command) {
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
    if (!pipe)
        throw std::runtime_error("cannot run " + command);
    std::string out;
    char buffer[512];
    while (auto n = std::fread(buffer, 1, sizeof buffer, pipe.get()))
        out.append(buffer, n);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r'))
        out.pop_back();
    return out;
}

struct own_server {
    std::string dir = "/tmp/agentrt-pg-" + std::to_string(::getpid());
    std::string uri =
        run("AGENTRT_PG_WATCH_PID=" + std::to_string(::getpid()) + " " + AGENTRT_POSTGRES_SERVER + " start " + dir);
    ~own_server() { (void)std::system((std::string(AGENTRT_POSTGRES_SERVER) + " stop " + dir).c_str()); }
};

} // namespace

std::string const& postgres_uri() {
    static std::string const uri = [] {
        if (char const* given = std::getenv("AGENTRT_TEST_POSTGRES"); given && *given)
            return std::string(given);
        static own_server server;
        if (server.uri.empty())
            throw std::runtime_error("the test PostgreSQL server did not start (tests/support/postgres-server)");
        return server.uri;
    }();
    return uri;
}

std::string fresh_postgres_store() {
    static std::atomic<int> counter{0};
    std::string schema = "t_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
    postgres_sql("CREATE SCHEMA " + schema);
    // Named after its schema, so that a test can find its store's sessions; options last, to extend.
    return postgres_uri() + "&application_name=" + schema + "&options=-csearch_path%3D" + schema;
}

std::string schema_of(std::string const& location) {
    auto at = location.find("application_name=") + std::string_view("application_name=").size();
    return location.substr(at, location.find('&', at) - at);
}

private_postgres_server::private_postgres_server() {
    static std::atomic<int> counter{0};
    dir_ = "/tmp/agentrt-pg-" + std::to_string(::getpid()) + "-own-" + std::to_string(++counter);
    uri_ = run("AGENTRT_PG_WATCH_PID=" + std::to_string(::getpid()) + " " + AGENTRT_POSTGRES_SERVER + " start " + dir_);
    if (uri_.rfind("postgresql://", 0) != 0)
        throw std::runtime_error("a private PostgreSQL server did not start in " + dir_);
}

private_postgres_server::~private_postgres_server() {
    (void)std::system((std::string(AGENTRT_POSTGRES_SERVER) + " stop " + dir_).c_str());
}

std::string private_postgres_server::log() const {
    std::ifstream in(dir_ + "/server.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void private_postgres_server::restart() {
    if (std::system((std::string(AGENTRT_POSTGRES_SERVER) + " restart " + dir_).c_str()) != 0)
        throw std::runtime_error("the PostgreSQL server in " + dir_ + " did not restart");
}

std::string postgres_sql(std::string const& sql) {
    pqxx::connection c(postgres_uri());
    pqxx::nontransaction t(c);
    auto r = t.exec(sql);
    return r.empty() || r[0].empty() || r[0][0].is_null() ? std::string() : r[0][0].as<std::string>();
}

} // namespace test_support
