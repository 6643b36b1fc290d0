// The chat agent: the whole conversation rendered from the recorded steps alone.
#include <agentrt/runtime/chat_agent.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/testkit/fake_model.hpp>

#include "runtime/fixture.hpp"

#include <doctest/doctest.h>

using agentrt::decision;
using agentrt::step_status;
using agentrt::testkit::fake_model;
using agentrt::testkit::turn;

namespace {

agentrt::run_record goal(std::string text) {
    agentrt::run_record run;
    run.id = "run-1";
    run.goal = std::move(text);
    return run;
}

agentrt::step_record step(std::uint64_t index, step_status status, decision const& d, std::string observation,
                          std::string error = {}) {
    agentrt::step_record s;
    s.run_id = "run-1";
    s.index = index;
    s.status = status;
    s.decision = d.to_text();
    s.kind = d.kind;
    s.tool = d.tool;
    s.arguments = d.arguments;
    s.observation = std::move(observation);
    s.error = std::move(error);
    return s;
}

struct block_line {
    std::string operator()(agentrt::text_block const& b) const { return "text " + b.text; }
    std::string operator()(agentrt::model_tool_call const& b) const {
        return "call " + b.id + " " + b.name + " " + b.arguments;
    }
    std::string operator()(agentrt::tool_result_block const& b) const {
        return std::string(b.is_error ? "error " : "result ") + b.call_id + " " + b.content;
    }
};

std::string conversation(agentrt::model_request const& r) {
    std::string out;
    for (auto const& m : r.messages) {
        out += m.role == agentrt::message_role::user ? "user:" : "assistant:";
        for (auto const& b : m.content)
            out += " [" + std::visit(block_line{}, b) + "]";
        out += "\n";
    }
    return out;
}

} // namespace

TEST_SUITE("runtime") {

    TEST_CASE("chat agent: renders the goal, each decided call with its step's id, and what came of it as the "
              "call's result") {
        runtime_test::world w;
        fake_model model({});
        agentrt::chat_agent agent(model, w.table);
        std::vector<agentrt::step_record> steps{
            step(0, step_status::done, decision::call("lookup_order", R"({"order_id":"ord-1"})"),
                 R"({"order":"ord-1","status":"shipped"})"),
            step(1, step_status::failed, decision::call("wipe_account", "{}"), "", "the policy denied it"),
            step(2, step_status::interrupted, decision{}, ""),
        };
        steps[2].decision.clear(); // interrupted while deciding: nothing was decided
        steps[2].kind.reset();
        steps[2].error = "the driver died while deciding";
        auto r = agent.render(goal("where is ord-1?"), steps);
        CHECK(conversation(r) == "user: [text where is ord-1?]\n"
                                 R"(assistant: [call step_0 lookup_order {"order_id":"ord-1"}])"
                                 "\n"
                                 R"(user: [result step_0 {"order":"ord-1","status":"shipped"}])"
                                 "\n"
                                 "assistant: [call step_1 wipe_account {}]\n"
                                 "user: [error step_1 step failed: the policy denied it]\n");
        CHECK(r.model == "fake-model");
        CHECK(r.max_output_tokens == 1024);
        CHECK(r.tools == agentrt::render(w.table, agentrt::provider::neutral));
        CHECK(r.tools.size() == 3);
    }

    TEST_CASE("chat agent: the further calls of a reply are shown to the model as not run") {
        runtime_test::world w;
        fake_model model({});
        agentrt::chat_agent agent(model, w.table);
        auto d = decision::call("lookup_order", R"({"order_id":"ord-1"})",
                                {{"lookup_order", R"({"order_id":"ord-2"})"}, {"wipe_account", "{}"}});
        auto r = agent.render(goal("g"), std::vector{step(0, step_status::done, d, "{}")});
        CHECK(
            conversation(r) ==
            "user: [text g]\n"
            R"(assistant: [call step_0 lookup_order {"order_id":"ord-1"}] [call step_0_1 lookup_order {"order_id":"ord-2"}] [call step_0_2 wipe_account {}])"
            "\n"
            "user: [result step_0 {}] [error step_0_1 not run: only the first tool call of a reply runs; ask "
            "again for this one] [error step_0_2 not run: only the first tool call of a reply runs; ask again "
            "for this one]\n");
    }

    TEST_CASE("chat agent: the text the model sent with a call comes before the call") {
        runtime_test::world w;
        fake_model model({});
        agentrt::chat_agent agent(model, w.table);
        auto d = decision::call("lookup_order", "{}");
        d.summary = "Let me look that up.";
        auto r = agent.render(goal("g"), std::vector{step(0, step_status::done, d, "{}")});
        CHECK(conversation(r) == "user: [text g]\n"
                                 "assistant: [text Let me look that up.] [call step_0 lookup_order {}]\n"
                                 "user: [result step_0 {}]\n");
    }

    TEST_CASE("chat agent: what the store adds around the steps never enters the render") {
        runtime_test::world w;
        fake_model model({});
        agentrt::chat_agent agent(model, w.table);
        std::vector<agentrt::step_record> steps{step(0, step_status::done, decision::call("lookup_order", "{}"), "{}")};
        auto const before = agentrt::canonical_request(agent.render(goal("g"), steps));
        auto run = goal("g");
        run.id = "run-2";
        run.created_ms = 42;
        run.model_calls = 7;
        run.head = "abc";
        steps[0].started_ms = 1000;
        steps[0].finished_ms = 2000;
        steps[0].run_id = "run-2";
        steps[0].attempt = 3;
        CHECK(agentrt::canonical_request(agent.render(run, steps)) == before);
        steps[0].observation = R"({"order":"ord-2"})";
        CHECK(agentrt::canonical_request(agent.render(run, steps)) != before);
    }

    TEST_CASE("chat agent: a step recorded before ignored calls were kept renders as it always did") {
        runtime_test::world w;
        fake_model model({});
        agentrt::chat_agent agent(model, w.table);
        auto s = step(0, step_status::done, decision::call("lookup_order", "{}"), "{}");
        s.decision = R"({"arguments":"{}","ignored_calls":1,"kind":"tool_call","summary":"","tool":"lookup_order"})";
        CHECK(conversation(agent.render(goal("g"), std::vector{s})) == "user: [text g]\n"
                                                                       "assistant: [call step_0 lookup_order {}]\n"
                                                                       "user: [result step_0 {}]\n");
    }

    TEST_CASE("chat agent: the options name the model, the system text and the output cap") {
        runtime_test::world w;
        fake_model model({});
        agentrt::chat_agent agent(model, w.table, {.model = "small", .system = "Be brief.", .max_output_tokens = 64});
        auto r = agent.render(goal("g"), {});
        CHECK(r.model == "small");
        CHECK(r.system == "Be brief.");
        CHECK(r.max_output_tokens == 64);
    }

    TEST_CASE("chat agent: in a run, each request carries the recorded steps before it") {
        runtime_test::world w;
        fake_model model({turn::call("lookup_order", R"({"order_id":"ord-1"})"), turn::text("shipped")});
        agentrt::chat_agent agent(model, w.table);
        auto s = w.open();
        agentrt::driver d(s, w.table, w.policy, agent, w.options());
        CHECK(d.start("where is ord-1?").value().status == agentrt::run_status::completed);
        auto recorded = model.requests();
        REQUIRE(recorded.size() == 2);
        CHECK(recorded[0].request.messages.size() == 1);
        auto const stored = agentrt::read_run(s, "run-1").value().steps;
        CHECK(conversation(recorded[1].request) == "user: [text where is ord-1?]\n"
                                                   "assistant: [call step_0 lookup_order " +
                                                       stored[0].arguments + "]\nuser: [result step_0 " +
                                                       stored[0].observation + "]\n");
        CHECK(agent.render(agentrt::read_run(s, "run-1").value().run, std::span(stored).first(1)).messages.size() == 3);
    }

    TEST_CASE("chat agent: a view without call_model is refused with a message saying how to build one") {
        runtime_test::world w;
        fake_model model({turn::text("unused")});
        agentrt::chat_agent agent(model, w.table);
        auto run = goal("g");
        CHECK_THROWS_WITH_AS(agent.decide(agentrt::agent_view{run, {}, 0, {}}), doctest::Contains("has no call_model"),
                             std::logic_error);
        CHECK(model.calls() == 0);
    }
}
