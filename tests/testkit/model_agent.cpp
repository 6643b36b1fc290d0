// The model agent: a render of the recorded steps alone, and a call through the runtime's seam.
#include <agentrt/testkit/model_agent.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/testkit/fake_model.hpp>

#include "runtime/fixture.hpp"

#include <doctest/doctest.h>

using namespace agentrt::testkit;
using agentrt::decision;
using agentrt::step_status;

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
    s.observation = std::move(observation);
    s.error = std::move(error);
    return s;
}

std::string messages_of(agentrt::model_request const& r) {
    std::string out;
    for (auto const& m : r.messages)
        out += m.role + ": " + m.content + "\n";
    return out;
}

} // namespace

TEST_SUITE("testkit") {

    TEST_CASE(
        "model agent: renders the goal, then each earlier decision and what came of it, skipping undecided steps") {
        runtime_test::world w;
        fake_model model({});
        model_agent agent(model, w.table);
        std::vector<agentrt::step_record> steps{
            step(0, step_status::done, decision::call("lookup_order", R"({"order_id":"ord-1"})"),
                 R"({"order":"ord-1","status":"shipped"})"),
            step(1, step_status::failed, decision::call("wipe_account", "{}"), "", "the policy denied it"),
            step(2, step_status::interrupted, decision{}, ""),
        };
        steps[2].decision.clear(); // interrupted while deciding: nothing was decided
        steps[2].error = "the driver died while deciding";
        auto r = agent.render(goal("where is ord-1?"), steps);
        CHECK(messages_of(r) ==
              "user: where is ord-1?\n"
              R"(assistant: {"arguments":"{\"order_id\":\"ord-1\"}","ignored_calls":0,"kind":"tool_call",)"
              R"("summary":"","tool":"lookup_order"})"
              "\n"
              R"(tool: {"order":"ord-1","status":"shipped"})"
              "\n"
              R"(assistant: {"arguments":"{}","ignored_calls":0,"kind":"tool_call","summary":"",)"
              R"("tool":"wipe_account"})"
              "\n"
              "tool: step failed: the policy denied it\n");
        CHECK(r.model == "fake-model");
        CHECK(r.max_output_tokens == 1024);
        CHECK(r.tools == agentrt::render(w.table, agentrt::provider::anthropic));
        CHECK(r.tools.size() == 3);
    }

    TEST_CASE("model agent: what the store adds around the steps never enters the render") {
        runtime_test::world w;
        fake_model model({});
        model_agent agent(model, w.table);
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
        CHECK(agentrt::canonical_request(agent.render(run, steps)) == before);
        steps[0].observation = R"({"order":"ord-2"})";
        CHECK(agentrt::canonical_request(agent.render(run, steps)) != before);
    }

    TEST_CASE("model agent: the options name the model, the system text, the tool shape and the output cap") {
        runtime_test::world w;
        fake_model model({});
        model_agent agent(
            model, w.table,
            {.model = "small", .system = "Be brief.", .shape = agentrt::provider::openai, .max_output_tokens = 64});
        auto r = agent.render(goal("g"), {});
        CHECK(r.model == "small");
        CHECK(r.system == "Be brief.");
        CHECK(r.max_output_tokens == 64);
        CHECK(r.tools == agentrt::render(w.table, agentrt::provider::openai));
    }

    TEST_CASE("model agent: in a run, each request carries the recorded steps before it") {
        runtime_test::world w;
        fake_model model({turn::call("lookup_order", R"({"order_id":"ord-1"})"), turn::text("shipped")});
        model_agent agent(model, w.table);
        auto s = w.open();
        agentrt::driver d(s, w.table, w.policy, agent, w.options());
        CHECK(d.start("where is ord-1?").value().status == agentrt::run_status::completed);
        auto recorded = model.requests();
        REQUIRE(recorded.size() == 2);
        CHECK(recorded[0].request.messages.size() == 1);
        auto const stored = agentrt::read_run(s, "run-1").value().steps;
        REQUIRE(recorded[1].request.messages.size() == 3);
        CHECK(recorded[1].request.messages[1].content == stored[0].decision);
        CHECK(recorded[1].request.messages[2].content == stored[0].observation);
    }

    TEST_CASE("model agent: a view without call_model is refused with a message saying how to build one") {
        runtime_test::world w;
        fake_model model({turn::text("unused")});
        model_agent agent(model, w.table);
        auto run = goal("g");
        CHECK_THROWS_AS(agent.decide(agentrt::agent_view{run, {}, 0, {}}), std::logic_error);
        CHECK(model.calls() == 0);
    }
}
