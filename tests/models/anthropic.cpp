// The Anthropic client against a real HTTP server on loopback that speaks the Messages API.
#include <agentrt/models/anthropic.hpp>

#include <agentrt/testkit/fake_provider.hpp>

#include "models/support.hpp"

#include <thread>

#include <doctest/doctest.h>

using namespace models_test;
using agentrt::model_failure;
using agentrt::testkit::fake_provider;
using agentrt::testkit::provider_reply;
using agentrt::testkit::wire_format;

namespace {

agentrt::anthropic_model client(fake_provider const& server, agentrt::anthropic_options o = {}) {
    o.base_url = server.base_url();
    o.api_key_variable = "";
    return agentrt::anthropic_model(o);
}

} // namespace

TEST_SUITE("models") {

    TEST_CASE("anthropic client: a streamed tool call whose arguments arrive in fragments reads as one call") {
        auto const arguments = R"({"order_id":"ord-1","note":"größer \"quoted\" ✓"})";
        fake_provider server(
            wire_format::anthropic,
            {provider_reply::calls({{"lookup_order", arguments}}, "Let me check.").with_usage(321, 45)});
        auto model = client(server);
        auto const& reply = reply_of(call(model, ticket_request()));
        CHECK(reply.text == "Let me check.");
        REQUIRE(reply.tool_calls.size() == 1);
        CHECK(reply.tool_calls[0].name == "lookup_order");
        CHECK(reply.tool_calls[0].id == "toolu_fake_1_0");
        CHECK(json_of(reply.tool_calls[0].arguments) == json_of(arguments));
        CHECK(reply.stop == agentrt::stop_reason::tool_use);
        CHECK(reply.usage.input_tokens == 321);
        CHECK(reply.usage.output_tokens == 45);
        auto const sent = server.requests().at(0).sent;
        auto fragments = 0;
        for (auto at = sent.find("input_json_delta"); at != std::string::npos;
             at = sent.find("input_json_delta", at + 1))
            ++fragments;
        CHECK(fragments > 5); // the server really split them
    }

    TEST_CASE("anthropic client: several tool calls of one reply come back in their order") {
        fake_provider server(wire_format::anthropic, {provider_reply::calls({{"lookup_order", R"({"order_id":"a"})"},
                                                                             {"lookup_order", R"({"order_id":"b"})"},
                                                                             {"send_message", "{}"}})});
        auto model = client(server);
        auto const& reply = reply_of(call(model, ticket_request()));
        REQUIRE(reply.tool_calls.size() == 3);
        CHECK(json_of(reply.tool_calls[0].arguments) == json_of(R"({"order_id":"a"})"));
        CHECK(json_of(reply.tool_calls[1].arguments) == json_of(R"({"order_id":"b"})"));
        CHECK(reply.tool_calls[2].name == "send_message");
        CHECK(reply.tool_calls[2].arguments == "{}");
    }

    TEST_CASE("anthropic client: a text reply ends the turn, with its usage and cache tokens") {
        fake_provider server(wire_format::anthropic,
                             {provider_reply::text("It shipped on Monday.").with_usage(10, 7, 2000, 300)});
        auto model = client(server);
        auto const& reply = reply_of(call(model, ticket_request()));
        CHECK(reply.text == "It shipped on Monday.");
        CHECK(reply.tool_calls.empty());
        CHECK(reply.stop == agentrt::stop_reason::end_turn);
        CHECK(reply.usage.input_tokens == 10);
        CHECK(reply.usage.output_tokens == 7);
        CHECK(reply.usage.cache_read_tokens == 2000);
        CHECK(reply.usage.cache_write_tokens == 300);
    }

    TEST_CASE("anthropic client: the request is the Messages API's, tool calls and results as blocks") {
        scoped_env key("AGENTRT_TEST_ANTHROPIC_KEY", test_key);
        fake_provider server(wire_format::anthropic, {provider_reply::text("ok")}, {.expected_key = test_key});
        agentrt::anthropic_model model(
            {.base_url = server.base_url(), .api_key_variable = "AGENTRT_TEST_ANTHROPIC_KEY"});
        reply_of(call(model, after_one_step()));
        auto const received = server.requests();
        REQUIRE(received.size() == 1);
        CHECK(received[0].refused == "");
        CHECK(received[0].target == "/v1/messages");
        CHECK(received[0].headers.at("anthropic-version") == "2023-06-01");
        CHECK(received[0].headers.at("x-api-key") == test_key);
        CHECK(json_of(received[0].body) == json_of(R"({
            "model": "test-model", "max_tokens": 256, "system": "You handle support tickets.", "stream": true,
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "where is ord-1?"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Looking it up."},
                    {"type": "tool_use", "id": "step_0", "name": "lookup_order", "input": {"order_id": "ord-1"}},
                    {"type": "tool_use", "id": "step_0_1", "name": "lookup_order", "input": {"order_id": "ord-2"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "step_0", "content": "{\"status\":\"shipped\"}",
                     "is_error": false},
                    {"type": "tool_result", "tool_use_id": "step_0_1", "content": "not run", "is_error": true}]}],
            "tools": [{"name": "lookup_order", "description": "Looks an order up.",
                       "input_schema": {"type": "object", "properties": {"order_id": {"type": "string"}},
                                        "required": ["order_id"]}}]})"));
    }

    TEST_CASE("anthropic client: text of white space only is left out, since the API refuses it") {
        fake_provider server(wire_format::anthropic, {provider_reply::text("ok")});
        auto model = client(server);
        auto r = after_one_step();
        std::get<agentrt::text_block>(r.messages[1].content[0]).text = "\n\n";
        reply_of(call(model, r));
        CHECK(server.requests().at(0).refused == "");
        auto body = json_of(server.requests().at(0).body);
        CHECK(body.at("messages").at(1).at("content").at(0).at("type") == "tool_use");
    }

    TEST_CASE("anthropic client: a retry-after of any size is read without overflow, clamped to a day") {
        fake_provider server(
            wire_format::anthropic,
            {provider_reply::raw(429, R"({"type":"error","error":{"type":"rate_limit_error","message":"slow"}})",
                                 {"retry-after: 99999999999999999999999"}),
             provider_reply::raw(429, R"({"type":"error","error":{"type":"rate_limit_error","message":"slow"}})",
                                 {"retry-after: inf"})});
        auto model = client(server);
        CHECK(error_of(call(model, ticket_request())).retry_after == std::chrono::hours(24));
        CHECK_FALSE(error_of(call(model, ticket_request())).retry_after.has_value());
    }

    TEST_CASE("anthropic client: arguments that are not a JSON object are sent as an empty input") {
        fake_provider server(wire_format::anthropic, {provider_reply::text("ok")});
        auto model = client(server);
        auto r = after_one_step();
        std::get<agentrt::model_tool_call>(r.messages[1].content[1]).arguments = R"({"order_id":)";
        reply_of(call(model, r));
        auto body = json_of(server.requests().at(0).body);
        CHECK(body.at("messages").at(1).at("content").at(1).at("input") == boost::json::object{});
    }

    TEST_CASE("anthropic client: a reply without streaming reads the same") {
        fake_provider server(wire_format::anthropic, {provider_reply::call("lookup_order", R"({"order_id":"x"})")});
        auto model = client(server, {.stream = false});
        auto const& reply = reply_of(call(model, ticket_request()));
        REQUIRE(reply.tool_calls.size() == 1);
        CHECK(json_of(reply.tool_calls[0].arguments) == json_of(R"({"order_id":"x"})"));
        CHECK_FALSE(json_of(server.requests().at(0).body).as_object().contains("stream"));
    }

    TEST_CASE("anthropic client: 429, 500 and 529 are transient, and 429 carries its retry-after") {
        fake_provider server(wire_format::anthropic, {provider_reply::rate_limited(std::chrono::seconds(7)),
                                                      provider_reply::server_error(), provider_reply::overloaded()});
        auto model = client(server);
        auto const limited = error_of(call(model, ticket_request()));
        CHECK(limited.kind == model_failure::transient);
        CHECK(limited.retry_after == std::chrono::milliseconds(7000));
        CHECK(limited.message.find("HTTP 429: Number of requests has exceeded your rate limit") != std::string::npos);
        auto const failed = error_of(call(model, ticket_request()));
        CHECK(failed.kind == model_failure::transient);
        CHECK(failed.message.find("HTTP 500") != std::string::npos);
        auto const overloaded = error_of(call(model, ticket_request()));
        CHECK(overloaded.kind == model_failure::transient);
        CHECK(overloaded.message.find("HTTP 529: Overloaded") != std::string::npos);
    }

    TEST_CASE("anthropic client: a refused request is permanent, and the key never appears in the error") {
        scoped_env key("AGENTRT_TEST_ANTHROPIC_KEY", test_key);
        fake_provider server(
            wire_format::anthropic,
            {provider_reply::raw(401, std::string(R"({"type":"error","error":{"type":"authentication_error",)") +
                                          R"("message":"invalid x-api-key )" + test_key + R"("}})")});
        agentrt::anthropic_model model(
            {.base_url = server.base_url(), .api_key_variable = "AGENTRT_TEST_ANTHROPIC_KEY"});
        auto const e = error_of(call(model, ticket_request()));
        CHECK(e.kind == model_failure::permanent);
        CHECK(e.message.find("HTTP 401: invalid x-api-key [redacted]") != std::string::npos);
        CHECK(e.message.find(test_key) == std::string::npos);
    }

    TEST_CASE("anthropic client: no part of the key shows where an error body is cut short") {
        scoped_env key("AGENTRT_TEST_ANTHROPIC_KEY", test_key);
        std::string const echo = "<html>" + std::string(173, ' ') + "x-api-key: " + test_key + "</html>";
        fake_provider server(wire_format::anthropic, {provider_reply::raw(401, echo)});
        agentrt::anthropic_model model(
            {.base_url = server.base_url(), .api_key_variable = "AGENTRT_TEST_ANTHROPIC_KEY"});
        auto const e = error_of(call(model, ticket_request()));
        CHECK(e.kind == model_failure::permanent);
        CHECK(e.message.find("sk-test-") == std::string::npos); // the cut at byte 200 falls inside the key
    }

    TEST_CASE("anthropic client: a password or query in the endpoint's URL is in no error") {
        fake_provider server(wire_format::anthropic, {provider_reply::server_error()});
        auto url = server.base_url();
        url.insert(url.find("://") + 3, "ana:s3cret@");
        agentrt::anthropic_model model({.base_url = url, .api_key_variable = ""});
        auto const e = error_of(call(model, ticket_request()));
        CHECK(e.message.find("HTTP 500") != std::string::npos);
        CHECK_MESSAGE(e.message.find("s3cret") == std::string::npos, e.message);
    }

    TEST_CASE("anthropic client: a stream cut in the middle of an event is cut_off") {
        fake_provider server(wire_format::anthropic, {provider_reply::fault("cut_mid_event")});
        auto model = client(server);
        auto const e = error_of(call(model, ticket_request()));
        CHECK(e.kind == model_failure::cut_off);
        CHECK(e.message.find("without message_stop, inside an event") != std::string::npos);
    }

    TEST_CASE("anthropic client: an error event in the middle of the stream is cut_off, naming the error") {
        fake_provider server(wire_format::anthropic, {provider_reply::fault("error_event")});
        auto model = client(server);
        auto const e = error_of(call(model, ticket_request()));
        CHECK(e.kind == model_failure::cut_off);
        CHECK(e.message.find("overloaded_error: Overloaded") != std::string::npos);
    }

    TEST_CASE("anthropic client: an event whose data is not JSON is cut_off, naming the event") {
        fake_provider server(wire_format::anthropic, {provider_reply::fault("malformed_json")});
        auto model = client(server);
        auto const e = error_of(call(model, ticket_request()));
        CHECK(e.kind == model_failure::cut_off);
        CHECK(e.message.find("(content_block_delta) is not a JSON object") != std::string::npos);
    }

    TEST_CASE("anthropic client: arguments that are not JSON and an unknown tool come back as the model sent them") {
        fake_provider server(wire_format::anthropic,
                             {provider_reply::fault("invalid_arguments"), provider_reply::fault("unknown_tool")});
        auto model = client(server);
        auto const& invalid = reply_of(call(model, ticket_request()));
        REQUIRE(invalid.tool_calls.size() == 1);
        CHECK(invalid.tool_calls[0].arguments == R"({"order_id":)");
        auto const& unknown = reply_of(call(model, ticket_request()));
        REQUIRE(unknown.tool_calls.size() == 1);
        CHECK(unknown.tool_calls[0].name == "no_such_tool");
    }

    TEST_CASE("anthropic client: a stall past the deadline is cut_off at the deadline") {
        fake_provider server(wire_format::anthropic, {provider_reply::stall(std::chrono::seconds(30))});
        auto model = client(server);
        auto const started = std::chrono::steady_clock::now();
        auto const e = error_of(call(model, ticket_request(), std::chrono::milliseconds(300)));
        CHECK(e.kind == model_failure::cut_off);
        CHECK(e.message.find("before the call's deadline") != std::string::npos);
        CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
    }

    TEST_CASE("anthropic client: the call's stop token aborts the transfer") {
        fake_provider server(wire_format::anthropic, {provider_reply::stall(std::chrono::seconds(30))});
        auto model = client(server);
        std::stop_source stop;
        std::jthread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            stop.request_stop();
        });
        auto const e = error_of(call(model, ticket_request(), std::chrono::seconds(30), stop.get_token()));
        CHECK(e.kind == model_failure::cut_off);
        CHECK(e.message.find("was stopped") != std::string::npos);
    }

    TEST_CASE("anthropic client: a reply past the body cap is refused, naming the cap") {
        fake_provider server(
            wire_format::anthropic,
            {provider_reply::raw(200, "event: ping\ndata: {\"type\":\"ping\"}\n\n" + std::string(8192, ' '))});
        auto model = client(server, {.max_body_bytes = 4096});
        auto const e = error_of(call(model, ticket_request()));
        CHECK(e.kind == model_failure::permanent);
        CHECK(e.message.find("passed the cap of 4096 bytes") != std::string::npos);
    }

    TEST_CASE("anthropic client: a redirect is not followed") {
        fake_provider elsewhere(wire_format::anthropic, {provider_reply::text("never")});
        fake_provider server(wire_format::anthropic,
                             {provider_reply::raw(307, "", {"location: " + elsewhere.base_url() + "/v1/messages"})});
        auto model = client(server);
        auto const e = error_of(call(model, ticket_request()));
        CHECK(e.kind == model_failure::permanent);
        CHECK(e.message.find("redirects are not followed") != std::string::npos);
        CHECK(elsewhere.requests().empty());
    }

    TEST_CASE("anthropic client: a server that is not there is transient: the request never left") {
        std::string url;
        {
            fake_provider gone(wire_format::anthropic, {});
            url = gone.base_url();
        }
        agentrt::anthropic_model model({.base_url = url, .api_key_variable = ""});
        CHECK(error_of(call(model, ticket_request())).kind == model_failure::transient);
    }

    TEST_CASE("anthropic client: a key is read from its variable, and refused when unset") {
        ::unsetenv("AGENTRT_TEST_UNSET_KEY");
        CHECK_THROWS_WITH_AS(agentrt::anthropic_model({.api_key_variable = "AGENTRT_TEST_UNSET_KEY"}),
                             doctest::Contains("AGENTRT_TEST_UNSET_KEY"), std::invalid_argument);
    }

    TEST_CASE("anthropic client: a key is sent over plain HTTP only to a loopback address") {
        scoped_env key("AGENTRT_TEST_ANTHROPIC_KEY", test_key);
        try {
            agentrt::anthropic_model model(
                {.base_url = "http://api.example.com", .api_key_variable = "AGENTRT_TEST_ANTHROPIC_KEY"});
            FAIL("a key over plain HTTP to another host was accepted");
        } catch (std::invalid_argument const& e) {
            CHECK(std::string(e.what()).find("in the clear to api.example.com") != std::string::npos);
            CHECK(std::string(e.what()).find(test_key) == std::string::npos);
        }
        CHECK_NOTHROW(agentrt::anthropic_model(
            {.base_url = "https://api.example.com", .api_key_variable = "AGENTRT_TEST_ANTHROPIC_KEY"}));
        CHECK_NOTHROW(agentrt::anthropic_model(
            {.base_url = "http://127.0.0.1:9", .api_key_variable = "AGENTRT_TEST_ANTHROPIC_KEY"}));
        CHECK_NOTHROW(agentrt::anthropic_model(
            {.base_url = "http://localhost:9", .api_key_variable = "AGENTRT_TEST_ANTHROPIC_KEY"}));
        CHECK_NOTHROW(agentrt::anthropic_model(
            {.base_url = "http://127.200.0.1:9", .api_key_variable = "AGENTRT_TEST_ANTHROPIC_KEY"}));
        for (auto const* lookalike : {"http://127.evil.example", "http://127.0.0.1.evil.example", "http://128.0.0.1"})
            CHECK_THROWS_AS(
                agentrt::anthropic_model({.base_url = lookalike, .api_key_variable = "AGENTRT_TEST_ANTHROPIC_KEY"}),
                std::invalid_argument);
    }

    TEST_CASE("anthropic client: a loopback request never goes through a proxy the environment names") {
        fake_provider server(wire_format::anthropic, {provider_reply::text("direct")});
        scoped_env proxy("http_proxy", "http://127.0.0.1:9"); // nothing listens there
        scoped_env all("ALL_PROXY", "http://127.0.0.1:9");
        auto model = client(server);
        CHECK(reply_of(call(model, ticket_request())).text == "direct");
    }
}
