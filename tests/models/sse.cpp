// The server-sent events framing both providers stream in.
#include "sse.hpp"

#include <doctest/doctest.h>

TEST_SUITE("models") {

    TEST_CASE("server-sent events: events end at a blank line, with any of the three line ends") {
        auto s = agentrt::sse::parse("event: a\ndata: 1\n\nevent: b\r\ndata: 2\r\n\r\ndata: 3\r\r");
        REQUIRE(s.events.size() == 3);
        CHECK(s.events[0].type == "a");
        CHECK(s.events[0].data == "1");
        CHECK(s.events[1].type == "b");
        CHECK(s.events[1].data == "2");
        CHECK(s.events[2].type == "message");
        CHECK(s.events[2].data == "3");
        CHECK(s.ended_cleanly);
    }

    TEST_CASE("server-sent events: data lines join with newlines, and comments and unknown fields are skipped") {
        auto s = agentrt::sse::parse(": keep-alive\ndata:first\ndata: second\nid: 7\nretry: 10\n\n");
        REQUIRE(s.events.size() == 1);
        CHECK(s.events[0].data == "first\nsecond");
    }

    TEST_CASE("server-sent events: bytes that stop inside an event are not an event, and say so") {
        auto s = agentrt::sse::parse("data: whole\n\ndata: half");
        REQUIRE(s.events.size() == 1);
        CHECK_FALSE(s.ended_cleanly);
        auto t = agentrt::sse::parse("data: whole\n\ndata: line\n");
        CHECK(t.events.size() == 1);
        CHECK_FALSE(t.ended_cleanly);
    }

    TEST_CASE("server-sent events: an event without data is not dispatched") {
        auto s = agentrt::sse::parse("event: ping\n\ndata: x\n\n");
        REQUIRE(s.events.size() == 1);
        CHECK(s.events[0].data == "x");
    }
}
