// The fake model: every turn kind and failure mode, alone and through a real driver on a store.
#include <agentrt/testkit/fake_model.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/testkit/model_agent.hpp>
#include <agentrt/testkit/scenario.hpp>

#include "runtime/fixture.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <set>
#include <thread>

using namespace agentrt::testkit;
using agentrt::run_status;
using agentrt::step_status;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {

agentrt::model_request ask(std::string goal = "where is ord-1?") {
    agentrt::model_request r;
    r.model = "fake-model";
    r.messages.push_back(agentrt::model_message::user(std::move(goal)));
    return r;
}

agentrt::model_call_context context(std::uint64_t step = 0) {
    return {"run-7", step, 1, steady_clock::now() + std::chrono::seconds(5), {}};
}

agentrt::model_response reply(agentrt::model_result r) {
    REQUIRE_MESSAGE(std::holds_alternative<agentrt::model_response>(r), std::get<agentrt::model_error>(r).message);
    return std::get<agentrt::model_response>(r);
}

agentrt::model_error failure(agentrt::model_result r) {
    REQUIRE(std::holds_alternative<agentrt::model_error>(r));
    return std::get<agentrt::model_error>(r);
}

// A driver over the fake model, on a fresh temporary store with the test catalogue.
struct model_run : runtime_test::world {
    fake_model model;
    model_agent agent{model, table};
    agentrt::gate_options options_for_models = [this] {
        auto o = options();
        o.models.backoff = milliseconds(1);
        return o;
    }();
    explicit model_run(std::vector<turn> script) : model(std::move(script)) {}

    agentrt::run_record run(std::string goal = "where is ord-1?") {
        auto s = open();
        agentrt::driver d(s, table, policy, agent, options_for_models);
        auto run = d.start(std::move(goal));
        REQUIRE_MESSAGE(run, (run ? std::string() : run.error().to_string()));
        return *run;
    }
    std::vector<agentrt::model_call_record> model_calls() {
        auto s = open();
        return s.read([](agentrt::store_reader const& r) { return r.model_calls("run-1"); });
    }
    std::vector<agentrt::step_record> steps() {
        auto s = open();
        return agentrt::read_run(s, "run-1").value().steps;
    }
};

} // namespace

TEST_SUITE("testkit") {

    TEST_CASE("fake model: a text turn replies with its text, ending the turn") {
        fake_model model({turn::text("the order has shipped")});
        auto const r = reply(model.complete(ask(), context()));
        CHECK(r.text == "the order has shipped");
        CHECK(r.tool_calls.empty());
        CHECK(r.stop == agentrt::stop_reason::end_turn);
        CHECK(model.remaining() == 0);
    }

    TEST_CASE("fake model: a call turn asks for the tool with the argument bytes exactly as scripted") {
        fake_model model({turn::call("lookup_order", R"({ "order_id" : "ord-1" })")});
        auto const r = reply(model.complete(ask(), context()));
        REQUIRE(r.tool_calls.size() == 1);
        CHECK(r.tool_calls[0].id == "call-1-1");
        CHECK(r.tool_calls[0].name == "lookup_order");
        CHECK(r.tool_calls[0].arguments == R"({ "order_id" : "ord-1" })");
        CHECK(r.stop == agentrt::stop_reason::tool_use);
    }

    TEST_CASE("fake model: a reply turn is given as is, ids it lacks filled in") {
        agentrt::model_response given;
        given.tool_calls = {{"toolu_01", "lookup_order", "{}"}, {"", "wipe_account", "{}"}};
        given.usage = {5, 6};
        fake_model model({turn::reply(given)});
        auto const r = reply(model.complete(ask(), context()));
        REQUIRE(r.tool_calls.size() == 2);
        CHECK(r.tool_calls[0].id == "toolu_01");
        CHECK(r.tool_calls[1].id == "call-1-2");
        CHECK(r.usage.output_tokens == 6);
        CHECK(r.stop == agentrt::stop_reason::end_turn);
    }

    TEST_CASE("fake model: usage and stop reason are the turn's own") {
        fake_model model({turn::text("cut short").with_usage(1200, 1024).with_stop(agentrt::stop_reason::max_tokens)});
        auto const r = reply(model.complete(ask(), context()));
        CHECK(r.usage.input_tokens == 1200);
        CHECK(r.usage.output_tokens == 1024);
        CHECK(r.stop == agentrt::stop_reason::max_tokens);
        CHECK_THROWS_WITH_AS((void)turn::stall().with_usage(1, 1),
                             "turn::with_usage belongs to a reply; a stall turn has none", std::logic_error);
    }

    TEST_CASE("fake model: chunked text reaches the observer in order and the reply is their concatenation") {
        fake_model model(
            {turn::call("lookup_order", R"({"order_id":"ord-1"})"), turn::chunks({"The order ", "has ", "shipped."})});
        std::vector<std::string> seen;
        model.on_chunk([&](text_chunk const& c) {
            seen.push_back(std::to_string(c.call) + "." + std::to_string(c.index) + ":" + std::string(c.text));
        });
        (void)model.complete(ask(), context());
        auto const r = reply(model.complete(ask(), context(1)));
        CHECK(r.text == "The order has shipped.");
        CHECK(seen == std::vector<std::string>{"2.0:The order ", "2.1:has ", "2.2:shipped."});
    }

    TEST_CASE("fake model: every request is recorded with its call number, context and canonical bytes") {
        fake_model model({turn::text("one"), turn::text("two")});
        (void)model.complete(ask("first"), context(0));
        (void)model.complete(ask("second"), {"run-9", 4, 2, steady_clock::now() + milliseconds(100), {}});
        auto recorded = model.requests();
        REQUIRE(recorded.size() == 2);
        CHECK(recorded[0].call == 1);
        CHECK(recorded[0].run_id == "run-7");
        CHECK(recorded[0].request.messages[0].text() == "first");
        CHECK(recorded[1].call == 2);
        CHECK(recorded[1].run_id == "run-9");
        CHECK(recorded[1].step_index == 4);
        CHECK(recorded[1].attempt == 2);
        CHECK(recorded[1].text ==
              R"({"max_output_tokens":1024,"messages":[{"content":[{"text":"second","type":"text"}],"role":"user"}],)"
              R"("model":"fake-model","system":"","tools":[]})");
        CHECK(model.calls() == 2);
    }

    TEST_CASE("fake model: a call past the script throws, naming the call, its run and step, and the script") {
        fake_model model({turn::text("only")});
        (void)model.complete(ask(), context(0));
        CHECK_THROWS_WITH_AS(model.complete(ask(), {"run-7", 3, 1, steady_clock::now() + milliseconds(100), {}}),
                             "fake model has no turn for call 2 (run run-7, step 3, attempt 1): its script has 1 turns",
                             std::out_of_range);
        CHECK(model.calls() == 2); // the call past the script is recorded too
    }

    TEST_CASE("fake model: a stall gives up at the call's deadline, never later, and reports a cut-off call") {
        fake_model model({turn::stall()});
        auto const started = steady_clock::now();
        auto const deadline = started + milliseconds(40);
        auto const e = failure(model.complete(ask(), {"run-7", 0, 1, deadline, {}}));
        auto const returned = steady_clock::now();
        CHECK(returned >= deadline);
        CHECK(returned - started < std::chrono::seconds(2));
        CHECK(e.kind == agentrt::model_failure::cut_off);
        CHECK(e.message == "the model stalled: no reply before the call's deadline");
    }

    TEST_CASE("fake model: a stall's own bound ends it before a later deadline") {
        fake_model model({turn::stall(milliseconds(20))});
        auto const started = steady_clock::now();
        auto const e = failure(model.complete(ask(), context()));
        CHECK(steady_clock::now() - started >= milliseconds(20));
        CHECK(steady_clock::now() - started < std::chrono::seconds(4)); // the context's deadline is 5 s away
        CHECK(e.kind == agentrt::model_failure::cut_off);
        CHECK(e.message == "the model stalled: no reply within the stall's bound of 20 ms");
    }

    TEST_CASE("fake model: a stall ends when the call's stop token is triggered") {
        fake_model model({turn::stall()});
        std::stop_source stop;
        std::thread stopper([&] {
            std::this_thread::sleep_for(milliseconds(20));
            stop.request_stop();
        });
        auto const e = failure(
            model.complete(ask(), {"run-7", 0, 1, std::chrono::steady_clock::time_point::max(), stop.get_token()}));
        stopper.join();
        CHECK(e.kind == agentrt::model_failure::cut_off);
        CHECK(e.message == "the call was stopped while the model stalled");
    }

    TEST_CASE("fake model: a stall that nothing could end is refused instead of hanging the test") {
        fake_model model({turn::stall()});
        CHECK_THROWS_AS(model.complete(ask(), {"run-7", 0, 1, steady_clock::time_point::max(), {}}), std::logic_error);
    }

    TEST_CASE("fake model: an abort mid-stream delivers some chunks, then a cut-off naming what arrived") {
        fake_model model({turn::abort_mid_stream({"The order ", "has "})});
        std::vector<std::string> seen;
        model.on_chunk([&](text_chunk const& c) { seen.emplace_back(c.text); });
        auto const e = failure(model.complete(ask(), context()));
        CHECK(seen == std::vector<std::string>{"The order ", "has "});
        CHECK(e.kind == agentrt::model_failure::cut_off);
        CHECK(e.message == "the stream was cut off after 2 chunks (14 bytes) of text");
    }

    TEST_CASE("fake model: transient and permanent failures carry an HTTP-like status") {
        fake_model model(
            {turn::transient_failure(429, "rate limited"), turn::permanent_failure(401, "invalid API key")});
        auto const transient = failure(model.complete(ask(), context()));
        CHECK(transient.kind == agentrt::model_failure::transient);
        CHECK(transient.message == "HTTP 429: rate limited");
        auto const permanent = failure(model.complete(ask(), context()));
        CHECK(permanent.kind == agentrt::model_failure::permanent);
        CHECK(permanent.message == "HTTP 401: invalid API key");
    }

    TEST_CASE("fake model: an unknown tool that the request does offer is a mistake in the script") {
        fake_model model({turn::unknown_tool("lookup_order")});
        auto request = ask();
        request.tools.push_back(boost::json::object{{"name", "lookup_order"}});
        CHECK_THROWS_WITH_AS(model.complete(request, context()),
                             "fake model, turn 1 (unknown_tool): the request offers a tool named lookup_order: script "
                             "a name the catalogue lacks",
                             std::logic_error);
    }

    TEST_CASE("fake model: malformed arguments that parse as JSON are a mistake in the script") {
        CHECK_THROWS_AS((void)turn::malformed_arguments("lookup_order", R"({"order_id":"ord-1"})"),
                        std::invalid_argument);
        fake_model model({turn::malformed_arguments("lookup_order")});
        auto const r = reply(model.complete(ask(), context()));
        REQUIRE(r.tool_calls.size() == 1);
        CHECK(r.tool_calls[0].arguments == R"({"order_id":)");
    }

    TEST_CASE("fake model: calls from many threads each take exactly one turn") {
        std::vector<turn> script;
        for (int i = 0; i < 200; ++i)
            script.push_back(turn::text(std::to_string(i)));
        fake_model model(std::move(script));
        std::mutex seen_mutex;
        std::set<std::string> seen;
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&] {
                for (int i = 0; i < 50; ++i) {
                    auto r = model.complete(ask(), context());
                    std::lock_guard lock(seen_mutex);
                    seen.insert(std::get<agentrt::model_response>(r).text);
                }
            });
        for (auto& t : threads)
            t.join();
        CHECK(seen.size() == 200);
        CHECK(model.remaining() == 0);
        std::set<std::uint64_t> numbers;
        for (auto const& r : model.requests())
            numbers.insert(r.call);
        CHECK(numbers.size() == 200);
        CHECK(*numbers.rbegin() == 200);
    }

    TEST_CASE("fake model per decision: a call takes the turn of its decision and attempt, whatever came before") {
        fake_model model(per_decision,
                         {{turn::text("first decision")}, {turn::transient_failure(503), turn::text("second")}});
        auto after = [](int decisions) {
            auto r = ask();
            for (int i = 0; i < decisions; ++i)
                r.messages.push_back(agentrt::model_message::assistant("{}"));
            return r;
        };
        auto attempt = [](std::uint32_t a) {
            return agentrt::model_call_context{"run-7", 5, a, steady_clock::now() + milliseconds(100), {}};
        };
        CHECK(failure(model.complete(after(1), attempt(1))).message == "HTTP 503: overloaded");
        CHECK(model.remaining() == 2);
        CHECK(reply(model.complete(after(0), attempt(1))).text == "first decision");
        CHECK(reply(model.complete(after(1), attempt(2))).text == "second");
        CHECK(reply(model.complete(after(0), attempt(1))).text == "first decision"); // asked again: the same answer
        CHECK(model.remaining() == 0);
        CHECK(model.calls() == 4);
        CHECK_THROWS_WITH_AS(model.complete(after(1), attempt(3)),
                             "fake model has no turn for call 5 (run run-7, step 5, attempt 3): its script has 2 turns "
                             "for a request carrying 1 earlier decisions",
                             std::out_of_range);
        CHECK_THROWS_WITH_AS(model.complete(after(2), attempt(1)),
                             "fake model has no turn for call 6 (run run-7, step 5, attempt 1): its script has turns "
                             "for 2 decisions, not for a request carrying 2 earlier decisions",
                             std::out_of_range);
    }

    TEST_CASE("fake model per decision: a crashed and resumed scenario gets each decision's answer in every process") {
        using catalogue = agentrt::catalog<test_tools::lookup_order>;
        fake_model model(per_decision,
                         {{turn::call("lookup_order", R"({"order_id":"ord-1"})")}, {turn::text("ord-1 has shipped")}});
        scenario s;
        s.tools = [] { return catalogue{}.table(); };
        s.policy = [] {
            return agentrt::evaluator("allow-all/1",
                                      [](auto const&, auto const&, auto const&) { return agentrt::allow(); });
        };
        s.agent = [&model] { return std::make_unique<model_agent>(model, catalogue{}.table()); };
        // The resumed process starts from a fresh copy of the model, and decides step 2 (the dead process
        // had opened step 1, now left behind): keyed by call it would ask for the lookup again, keyed by
        // step index it would have no turn.
        auto r = run_scenario(s, {{0, crash_point::after_tool_finished}});
        CHECK(r.ok());
        CHECK(r.crashes_fired.size() == 1);
        REQUIRE(r.steps.size() == 3);
        CHECK(r.steps[1].status == step_status::interrupted);
        CHECK(r.run.status == run_status::completed);
        CHECK(r.run.message == "ord-1 has shipped");
        CHECK(r.invocations_of("lookup_order") == 1);
    }

    // --- through a driver on a store ---

    TEST_CASE("fake model in a run: a scripted call runs the tool, then the text completes the run") {
        model_run w({turn::call("lookup_order", R"({"order_id":"ord-1"})"), turn::text("ord-1 has shipped")});
        auto run = w.run();
        CHECK(run.status == run_status::completed);
        CHECK(run.message == "ord-1 has shipped");
        CHECK(w.calls["lookup_order"] == 1);
        CHECK(w.model.remaining() == 0);
    }

    TEST_CASE("fake model in a run: the recorded bytes are the bytes the runtime hashed") {
        model_run w({turn::call("lookup_order", R"({"order_id":"ord-1"})"), turn::text("done")});
        (void)w.run();
        auto recorded = w.model.requests();
        auto stored = w.model_calls();
        REQUIRE(recorded.size() == 2);
        REQUIRE(stored.size() == 2);
        for (std::size_t i = 0; i < 2; ++i) {
            CHECK(agentrt::sha256_hex(recorded[i].text) == stored[i].request_hash);
            CHECK(recorded[i].run_id == "run-1");
            CHECK(recorded[i].step_index == i);
        }
    }

    TEST_CASE("fake model in a run: several calls in one turn run the first and note the others") {
        model_run w({turn::calls({{"lookup_order", R"({"order_id":"ord-1"})"},
                                  {"wipe_account", R"({"account":"acme","confirm":true})"}}),
                     turn::text("done")});
        CHECK(w.run().status == run_status::completed);
        CHECK(w.calls["lookup_order"] == 1);
        CHECK(w.calls["wipe_account"] == 0);
        CHECK(w.steps()[0].ignored_calls == 1);
    }

    TEST_CASE("fake model in a run: a transient failure is retried and recorded as error, then ok") {
        model_run w({turn::transient_failure(503), turn::text("done")});
        CHECK(w.run().status == run_status::completed);
        auto stored = w.model_calls();
        REQUIRE(stored.size() == 2);
        CHECK(stored[0].status == "error");
        CHECK(stored[0].error == "HTTP 503: overloaded");
        CHECK(stored[1].status == "ok");
        CHECK(stored[1].attempt == 2);
        CHECK(w.model.requests()[1].attempt == 2);
    }

    TEST_CASE("fake model in a run: a permanent failure is not retried and fails the run") {
        model_run w({turn::permanent_failure(401, "invalid API key"), turn::text("never reached")});
        auto run = w.run();
        CHECK(run.status == run_status::failed);
        CHECK(run.reason == agentrt::run_reason::internal_error);
        CHECK(run.message == "the agent threw: the model call failed (error): HTTP 401: invalid API key");
        CHECK(w.model.calls() == 1);
    }

    TEST_CASE("fake model in a run: a stall is cut off at the model timeout and recorded ambiguous") {
        model_run w({turn::stall()});
        w.options_for_models.models.timeout = milliseconds(50);
        auto const started = steady_clock::now();
        auto run = w.run();
        CHECK(steady_clock::now() - started < std::chrono::seconds(5));
        CHECK(run.status == run_status::failed);
        auto stored = w.model_calls();
        REQUIRE(stored.size() == 1); // a cut-off call may have been charged: it is not retried
        CHECK(stored[0].status == "ambiguous");
        CHECK(stored[0].error == "the model stalled: no reply before the call's deadline");
    }

    TEST_CASE("fake model in a run: an abort mid-stream is recorded ambiguous with what arrived") {
        model_run w({turn::abort_mid_stream({"ord-1 ", "has "})});
        CHECK(w.run().status == run_status::failed);
        auto stored = w.model_calls();
        REQUIRE(stored.size() == 1);
        CHECK(stored[0].status == "ambiguous");
        CHECK(stored[0].error == "the stream was cut off after 2 chunks (10 bytes) of text");
    }

    TEST_CASE("fake model in a run: an unknown tool fails its step as an invalid decision and the run goes on") {
        model_run w({turn::unknown_tool("launch_rocket", R"({"target":"moon"})"), turn::text("done")});
        auto run = w.run();
        CHECK(run.status == run_status::completed);
        auto steps = w.steps();
        REQUIRE(steps.size() == 2);
        CHECK(steps[0].status == step_status::failed);
        CHECK(steps[0].tool == "launch_rocket");
        CHECK(steps[0].observation == R"({"invalid_decision":"unknown tool \"launch_rocket\"; the catalogue has: )"
                                      R"(lookup_order, send_message, wipe_account"})");
        CHECK(steps[1].status == step_status::done);
    }

    TEST_CASE("fake model in a run: malformed argument bytes fail the step as an invalid decision, kept verbatim") {
        model_run w({turn::malformed_arguments("lookup_order", R"({"order_id":"ord-1")"), turn::text("done")});
        auto run = w.run();
        CHECK(run.status == run_status::completed);
        CHECK(w.calls["lookup_order"] == 0);
        auto steps = w.steps();
        REQUIRE(steps.size() == 2);
        CHECK(steps[0].status == step_status::failed);
        CHECK(steps[0].arguments == R"({"order_id":"ord-1")");
        CHECK(steps[0].observation == R"({"invalid_decision":"invalid JSON at byte 19: the text ends inside a value\n)"
                                      R"(  /order_id: truncated the text ends inside a value"})");
    }

    TEST_CASE("fake model in a run: running past the script fails the run, naming the call") {
        model_run w({turn::call("lookup_order", R"({"order_id":"ord-1"})")});
        auto run = w.run();
        CHECK(run.status == run_status::failed);
        CHECK(run.message == "the agent threw: the model call failed (error): the model threw: fake model has no turn "
                             "for call 2 (run run-1, step 1, attempt 1): its script has 1 turns");
    }
}
