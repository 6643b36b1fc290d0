// The OpenAI-compatible client against a real HTTP server on loopback that speaks Chat Completions.
#include <agentrt/models/openai.hpp>

#include <agentrt/testkit/fake_provider.hpp>

#include "models/support.hpp"

#include <doctest/doctest.h>

using namespace models_test;
using agentrt::model_failure;
using agentrt::testkit::fake_provider;
using agentrt::testkit::provider_reply;
using agentrt::testkit::wire_format;

namespace {

agentrt::openai_model client(fake_provider const& server, agentrt::openai_options o = {}) {
    o.base_url = server.base_url();
    o.api_key_variable = "";
    return agentrt::openai_model(o);
}

} // namespace

TEST_SUITE("models") {

    TEST_CASE("openai client: tool call deltas keyed by index read as whole calls, in order") {
        fake_provider server(wire_format::openai, {provider_reply::calls({{"lookup_order", R"({"order_id":"ord-1"})"},
                                                                          {"send_message", R"({"to":"x","body":"é"})"}},
                                                                         "Checking.")});
        auto model = client(server);
        auto const& reply = reply_of(call(model, ticket_request()));
        CHECK(reply.text == "Checking.");
        REQUIRE(reply.tool_calls.size() == 2);
        CHECK(reply.tool_calls[0].id == "call_fake_1_0");
        CHECK(reply.tool_calls[0].name == "lookup_order");
        CHECK(json_of(reply.tool_calls[0].arguments) == json_of(R"({"order_id":"ord-1"})"));
        CHECK(reply.tool_calls[1].name == "send_message");
        CHECK(json_of(reply.tool_calls[1].arguments) == json_of(R"({"to":"x","body":"é"})"));
        CHECK(reply.stop == agentrt::stop_reason::tool_use);
        CHECK(server.requests().at(0).sent.find("data: [DONE]") != std::string::npos);
    }

    TEST_CASE("openai client: the usage of the last chunk counts cached input apart") {
        fake_provider server(wire_format::openai, {provider_reply::text("done").with_usage(40, 9, 1000)});
        auto model = client(server);
        auto const& reply = reply_of(call(model, ticket_request()));
        CHECK(reply.text == "done");
        CHECK(reply.stop == agentrt::stop_reason::end_turn);
        CHECK(reply.usage.input_tokens == 40);
        CHECK(reply.usage.cache_read_tokens == 1000);
        CHECK(reply.usage.output_tokens == 9);
    }

    TEST_CASE("openai client: the request is Chat Completions', results as tool messages after the calls") {
        scoped_env key("AGENTRT_TEST_OPENAI_KEY", test_key);
        fake_provider server(wire_format::openai, {provider_reply::text("ok")}, {.expected_key = test_key});
        agentrt::openai_model model({.base_url = server.base_url(), .api_key_variable = "AGENTRT_TEST_OPENAI_KEY"});
        reply_of(call(model, after_one_step()));
        auto const received = server.requests();
        REQUIRE(received.size() == 1);
        CHECK(received[0].refused == "");
        CHECK(received[0].target == "/v1/chat/completions");
        CHECK(received[0].headers.at("authorization") == std::string("Bearer ") + test_key);
        CHECK(json_of(received[0].body) == json_of(R"({
            "model": "test-model", "max_tokens": 256, "stream": true, "stream_options": {"include_usage": true},
            "messages": [
                {"role": "system", "content": "You handle support tickets."},
                {"role": "user", "content": "where is ord-1?"},
                {"role": "assistant", "content": "Looking it up.", "tool_calls": [
                    {"id": "step_0", "type": "function",
                     "function": {"name": "lookup_order", "arguments": "{\"order_id\":\"ord-1\"}"}},
                    {"id": "step_0_1", "type": "function",
                     "function": {"name": "lookup_order", "arguments": "{\"order_id\":\"ord-2\"}"}}]},
                {"role": "tool", "tool_call_id": "step_0", "content": "{\"status\":\"shipped\"}"},
                {"role": "tool", "tool_call_id": "step_0_1", "content": "error: not run"}],
            "tools": [{"type": "function", "function": {"name": "lookup_order", "description": "Looks an order up.",
                       "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}},
                                      "required": ["order_id"]}}}]})"));
    }

    TEST_CASE("openai client: calls that share one index, as Ollama streams them, stay apart by their ids") {
        auto const chunk = [](std::string const& delta) {
            return R"(data: {"choices":[{"index":0,"delta":)" + delta +
                   R"(,"finish_reason":null}]})"
                   "\n\n";
        };
        fake_provider server(
            wire_format::openai,
            {provider_reply::raw(
                200,
                chunk(
                    R"({"tool_calls":[{"index":0,"id":"a","function":{"name":"lookup_order","arguments":"{\"order_id\":\"1\"}"}}]})") +
                    chunk(
                        R"({"tool_calls":[{"index":0,"id":"b","function":{"name":"lookup_order","arguments":"{\"order_id\":\"2\"}"}}]})") +
                    "data: [DONE]\n\n")});
        auto model = client(server);
        auto const reply = reply_of(call(model, ticket_request()));
        REQUIRE(reply.tool_calls.size() == 2);
        CHECK(reply.tool_calls[0].id == "a");
        CHECK(reply.tool_calls[0].arguments == R"({"order_id":"1"})");
        CHECK(reply.tool_calls[1].id == "b");
        CHECK(reply.tool_calls[1].arguments == R"({"order_id":"2"})");
    }

    TEST_CASE("openai client: arguments that are not a JSON object go back in the history as {}") {
        fake_provider server(wire_format::openai, {provider_reply::text("ok")});
        auto model = client(server);
        auto r = after_one_step();
        std::get<agentrt::model_tool_call>(r.messages[1].content[1]).arguments = R"({"order_id":)";
        reply_of(call(model, r));
        auto body = json_of(server.requests().at(0).body);
        CHECK(body.at("messages").at(2).at("tool_calls").at(0).at("function").at("arguments") == "{}");
    }

    TEST_CASE("openai client: a 429 for an exhausted quota is permanent: no retry pays a bill") {
        fake_provider server(
            wire_format::openai,
            {provider_reply::raw(
                429,
                R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}})",
                {"retry-after: 1"})});
        auto model = client(server);
        auto const e = error_of(call(model, ticket_request()));
        CHECK(e.kind == model_failure::permanent);
        CHECK_FALSE(e.retry_after.has_value());
    }

    TEST_CASE("openai client: the output cap's key is configurable for OpenAI's newer models") {
        fake_provider server(wire_format::openai, {provider_reply::text("ok")});
        auto model = client(server, {.max_tokens_key = "max_completion_tokens"});
        reply_of(call(model, ticket_request()));
        auto body = json_of(server.requests().at(0).body).as_object();
        CHECK(body.at("max_completion_tokens") == 256);
        CHECK_FALSE(body.contains("max_tokens"));
    }

    TEST_CASE("openai client: a completion without streaming reads the same") {
        fake_provider server(wire_format::openai, {provider_reply::call("lookup_order", R"({"order_id":"x"})")});
        auto model = client(server, {.stream = false});
        auto const& reply = reply_of(call(model, ticket_request()));
        REQUIRE(reply.tool_calls.size() == 1);
        CHECK(json_of(reply.tool_calls[0].arguments) == json_of(R"({"order_id":"x"})"));
    }

    TEST_CASE("openai client: 429 with retry-after and 503 are transient, 400 is permanent") {
        fake_provider server(
            wire_format::openai,
            {provider_reply::rate_limited(std::chrono::seconds(2)), provider_reply::overloaded(),
             provider_reply::raw(400, R"({"error":{"message":"bad tools","type":"invalid_request_error"}})")});
        auto model = client(server);
        auto const limited = error_of(call(model, ticket_request()));
        CHECK(limited.kind == model_failure::transient);
        CHECK(limited.retry_after == std::chrono::milliseconds(2000));
        auto const overloaded = error_of(call(model, ticket_request()));
        CHECK(overloaded.kind == model_failure::transient);
        CHECK(overloaded.message.find("HTTP 503") != std::string::npos);
        auto const refused = error_of(call(model, ticket_request()));
        CHECK(refused.kind == model_failure::permanent);
        CHECK(refused.message.find("HTTP 400: bad tools") != std::string::npos);
    }

    TEST_CASE("openai client: a stream without [DONE], with an error chunk or a chunk that is not JSON is cut_off") {
        fake_provider server(wire_format::openai,
                             {provider_reply::fault("cut_mid_event"), provider_reply::fault("error_event"),
                              provider_reply::fault("malformed_json")});
        auto model = client(server);
        auto const cut = error_of(call(model, ticket_request()));
        CHECK(cut.kind == model_failure::cut_off);
        CHECK(cut.message.find("without [DONE], inside a chunk") != std::string::npos);
        auto const failed = error_of(call(model, ticket_request()));
        CHECK(failed.kind == model_failure::cut_off);
        CHECK(failed.message.find("The server had an error while streaming") != std::string::npos);
        auto const malformed = error_of(call(model, ticket_request()));
        CHECK(malformed.kind == model_failure::cut_off);
        CHECK(malformed.message.find("is not a JSON object") != std::string::npos);
    }

    TEST_CASE("openai client: a stall past the deadline is cut_off") {
        fake_provider server(wire_format::openai, {provider_reply::stall(std::chrono::seconds(30))});
        auto model = client(server);
        CHECK(error_of(call(model, ticket_request(), std::chrono::milliseconds(300))).kind == model_failure::cut_off);
    }

    TEST_CASE("openai client: a server without keys, such as a local Ollama, needs no key variable") {
        fake_provider server(wire_format::openai, {provider_reply::text("hi")});
        agentrt::openai_model model({.base_url = server.base_url(), .api_key_variable = ""});
        CHECK(reply_of(call(model, ticket_request())).text == "hi");
        CHECK_FALSE(server.requests().at(0).headers.contains("authorization"));
    }
}
