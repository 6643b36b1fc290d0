// rendered(): the request an agent makes for a step input, without a store or the agent's model.
#include <agentrt/testkit/renders.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include <agentrt/testkit/fake_model.hpp>
#include <agentrt/testkit/model_agent.hpp>

#include "runtime/fixture.hpp"
#include "support/recording_reporter.hpp"

#include <doctest/doctest.h>

#include <sstream>

using namespace agentrt::testkit;
using agentrt::decision;

namespace {

step_input after_one_lookup(std::string observation) {
    step_input in;
    in.run.id = "run-1";
    in.run.goal = "where is ord-1?";
    agentrt::step_record s;
    s.run_id = "run-1";
    s.status = agentrt::step_status::done;
    s.decision = decision::call("lookup_order", R"({"order_id":"ord-1"})").to_text();
    s.observation = std::move(observation);
    in.steps.push_back(s);
    in.step_index = 1;
    return in;
}

// Throws before it asks anything.
struct broken_agent final : agentrt::agent {
    decision decide(agentrt::agent_view const&) override { throw std::runtime_error("no prompt template"); }
};

} // namespace

TEST_SUITE("testkit") {

    TEST_CASE("rendered: the same input renders the same bytes, a different step different ones") {
        runtime_test::world w;
        fake_model never_called({});
        model_agent agent(never_called, w.table);
        auto const first = rendered(agent, after_one_lookup(R"({"status":"shipped"})"));
        CHECK(first.text.size() > 0);
        CHECK(first == rendered(agent, after_one_lookup(R"({"status":"shipped"})")));
        CHECK(first != rendered(agent, after_one_lookup(R"({"status":"lost"})")));
        CHECK(first.text == agentrt::canonical_request(first.request));
        CHECK(first.request.messages.size() == 3);
        CHECK(never_called.calls() == 0); // the agent's own model is never asked
    }

    TEST_CASE("rendered: from a run's recorded steps it gives the bytes the model received in that run") {
        runtime_test::world w;
        fake_model model({turn::call("lookup_order", R"({"order_id":"ord-1"})"), turn::text("shipped")});
        model_agent agent(model, w.table);
        auto s = w.open();
        agentrt::driver d(s, w.table, w.policy, agent, w.options());
        REQUIRE(d.start("where is ord-1?").value().status == agentrt::run_status::completed);
        auto details = agentrt::read_run(s, "run-1").value();
        for (std::uint64_t i = 0; i < 2; ++i) {
            CAPTURE(i);
            step_input in{details.run, {details.steps.begin(), details.steps.begin() + std::ptrdiff_t(i)}, i};
            CHECK(rendered(agent, in).text == model.requests()[i].text);
        }
        CHECK(model.calls() == 2);
    }

    TEST_CASE("rendered: an agent that makes no model call is reported, since there is nothing to compare") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        agentrt::testkit::scripted_agent scripted({decision::call("lookup_order", "{}"), decision::complete("done")});
        auto r = rendered(scripted, after_one_lookup("{}"));
        CHECK(r.text.empty());
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].message == "rendered: the agent made no model call deciding step 1 of run run-1, so "
                                             "there is no request to compare (a scripted_agent renders nothing)");
        CHECK(recorded.reports[0].file.ends_with("renders.cpp"));
    }

    TEST_CASE("rendered: an agent that throws before asking is reported with what it threw") {
        test_support::recording_reporter recorded;
        scoped_reporter installed(recorded);
        broken_agent broken;
        CHECK(rendered(broken, after_one_lookup("{}")).text.empty());
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].message ==
              "rendered: the agent threw before making a model call, deciding step 1 of run run-1: no prompt template");
    }

    TEST_CASE("rendered: a rendering prints as its canonical bytes, so a failed comparison shows them") {
        runtime_test::world w;
        fake_model never_called({});
        model_agent agent(never_called, w.table);
        auto const r = rendered(agent, after_one_lookup("{}"));
        std::ostringstream out;
        out << r;
        CHECK(out.str() == r.text);
        std::ostringstream nothing;
        nothing << rendered_request{};
        CHECK(nothing.str() == "(no model request)");
    }
}
