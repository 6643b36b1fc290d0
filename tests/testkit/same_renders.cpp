// Render equivalence: an agent renders the same model request from the same recorded steps, across
// crashes and restarts.
#include "shop.hpp"

#include "support/recording_reporter.hpp"

#include <doctest/doctest.h>

#include <functional>

using namespace shop_test;

TEST_SUITE("testkit") {

    namespace {
    // Replies by step: a lookup, a send, then the end.
    struct step_model final : agentrt::model {
        agentrt::model_result complete(agentrt::model_request const&, agentrt::model_call_context const& c) override {
            agentrt::model_response reply;
            if (c.step_index == 0)
                reply.tool_calls.push_back({"call-0", "lookup_order", R"({"order_id":"ord-7"})"});
            else if (c.step_index == 1)
                reply.tool_calls.push_back({"call-1", "send_message", mail});
            else
                reply.text = "refund mailed";
            return reply;
        }
    };

    // Renders its request from the goal and the recorded steps; a careless one also from a counter
    // of its own, which a new process starts again.
    struct rendering_agent final : agentrt::agent {
        explicit rendering_agent(bool careless) : careless(careless) {}
        step_model model;
        bool careless;
        int turns = 0;
        agentrt::decision decide(agentrt::agent_view const& view) override {
            agentrt::model_request request;
            request.model = "scripted";
            request.system = "goal: " + view.run.goal;
            for (auto const& step : view.steps)
                request.messages.push_back(agentrt::model_message::user(step.tool + " -> " + step.observation));
            if (careless)
                request.messages.push_back(agentrt::model_message::user("turn " + std::to_string(++turns)));
            auto reply = view.call_model(model, request);
            if (!reply)
                throw agentrt::exception(reply.error());
            return agentrt::decision_from(*reply);
        }
    };

    std::function<scenario()> rendering_scenario(bool careless) {
        return [careless] {
            auto s = shop_scenario();
            s.agent = [careless] { return std::make_unique<rendering_agent>(careless); };
            return s;
        };
    }
    } // namespace

    TEST_CASE("render equivalence: an agent rendering from the recorded steps renders the same bytes") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        CHECK(same_renders(rendering_scenario(false), {{1, crash_point::after_effect_before_outcome}}));
        for (auto const& r : recorded.reports)
            FAIL_CHECK(r.message);
        auto r = run_scenario(rendering_scenario(false)(), {{1, crash_point::after_effect_before_outcome}});
        REQUIRE(r.renders.size() == 3);
        CHECK(r.renders[2].step == 2);
        CHECK(r.renders[2].process == 1); // after the resume and the approval of the lost send
        CHECK(r.renders[1].request.find(R"("system":"goal: mail the refund of order 7")") != std::string::npos);
    }

    TEST_CASE("render equivalence: a render that depends on the process is caught, naming the difference") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        CHECK(!same_renders(rendering_scenario(true), {{1, crash_point::after_effect_before_outcome}}));
        REQUIRE(recorded.reports.size() == 1);
        auto const& message = recorded.reports[0].message;
        CHECK(message.starts_with("same_renders: step 2 rendered differently in the run with crashes (process 1) "
                                  "than in the uncrashed run (process 0), from the same recorded steps"));
        CHECK(message.find("turn 1") != std::string::npos);
        CHECK(message.find("turn 3") != std::string::npos);
    }

    TEST_CASE("render equivalence: a crash after the last decision re-renders nothing, and fails") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        CHECK(!same_renders(rendering_scenario(false), {{2, crash_point::after_step_decided}}));
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].message ==
              "same_renders: no decision made after a resume was made from the same recorded steps as one of the "
              "uncrashed run, so nothing was compared: choose crashes the run resumes from");
    }

    TEST_CASE("render equivalence: an agent that renders nothing checked nothing, and fails") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        CHECK(!same_renders([] { return shop_scenario(); }, {{1, crash_point::after_step_started}}));
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].message ==
              "same_renders: the agent rendered no model request, so nothing was compared");
    }
}
