// The checks the model clients and the MCP client share around a request (wire/http_transfer).
#include "http_transfer.hpp"

#include <doctest/doctest.h>

TEST_SUITE("models") {

    TEST_CASE("http transfer: a host is loopback only by its literal address or as localhost") {
        for (auto const* host : {"127.0.0.1", "127.255.0.9", "localhost", "::1", "[::1]"})
            CHECK_MESSAGE(agentrt::http::is_loopback(host), host);
        for (auto const* host :
             {"127.evil.example", "127.0.0.1.evil.example", "128.0.0.1", "localhost.example", "example.com", ""})
            CHECK_MESSAGE(!agentrt::http::is_loopback(host), host);
    }

    TEST_CASE("http transfer: a URL's scheme and host are read in lower case, and a text without them is refused") {
        auto parts = agentrt::http::parse_url("HTTPS://API.Example.COM:8443/v1/messages");
        REQUIRE(parts);
        CHECK(parts->scheme == "https");
        CHECK(parts->host == "api.example.com");
        CHECK(!agentrt::http::parse_url("not a url"));
        CHECK(!agentrt::http::parse_url(""));
    }

    TEST_CASE("http transfer: a URL is shown without its user, password, query and fragment") {
        auto parts = agentrt::http::parse_url("https://ana:s3cret@Host.Example:8443/v1/x?token=abc#part");
        REQUIRE(parts);
        CHECK(parts->shown == "https://host.example:8443/v1/x");
        CHECK(agentrt::http::parse_url("http://127.0.0.1/mcp")->shown == "http://127.0.0.1/mcp");
        CHECK(agentrt::http::parse_url("http://[::1]:9")->shown == "http://[::1]:9/");
    }

    TEST_CASE("http transfer: every occurrence of the secret is redacted, and nothing without one") {
        CHECK(agentrt::http::redacted("key sk-1 and sk-1 again", "sk-1") == "key [redacted] and [redacted] again");
        CHECK(agentrt::http::redacted("sk-1sk-1", "sk-1") == "[redacted][redacted]");
        CHECK(agentrt::http::redacted("nothing to hide", "") == "nothing to hide");
    }
}
