// The chat agent, the runtime and a provider client together, against a fake provider on loopback.
#include <agentrt/models/anthropic.hpp>
#include <agentrt/models/openai.hpp>

#include <agentrt/runtime/chat_agent.hpp>
#include <agentrt/testkit/fake_provider.hpp>

#include "runtime/fixture.hpp"

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

using agentrt::run_status;
using agentrt::step_status;
using agentrt::testkit::fake_provider;
using agentrt::testkit::provider_reply;
using agentrt::testkit::wire_format;

namespace {

agentrt::gate_options fast_retries(runtime_test::world const& w) {
    auto o = w.options();
    o.models.backoff = std::chrono::milliseconds(1);
    o.models.timeout = std::chrono::seconds(20);
    return o;
}

void check_every_request_passed(fake_provider const& server) {
    for (auto const& r : server.requests())
        CHECK_MESSAGE(r.refused.empty(), r.refused);
}

} // namespace

TEST_SUITE("models") {

    TEST_CASE("chat over HTTP: an Anthropic-backed run retries an overloaded reply and runs its tool once") {
        runtime_test::world w;
        fake_provider server(wire_format::anthropic, {provider_reply::overloaded(),
                                                      provider_reply::call("lookup_order", R"({"order_id":"ord-1"})"),
                                                      provider_reply::text("ord-1 has shipped.")});
        agentrt::anthropic_model model({.base_url = server.base_url(), .api_key_variable = ""});
        agentrt::chat_agent agent(model, w.table, {.model = "claude-test"});
        auto s = w.open();
        agentrt::driver d(s, w.table, w.policy, agent, fast_retries(w));
        auto run = d.start("where is ord-1?").value();
        CHECK(run.status == run_status::completed);
        CHECK(run.message == "ord-1 has shipped.");
        CHECK(w.calls["lookup_order"] == 1);
        CHECK(server.requests().size() == 3);
        check_every_request_passed(server);
        auto const calls = s.read([](agentrt::store_reader const& r) { return r.model_calls("run-1"); });
        REQUIRE(calls.size() == 3);
        CHECK(calls[0].status == "error");
        CHECK(calls[1].status == "ok");
        CHECK(calls[2].status == "ok");
        // The third request carried the step's call and its result, as the provider wants them.
        auto body = boost::json::parse(server.requests()[2].body);
        CHECK(body.at("messages").at(1).at("content").at(0).at("id") == "step_0");
        CHECK(body.at("messages").at(2).at("content").at(0).at("tool_use_id") == "step_0");
    }

    TEST_CASE("chat over HTTP: the provider's retry-after is waited for before the retry") {
        runtime_test::world w;
        fake_provider server(wire_format::anthropic,
                             {provider_reply::rate_limited(std::chrono::seconds(1)), provider_reply::text("done")});
        agentrt::anthropic_model model({.base_url = server.base_url(), .api_key_variable = ""});
        agentrt::chat_agent agent(model, w.table);
        auto s = w.open();
        agentrt::driver d(s, w.table, w.policy, agent, fast_retries(w));
        auto const started = std::chrono::steady_clock::now();
        CHECK(d.start("g").value().status == run_status::completed);
        CHECK(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(1000)); // not the 1 ms backoff
    }

    TEST_CASE("chat over HTTP: a retry-after past max_retry_wait fails the call at once, saying so") {
        runtime_test::world w;
        fake_provider server(wire_format::anthropic,
                             {provider_reply::rate_limited(std::chrono::seconds(600)), provider_reply::text("never")});
        agentrt::anthropic_model model({.base_url = server.base_url(), .api_key_variable = ""});
        agentrt::chat_agent agent(model, w.table);
        auto s = w.open();
        auto o = fast_retries(w);
        o.models.max_retry_wait = std::chrono::seconds(5);
        agentrt::driver d(s, w.table, w.policy, agent, o);
        auto run = d.start("g").value();
        CHECK(run.status == run_status::failed);
        CHECK(run.message.find("longer than max_retry_wait (5000 ms)") != std::string::npos);
        CHECK(server.requests().size() == 1);
        CHECK(server.remaining() == 1);
    }

    TEST_CASE("chat over HTTP: arguments the catalogue refuses fail the step with why, and the run goes on") {
        runtime_test::world w;
        fake_provider server(wire_format::anthropic,
                             {provider_reply::fault("invalid_arguments"), provider_reply::fault("unknown_tool"),
                              provider_reply::call("lookup_order", R"({"order_id":"ord-1"})"),
                              provider_reply::text("ok")});
        agentrt::anthropic_model model({.base_url = server.base_url(), .api_key_variable = ""});
        agentrt::chat_agent agent(model, w.table);
        auto s = w.open();
        agentrt::driver d(s, w.table, w.policy, agent, fast_retries(w));
        CHECK(d.start("g").value().status == run_status::completed);
        auto const steps = agentrt::read_run(s, "run-1").value().steps;
        REQUIRE(steps.size() == 4);
        CHECK(steps[0].status == step_status::failed);
        CHECK(steps[1].status == step_status::failed);
        CHECK(steps[1].error.find("no_such_tool") != std::string::npos);
        CHECK(steps[2].status == step_status::done);
        CHECK(w.calls["lookup_order"] == 1);
        check_every_request_passed(server); // the failed steps' results were sent back as the provider wants
        auto body = boost::json::parse(server.requests()[1].body);
        CHECK(body.at("messages").at(2).at("content").at(0).at("is_error") == true);
    }

    TEST_CASE("chat over HTTP: over an OpenAI-compatible server the further calls of a reply are shown as not run") {
        runtime_test::world w;
        fake_provider server(wire_format::openai, {provider_reply::calls({{"lookup_order", R"({"order_id":"ord-1"})"},
                                                                          {"lookup_order", R"({"order_id":"ord-2"})"}}),
                                                   provider_reply::text("ord-1 shipped; ask me about ord-2 again.")});
        agentrt::openai_model model({.base_url = server.base_url(), .api_key_variable = ""});
        agentrt::chat_agent agent(model, w.table, {.model = "llama3.2"});
        auto s = w.open();
        agentrt::driver d(s, w.table, w.policy, agent, fast_retries(w));
        CHECK(d.start("where are ord-1 and ord-2?").value().status == run_status::completed);
        CHECK(w.calls["lookup_order"] == 1);
        check_every_request_passed(server);
        auto const messages = boost::json::parse(server.requests()[1].body).at("messages").as_array();
        REQUIRE(messages.size() == 5); // system, user, assistant with two calls, two tool results
        CHECK(messages[3].at("tool_call_id") == "step_0");
        CHECK(messages[4].at("tool_call_id") == "step_0_1");
        CHECK(messages[4].at("content").as_string().starts_with("error: not run"));
        CHECK(agentrt::read_run(s, "run-1").value().steps[0].ignored_calls == 1);
    }

    TEST_CASE("chat over HTTP: a reply cut off mid-stream is recorded ambiguous and charged an estimate") {
        runtime_test::world w;
        fake_provider server(wire_format::anthropic, {provider_reply::fault("cut_mid_event")});
        agentrt::anthropic_model model({.base_url = server.base_url(), .api_key_variable = ""});
        agentrt::chat_agent agent(model, w.table, {.model = "priced", .max_output_tokens = 100});
        auto s = w.open();
        auto o = fast_retries(w);
        o.models.prices["priced"] = {.input_per_million = 1, .output_per_million = 10};
        agentrt::driver d(s, w.table, w.policy, agent, o);
        (void)d.start("g");
        auto const calls = s.read([](agentrt::store_reader const& r) { return r.model_calls("run-1"); });
        REQUIRE(calls.size() == 1);
        CHECK(calls[0].status == "ambiguous");
        CHECK(calls[0].output_tokens == 100);
        CHECK(calls[0].cost_micros >= 1000);  // at least the whole output cap at 10 USD per million
        CHECK(server.requests().size() == 1); // a cut-off call is not retried
    }
}
