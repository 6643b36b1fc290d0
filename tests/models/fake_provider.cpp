// The fake provider refuses what the provider refuses, and names its faults.
#include <agentrt/testkit/fake_provider.hpp>

#include <agentrt/models/anthropic.hpp>
#include <agentrt/models/openai.hpp>

#include "models/support.hpp"

#include <doctest/doctest.h>

using namespace models_test;
using agentrt::testkit::fake_provider;
using agentrt::testkit::provider_reply;
using agentrt::testkit::wire_format;

TEST_SUITE("models") {

    TEST_CASE("fake provider: a request the Messages API would refuse gets its 400 and takes no reply") {
        fake_provider server(wire_format::anthropic, {provider_reply::text("ok")});
        agentrt::anthropic_model model({.base_url = server.base_url(), .api_key_variable = ""});
        auto r = after_one_step();
        std::get<agentrt::tool_result_block>(r.messages[2].content[0]).call_id = "step_9"; // answers no call
        auto const e = error_of(call(model, r));
        CHECK(e.kind == agentrt::model_failure::permanent);
        CHECK(e.message.find("HTTP 400: messages.2.content.0: each tool_result block must have a corresponding "
                             "tool_use block in the previous message") != std::string::npos);
        CHECK(server.remaining() == 1);
        auto twice = ticket_request();
        twice.messages.push_back(agentrt::model_message::user("again"));
        CHECK(error_of(call(model, twice)).message.find("roles must alternate") != std::string::npos);
    }

    TEST_CASE("fake provider: a call left without its result is refused, on either wire") {
        auto unanswered = after_one_step();
        unanswered.messages[2].content.pop_back(); // step_0_1 has no result now
        fake_provider anthropic(wire_format::anthropic, {provider_reply::text("ok")});
        agentrt::anthropic_model a({.base_url = anthropic.base_url(), .api_key_variable = ""});
        CHECK(error_of(call(a, unanswered)).message.find("without tool_result blocks immediately after: step_0_1") !=
              std::string::npos);
        fake_provider openai(wire_format::openai, {provider_reply::text("ok")});
        agentrt::openai_model o({.base_url = openai.base_url(), .api_key_variable = ""});
        CHECK(error_of(call(o, unanswered)).message.find("step_0_1 has none") != std::string::npos);
    }

    TEST_CASE("fake provider: a request without the expected key gets 401") {
        fake_provider server(wire_format::anthropic, {provider_reply::text("ok")}, {.expected_key = "right"});
        agentrt::anthropic_model model({.base_url = server.base_url(), .api_key_variable = ""});
        auto const e = error_of(call(model, ticket_request()));
        CHECK(e.message.find("HTTP 401") != std::string::npos);
        CHECK(server.requests().at(0).status == 401);
    }

    TEST_CASE("fake provider: a request past the script is refused, naming it") {
        fake_provider server(wire_format::anthropic, {});
        agentrt::anthropic_model model({.base_url = server.base_url(), .api_key_variable = ""});
        CHECK(error_of(call(model, ticket_request())).message.find("request 1 is past the script of 0 replies") !=
              std::string::npos);
    }

    TEST_CASE("fake provider: every fault has a name, and an unknown name lists them") {
        for (auto name : provider_reply::fault_names())
            CHECK(provider_reply::fault(name).kind() == name);
        CHECK_THROWS_WITH_AS(provider_reply::fault("flood"), doctest::Contains("rate_limited, server_error"),
                             std::invalid_argument);
    }
}
