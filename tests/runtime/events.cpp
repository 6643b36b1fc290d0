#include <agentrt/runtime/events.hpp>

#include "fixture.hpp"

#include <boost/describe/enumerators.hpp>
#include <boost/mp11/algorithm.hpp>

#include <set>

using namespace runtime_test;

TEST_CASE("each event type has one stored name, and the name reads back as the type") {
    std::set<std::string_view> names;
    std::size_t types = 0;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<agentrt::event_type>>([&](auto d) {
        ++types;
        auto name = agentrt::to_string(d.value);
        CAPTURE(name);
        CHECK(names.insert(name).second);
        CHECK(agentrt::event_type_named(name) == d.value);
    });
    CHECK(types == 21);
    CHECK(agentrt::to_string(agentrt::event_type::step_tool_started) == "step.tool_started");
    CHECK(agentrt::to_string(agentrt::event_type::lease_taken_over) == "lease.taken_over");
    CHECK_FALSE(agentrt::event_type_named("step.forged"));
    CHECK_FALSE(agentrt::event_type_named("step_started"));
}

TEST_CASE("every event a run records is of a described event type") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("find order 1").value();
    REQUIRE(session.open_step().value());
    (void)session.propose(agentrt::decision::call("lookup_order", R"({"order_id": "ord-1"})")).value();
    (void)session.execute().value();
    REQUIRE(session.open_step().value());
    (void)session.propose(agentrt::decision::complete("done")).value();
    auto events = agentrt::read_events(s, "run-1").value();
    REQUIRE(events.size() > 8);
    for (auto const& e : events) {
        CAPTURE(e.type);
        auto type = agentrt::event_type_named(e.type);
        REQUIRE(type);
        CHECK(e.is(*type));
    }
    CHECK(events.back().is(agentrt::event_type::run_finished));
}
