#include <agentrt/runtime/check.hpp>
#include <agentrt/runtime/model.hpp>
#include <agentrt/runtime/prune.hpp>
#include <agentrt/testkit/simulated_process.hpp>

#include "fixture.hpp"

#include <deque>
#include <functional>
#include <thread>

using namespace runtime_test;
using agentrt::decision;
using agentrt::run_status;

namespace {

struct fake_model : agentrt::model {
    std::deque<agentrt::model_result> replies;
    int calls = 0;
    agentrt::model_result complete(agentrt::model_request const&, agentrt::model_call_context const&) override {
        ++calls;
        if (replies.empty())
            throw std::out_of_range("fake model called past its script (call " + std::to_string(calls) + ")");
        auto r = replies.front();
        replies.pop_front();
        return r;
    }
};

struct model_agent : agentrt::agent {
    agentrt::model* m = nullptr;
    agentrt::decision decide(agentrt::agent_view const& v) override {
        agentrt::model_request request;
        request.model = "small";
        request.messages.push_back(agentrt::model_message::user(v.run.goal));
        auto reply = v.call_model(*m, request);
        if (!reply)
            throw agentrt::exception(reply.error());
        return agentrt::decision_from(*reply);
    }
};

agentrt::model_response text(std::string t, std::uint64_t in = 100, std::uint64_t out = 20) {
    agentrt::model_response r;
    r.text = std::move(t);
    r.usage = {in, out};
    return r;
}

agentrt::model_response calls(std::vector<agentrt::model_tool_call> c) {
    agentrt::model_response r;
    r.tool_calls = std::move(c);
    r.usage = {10, 10};
    r.stop = agentrt::stop_reason::tool_use;
    return r;
}

struct model_world : world {
    fake_model model;
    model_agent agent;
    agentrt::gate_options with_prices() const {
        auto o = options();
        o.models.prices["small"] = {1.0, 2.0};
        o.models.backoff = std::chrono::milliseconds(1);
        return o;
    }
    model_world() { agent.m = &model; }
};

} // namespace

TEST_CASE("a model call is recorded dispatched, then ok with its usage and cost") {
    model_world w;
    w.model.replies = {text("all done", 1000, 500)};
    auto s = w.open();
    agentrt::driver d(s, w.table, w.policy, w.agent, w.with_prices());
    auto run = d.start("goal").value();
    CHECK(run.status == run_status::completed);
    CHECK(run.model_calls == 1);
    CHECK(run.tokens == 1500);
    CHECK(run.cost_micros == 1000 * 1 + 500 * 2);
    auto recorded = s.read([](agentrt::store_reader const& r) { return r.model_calls("run-1"); });
    REQUIRE(recorded.size() == 1);
    CHECK(recorded[0].status == "ok");
    CHECK(recorded[0].request_hash.size() == 64);
    auto types = event_types(s, "run-1");
    CHECK(std::find(types.begin(), types.end(), "model.dispatched") <
          std::find(types.begin(), types.end(), "model.completed"));
}

TEST_CASE("pruning a run removes its model calls too") {
    model_world w;
    w.model.replies = {text("all done")};
    auto s = w.open();
    agentrt::driver d(s, w.table, w.policy, w.agent, w.with_prices());
    (void)d.start("goal").value();
    auto model_calls = [&] { return s.read([](agentrt::store_reader const& r) { return r.model_calls("run-1"); }); };
    REQUIRE(model_calls().size() == 1);
    REQUIRE(agentrt::prune(s, w.clock() + 1).value().runs == std::vector<std::string>{"run-1"});
    CHECK(model_calls().empty());
}

TEST_CASE("transient model failures are retried with backoff, each call recorded") {
    model_world w;
    w.model.replies = {agentrt::model_error{agentrt::model_failure::transient, "overloaded"},
                       agentrt::model_error{agentrt::model_failure::transient, "overloaded"}, text("done")};
    auto s = w.open();
    agentrt::driver d(s, w.table, w.policy, w.agent, w.with_prices());
    CHECK(d.start("goal").value().status == run_status::completed);
    auto recorded = s.read([](agentrt::store_reader const& r) { return r.model_calls("run-1"); });
    REQUIRE(recorded.size() == 3);
    CHECK(recorded[0].status == "error");
    CHECK(recorded[1].attempt == 2);
    CHECK(recorded[2].status == "ok");
}

TEST_CASE("retries of transient failures count against the model call limit") {
    model_world w;
    w.model.replies = {agentrt::model_error{agentrt::model_failure::transient, "overloaded"},
                       agentrt::model_error{agentrt::model_failure::transient, "overloaded"}, text("done")};
    auto s = w.open();
    auto options = w.with_prices();
    options.models.max_calls = 2;
    agentrt::driver d(s, w.table, w.policy, w.agent, options);
    auto run = d.start("goal").value();
    CHECK(w.model.calls == 2);
    CHECK(run.status == run_status::failed);
    CHECK(run.reason == "limit_model_calls");
}

TEST_CASE("a permanent model failure is not retried and fails the run") {
    model_world w;
    w.model.replies = {agentrt::model_error{agentrt::model_failure::permanent, "bad key"}};
    auto s = w.open();
    agentrt::driver d(s, w.table, w.policy, w.agent, w.with_prices());
    auto run = d.start("goal").value();
    CHECK(w.model.calls == 1);
    CHECK(run.status == run_status::failed);
    CHECK(run.message == "the agent threw: the model call failed (error): bad key");
}

TEST_CASE("a cut-off model call is recorded ambiguous and charged a conservative estimate") {
    model_world w;
    w.model.replies = {agentrt::model_error{agentrt::model_failure::cut_off, "connection reset"}};
    auto s = w.open();
    auto options = w.with_prices();
    options.models.max_attempts = 1;
    agentrt::driver d(s, w.table, w.policy, w.agent, options);
    auto run = d.start("goal").value();
    auto recorded = s.read([](agentrt::store_reader const& r) { return r.model_calls("run-1"); });
    REQUIRE(recorded.size() == 1);
    CHECK(recorded[0].status == "ambiguous");
    CHECK(recorded[0].output_tokens == 1024);
    CHECK(recorded[0].input_tokens > 0);
    CHECK(run.cost_micros == recorded[0].input_tokens * 1 + 1024 * 2);
}

TEST_CASE("a model missing from the price table under a cost limit is refused, not free") {
    model_world w;
    w.model.replies = {text("done")};
    auto s = w.open();
    auto options = w.options();
    options.models.max_cost = 1.0;
    agentrt::driver d(s, w.table, w.policy, w.agent, options);
    auto run = d.start("goal").value();
    CHECK(w.model.calls == 0);
    CHECK(run.status == run_status::failed);
    CHECK(run.message.find("has no price in the price table") != std::string::npos);
}

TEST_CASE("the model call limit ends the run before the call past it") {
    model_world w;
    w.model.replies = {calls({{"1", "lookup_order", R"({"order_id":"ord-1"})"}}),
                       calls({{"2", "lookup_order", R"({"order_id":"ord-2"})"}}), text("done")};
    auto s = w.open();
    auto options = w.with_prices();
    options.models.max_calls = 2;
    agentrt::driver d(s, w.table, w.policy, w.agent, options);
    auto run = d.start("goal").value();
    CHECK(w.model.calls == 2);
    CHECK(run.status == run_status::failed);
    CHECK(run.reason == "limit_model_calls");
}

TEST_CASE("the token limit ends the run before the call past it") {
    model_world w;
    w.model.replies = {calls({{"1", "lookup_order", R"({"order_id":"ord-1"})"}}),
                       calls({{"2", "lookup_order", R"({"order_id":"ord-2"})"}}), text("done")};
    auto s = w.open();
    auto options = w.with_prices();
    options.models.max_tokens = 30; // each reply reports 20
    agentrt::driver d(s, w.table, w.policy, w.agent, options);
    auto run = d.start("goal").value();
    CHECK(w.model.calls == 2);
    CHECK(run.tokens == 40);
    CHECK(run.status == run_status::failed);
    CHECK(run.reason == "limit_tokens");
}

TEST_CASE("the cost limit ends the run before the call past it") {
    model_world w;
    w.model.replies = {calls({{"1", "lookup_order", R"({"order_id":"ord-1"})"}}),
                       calls({{"2", "lookup_order", R"({"order_id":"ord-2"})"}}), text("done")};
    auto s = w.open();
    auto options = w.with_prices();
    options.models.max_cost = 0.00005; // 50 micro-USD; each reply costs 10 * 1 + 10 * 2 = 30
    agentrt::driver d(s, w.table, w.policy, w.agent, options);
    auto run = d.start("goal").value();
    CHECK(w.model.calls == 2);
    CHECK(run.cost_micros == 60);
    CHECK(run.status == run_status::failed);
    CHECK(run.reason == "limit_cost");
}

TEST_CASE("a model limit that ends the run closes the step it was deciding, and the store keeps its invariants") {
    for (int limit = 0; limit < 3; ++limit) {
        CAPTURE(limit);
        model_world w;
        w.model.replies = {calls({{"1", "lookup_order", R"({"order_id":"ord-1"})"}}),
                           calls({{"2", "lookup_order", R"({"order_id":"ord-2"})"}}), text("done")};
        auto s = w.open();
        auto options = w.with_prices();
        if (limit == 0)
            options.models.max_calls = 2;
        else if (limit == 1)
            options.models.max_tokens = 30;
        else
            options.models.max_cost = 0.00005;
        agentrt::driver d(s, w.table, w.policy, w.agent, options);
        auto run = d.start("goal").value();
        CHECK(run.status == run_status::failed);
        auto const steps = agentrt::read_run(s, "run-1").value().steps;
        REQUIRE(steps.size() == 3);
        CHECK(steps.back().status == agentrt::step_status::failed);
        CHECK(steps.back().error == run.message);
        auto report = agentrt::check_invariants(s);
        CHECK_MESSAGE(report.ok(), (report.ok() ? "" : report.problems.front()));
    }
}

TEST_CASE("a lapsed lease starts no model call") {
    model_world w;
    w.model.replies = {text("done")};
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.with_prices());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    w.clock.advance(std::chrono::seconds(31));
    agentrt::model_request request;
    request.model = "small";
    auto reply = session.call_model(w.model, request);
    REQUIRE_FALSE(reply);
    CHECK(reply.error().message.find("lapsed") != std::string::npos);
    CHECK(w.model.calls == 0);
    CHECK(s.read([](agentrt::store_reader const& r) { return r.model_calls("run-1"); }).empty());
}

TEST_CASE("a reply with several tool calls runs the first and notes the others") {
    model_world w;
    w.model.replies = {calls({{"1", "lookup_order", R"({"order_id":"ord-1"})"},
                              {"2", "wipe_account", R"({"account":"a","confirm":true})"}}),
                       text("done")};
    auto s = w.open();
    agentrt::driver d(s, w.table, w.policy, w.agent, w.with_prices());
    CHECK(d.start("goal").value().status == run_status::completed);
    CHECK(w.calls["lookup_order"] == 1);
    CHECK(w.calls["wipe_account"] == 0);
    CHECK(agentrt::read_run(s, "run-1").value().steps[0].ignored_calls == 1);
}

TEST_CASE("a reply's further calls are recorded with the decision, in order, and read back") {
    agentrt::model_response r;
    r.text = "Checking both.";
    r.tool_calls = {{"a", "lookup_order", R"({"order_id":"ord-1"})"},
                    {"b", "lookup_order", R"({"order_id":"ord-2"})"},
                    {"c", "wipe_account", "{}"}};
    auto d = agentrt::decision_from(r);
    CHECK(d.tool == "lookup_order");
    CHECK(d.summary == "Checking both.");
    REQUIRE(d.ignored.size() == 2);
    auto back = agentrt::decision::from_text(d.to_text());
    REQUIRE(back);
    CHECK(back->ignored.size() == 2);
    CHECK(back->ignored[1].tool == "wipe_account");
    CHECK(back->ignored[0].arguments == R"({"order_id":"ord-2"})");
}

TEST_CASE("a refusal or a reply cut at its output cap is no answer: the decision fails, saying which") {
    agentrt::model_response refused;
    refused.text = "I can't help with that.";
    refused.stop = agentrt::stop_reason::refusal;
    auto d = agentrt::decision_from(refused);
    CHECK(d.kind == agentrt::decision_kind::fail);
    CHECK(d.summary == "the model refused to go on: I can't help with that.");
    agentrt::model_response capped;
    capped.stop = agentrt::stop_reason::max_tokens;
    d = agentrt::decision_from(capped);
    CHECK(d.kind == agentrt::decision_kind::fail);
    CHECK(d.summary.find("reached its output cap (max_output_tokens)") != std::string::npos);
    agentrt::model_response answered;
    answered.text = "done";
    CHECK(agentrt::decision_from(answered).kind == agentrt::decision_kind::complete);
}

namespace {
// A model whose `complete` is the test's own function.
struct scripted_model : agentrt::model {
    std::function<agentrt::model_result(agentrt::model_call_context const&)> reply;
    agentrt::model_result complete(agentrt::model_request const&, agentrt::model_call_context const& c) override {
        return reply(c);
    }
};
agentrt::model_request small_request() {
    agentrt::model_request request;
    request.model = "small";
    request.messages.push_back(agentrt::model_message::user("go on"));
    return request;
}
} // namespace

TEST_CASE("a lease is renewed while a model call longer than the lease works") {
    world w;
    auto s = w.open();
    auto options = w.options();
    options.lease_duration = short_lease;
    scripted_model m;
    m.reply = [&](agentrt::model_call_context const&) -> agentrt::model_result {
        work_longer_than_the_lease(w, s);
        return text("done");
    };
    agentrt::gate g(s, w.table, w.policy, options);
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    REQUIRE(session.call_model(m, small_request()));
    check_lease_kept(w, s, session, options);
}

TEST_CASE("the caller's stop token stops a model call, which is still recorded, and ends its retries") {
    world w;
    auto s = w.open();
    auto options = w.options();
    options.models.timeout = std::chrono::seconds(10);
    options.models.backoff = std::chrono::seconds(10); // a retry would wait long: a cancel must end it
    std::stop_source caller;
    int calls = 0;
    bool stopped_by_caller = false;
    std::thread stopper;
    scripted_model m;
    m.reply = [&](agentrt::model_call_context const& c) -> agentrt::model_result {
        ++calls;
        stopper = std::thread([&caller] { caller.request_stop(); });
        auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (!c.stop.stop_requested() && std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        stopped_by_caller = c.stop.stop_requested() && std::chrono::steady_clock::now() < c.deadline;
        return agentrt::model_error{agentrt::model_failure::transient, "stopped by the caller"};
    };
    agentrt::gate g(s, w.table, w.policy, options);
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    auto started = std::chrono::steady_clock::now();
    auto reply = session.call_model(m, small_request(), caller.get_token());
    stopper.join();
    REQUIRE_FALSE(reply);
    CHECK(reply.error().code == agentrt::errc::refused);
    CHECK(reply.error().message == "the model call was cancelled (error): stopped by the caller");
    CHECK(stopped_by_caller);
    CHECK(calls == 1);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
    auto recorded = s.read([](agentrt::store_reader const& r) { return r.model_calls("run-1"); });
    REQUIRE(recorded.size() == 1);
    CHECK(recorded[0].status == "error");
}

TEST_CASE("a cancel while waiting to retry a model call starts no further call") {
    world w;
    auto s = w.open();
    auto options = w.options();
    options.models.backoff = std::chrono::seconds(10);
    std::stop_source caller;
    int calls = 0;
    scripted_model m;
    m.reply = [&](agentrt::model_call_context const&) -> agentrt::model_result {
        ++calls;
        return agentrt::model_error{agentrt::model_failure::transient, "busy"};
    };
    agentrt::gate g(s, w.table, w.policy, options);
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    std::thread stopper([&caller] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        caller.request_stop();
    });
    auto started = std::chrono::steady_clock::now();
    auto reply = session.call_model(m, small_request(), caller.get_token());
    stopper.join();
    REQUIRE_FALSE(reply);
    CHECK(reply.error().message == "the model call was cancelled while waiting to retry (error): busy");
    CHECK(calls == 1);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
    CHECK(s.read([](agentrt::store_reader const& r) { return r.model_calls("run-1"); }).size() == 1);
}

TEST_CASE("a model call past its deadline is asked to stop and no longer renews the lease") {
    world w;
    auto s = w.open();
    auto options = w.options();
    options.lease_duration = std::chrono::milliseconds(30);
    options.models.timeout = std::chrono::milliseconds(50);
    bool asked_to_stop = false;
    std::int64_t expiry_at_reply = 0, clock_at_reply = 0;
    scripted_model m;
    m.reply = [&](agentrt::model_call_context const& c) -> agentrt::model_result {
        auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (!c.stop.stop_requested() && std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        asked_to_stop = c.stop.stop_requested() && std::chrono::steady_clock::now() >= c.deadline;
        // A model that still holds on: the lease clock moves past the lease, and nothing renews it.
        w.clock.advance(std::chrono::milliseconds(100));
        std::this_thread::sleep_for(std::chrono::milliseconds(60));
        expiry_at_reply = agentrt::read_run(s, "run-1").value().run.lease.expiry_ms;
        clock_at_reply = w.clock();
        return agentrt::model_error{agentrt::model_failure::cut_off, "stopped at the deadline"};
    };
    agentrt::gate g(s, w.table, w.policy, options);
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    auto reply = session.call_model(m, small_request());
    REQUIRE_FALSE(reply);
    CHECK(reply.error().message.find("stopped at the deadline") != std::string::npos);
    CHECK(asked_to_stop);
    CHECK(expiry_at_reply < clock_at_reply);
    auto recorded = s.read([](agentrt::store_reader const& r) { return r.model_calls("run-1"); });
    REQUIRE(recorded.size() == 1);
    CHECK(recorded[0].status == "ambiguous");
}

TEST_CASE("an exception from the model that is not a std::exception reaches the caller") {
    struct unwinding {};
    world w;
    auto s = w.open();
    scripted_model m;
    m.reply = [](agentrt::model_call_context const&) -> agentrt::model_result { throw unwinding{}; };
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    CHECK_THROWS_AS((void)session.call_model(m, small_request()), unwinding);
}

TEST_CASE("a crash while a model call works waits for the model before it unwinds") {
    world w;
    auto primary = w.open();
    agentrt::testkit::simulated_machine machine(primary);
    auto process = machine.process();
    auto options = w.options();
    options.lease_duration = std::chrono::milliseconds(30);
    bool stopped = false;
    scripted_model m;
    m.reply = [&](agentrt::model_call_context const& c) -> agentrt::model_result {
        process.crash(); // the next lease renewal throws simulated_process_crashed
        auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (!c.stop.stop_requested() && std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        stopped = c.stop.stop_requested();
        return text("too late");
    };
    agentrt::gate g(process, w.table, w.policy, options);
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    CHECK_THROWS_AS((void)session.call_model(m, small_request()), agentrt::testkit::simulated_process_crashed);
    CHECK(stopped);
}
