// Record and replay: exchanges kept once, then answered from the file, with no network.
#include <agentrt/models/transcript.hpp>

#include <agentrt/models/anthropic.hpp>
#include <agentrt/models/openai.hpp>
#include <agentrt/runtime/chat_agent.hpp>
#include <agentrt/testkit/fake_provider.hpp>

#include "models/support.hpp"
#include "runtime/fixture.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

using namespace models_test;
using agentrt::testkit::fake_provider;
using agentrt::testkit::provider_reply;
using agentrt::testkit::wire_format;

namespace {

std::string contents(std::filesystem::path const& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

TEST_SUITE("models") {

    TEST_CASE("transcript: a recorded run replays to the same decisions with no server at all") {
        runtime_test::temp_dir dir;
        auto const file = dir.path / "ticket.jsonl";
        std::string recorded_answer;
        {
            runtime_test::world w;
            fake_provider server(wire_format::anthropic,
                                 {provider_reply::overloaded(),
                                  provider_reply::call("lookup_order", R"({"order_id":"ord-1"})"),
                                  provider_reply::text("shipped")});
            agentrt::anthropic_model live({.base_url = server.base_url(), .api_key_variable = ""});
            agentrt::recording_model recorder(live, file);
            agentrt::chat_agent agent(recorder, w.table);
            auto s = w.open();
            auto o = w.options();
            o.models.backoff = std::chrono::milliseconds(1);
            agentrt::driver d(s, w.table, w.policy, agent, o);
            recorded_answer = d.start("where is ord-1?").value().message;
        }
        CHECK(recorded_answer == "shipped");
        REQUIRE(agentrt::read_transcript(file).size() == 3);

        runtime_test::world w;
        agentrt::anthropic_model wire({.base_url = "http://127.0.0.1:9", .api_key_variable = ""});
        agentrt::replaying_model replay(wire, file);
        agentrt::chat_agent agent(replay, w.table);
        auto s = w.open();
        auto o = w.options();
        o.models.backoff = std::chrono::milliseconds(1);
        agentrt::driver d(s, w.table, w.policy, agent, o);
        auto run = d.start("where is ord-1?").value();
        CHECK(run.status == agentrt::run_status::completed);
        CHECK(run.message == recorded_answer);
        CHECK(w.calls["lookup_order"] == 1);
        CHECK(replay.replayed() == 3);
        CHECK(s.read([](agentrt::store_reader const& r) { return r.model_calls("run-1"); })[0].status ==
              "error"); // the 529, replayed
    }

    TEST_CASE("transcript: replay fails the first request that differs, naming it, the file and the byte") {
        runtime_test::temp_dir dir;
        auto const file = dir.path / "t.jsonl";
        {
            fake_provider server(wire_format::openai, {provider_reply::text("a"), provider_reply::text("b")});
            agentrt::openai_model live({.base_url = server.base_url(), .api_key_variable = ""});
            agentrt::recording_model recorder(live, file);
            reply_of(call(recorder, ticket_request()));
            reply_of(call(recorder, after_one_step()));
        }
        agentrt::openai_model wire({.base_url = "http://127.0.0.1:9", .api_key_variable = ""});
        agentrt::replaying_model replay(wire, file);
        CHECK(reply_of(call(replay, ticket_request())).text == "a");
        auto changed = after_one_step();
        changed.system = "You handle tickets.";
        auto const e = error_of(call(replay, changed));
        CHECK(e.kind == agentrt::model_failure::permanent);
        auto const recorded = agentrt::canonical_request(after_one_step()), sent = agentrt::canonical_request(changed);
        std::size_t at = 0;
        while (recorded[at] == sent[at])
            ++at;
        CHECK(e.message.find("request 2 differs from exchange 2 of the transcript " + file.string() + " at byte " +
                             std::to_string(at) + ":") != std::string::npos);
        auto const past = error_of(call(replay, ticket_request()));
        CHECK(past.message.find("past the end of the transcript") != std::string::npos);
    }

    TEST_CASE("transcript: the API key is in no line of it, even when the provider echoes it") {
        runtime_test::temp_dir dir;
        auto const file = dir.path / "t.jsonl";
        scoped_env key("AGENTRT_TEST_ANTHROPIC_KEY", test_key);
        fake_provider server(
            wire_format::anthropic,
            {provider_reply::raw(
                401, std::string(R"({"type":"error","error":{"type":"authentication_error","message":"bad key )") +
                         test_key + R"("}})")});
        agentrt::anthropic_model live(
            {.base_url = server.base_url(), .api_key_variable = "AGENTRT_TEST_ANTHROPIC_KEY"});
        agentrt::recording_model recorder(live, file);
        (void)error_of(call(recorder, ticket_request()));
        auto const text = contents(file);
        CHECK(text.find("bad key [redacted]") != std::string::npos);
        CHECK(text.find(test_key) == std::string::npos);
    }

    TEST_CASE("transcript: the API key is in no line of it, even when a redirect's location echoes it") {
        runtime_test::temp_dir dir;
        auto const file = dir.path / "t.jsonl";
        scoped_env key("AGENTRT_TEST_ANTHROPIC_KEY", test_key);
        fake_provider server(
            wire_format::anthropic,
            {provider_reply::raw(302, "", {std::string("Location: https://elsewhere.example/?key=") + test_key})});
        agentrt::anthropic_model live(
            {.base_url = server.base_url(), .api_key_variable = "AGENTRT_TEST_ANTHROPIC_KEY"});
        agentrt::recording_model recorder(live, file);
        auto const e = error_of(call(recorder, ticket_request()));
        CHECK(e.message.find("redirected to https://elsewhere.example/?key=[redacted]") != std::string::npos);
        auto const text = contents(file);
        CHECK(text.find("elsewhere.example") != std::string::npos);
        CHECK(text.find(test_key) == std::string::npos);
    }

    TEST_CASE("transcript: a line that is not an exchange is refused naming the file and line") {
        runtime_test::temp_dir dir;
        auto const file = dir.path / "bad.jsonl";
        {
            std::ofstream out(file);
            out << agentrt::transcript_line(
                {"{}", {200, "data: [DONE]\n\n", std::nullopt, "", "", agentrt::model_failure::transient}});
            out << R"({"request":"{}"})"
                << "\n";
        }
        CHECK_THROWS_WITH_AS(agentrt::read_transcript(file), doctest::Contains((file.string() + ":2: ").c_str()),
                             std::runtime_error);
    }
}
