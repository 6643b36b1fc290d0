#include <agentrt/runtime/reads.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include "fixture.hpp"

using namespace runtime_test;
using agentrt::decision;

TEST_CASE("runs are listed newest first, a page at a time") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    for (int i = 0; i < 5; ++i)
        (void)g.begin("goal " + std::to_string(i)).value();
    auto ids = [](std::vector<agentrt::run_record> const& runs) {
        std::vector<std::string> out;
        for (auto const& r : runs)
            out.push_back(r.id);
        return out;
    };
    auto first = agentrt::list_runs(s, {}, 2);
    CHECK(ids(first) == std::vector<std::string>{"run-5", "run-4"});
    auto second = agentrt::list_runs(s, first.back().id, 2);
    CHECK(ids(second) == std::vector<std::string>{"run-3", "run-2"});
    CHECK(ids(agentrt::list_runs(s, "run-1", 2)).empty());
}

TEST_CASE("a run is read with its steps and approvals, and a missing run is named") {
    world w;
    auto s = w.open();
    agentrt::testkit::scripted_agent agent({decision::call("lookup_order", lookup_args), decision::complete("ok")});
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    (void)d.start("goal").value();
    auto details = agentrt::read_run(s, "run-1").value();
    CHECK(details.steps.size() == 2);
    CHECK(details.approvals.empty());
    auto missing = agentrt::read_run(s, "nope");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message == "no run nope");
}

TEST_CASE("text is capped for display with the original length stated") {
    CHECK(agentrt::capped("short", 10) == "short");
    CHECK(agentrt::capped("0123456789abc", 4) == "0123 \xE2\x80\xA6 (13 bytes)");
    // Never cuts inside a UTF-8 sequence: "é" is two bytes.
    CHECK(agentrt::capped("a\xC3\xA9z", 2) == "a \xE2\x80\xA6 (4 bytes)");
    // What a model wrote reaches a terminal escaped, cut or not.
    CHECK(agentrt::capped("ok\x1b[2Jgone", 100) == "ok\\u001b[2Jgone");
    CHECK(agentrt::capped("line\nnext\xE2\x80\xAE"
                          "cba",
                          100) == "line\\nnext\\u202ecba");
    CHECK(agentrt::capped("\x1b]0;title\x07 and more", 8) == "\\u001b]0;titl \xE2\x80\xA6 (19 bytes)");
}

TEST_CASE("paging runs by creation order goes on past a run removed meanwhile") {
    world w;
    auto s = w.open();
    s.write([](agentrt::store_writer& wr) {
        for (char const* id : {"run-a", "run-b", "run-c"}) {
            agentrt::run_record run;
            run.id = id;
            wr.append(run, agentrt::event_type::run_created, {}, 1);
            wr.put(run);
        }
    });
    auto first = agentrt::list_runs_before(s, 0, 1);
    REQUIRE(first.size() == 1);
    CHECK(first[0].id == "run-c");
    auto b = agentrt::read_run(s, "run-b").value().run;
    s.write([](agentrt::store_writer& wr) { wr.erase_run("run-b"); });
    CHECK(agentrt::list_runs(s, "run-b", 10).empty()); // by id, a removed run ends the paging
    auto next = agentrt::list_runs_before(s, b.order, 10);
    REQUIRE(next.size() == 1);
    CHECK(next[0].id == "run-a");
}
