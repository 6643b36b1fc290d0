#include <agentrt/runtime/prune.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include "fixture.hpp"

#include <fstream>

using namespace runtime_test;
using agentrt::decision;

namespace {

std::string finish_a_run(world& w, agentrt::store& s) {
    agentrt::testkit::scripted_agent agent(
        {decision::call("lookup_order", lookup_args), decision::complete("shipped")});
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    return d.start("look up").value().id;
}

std::string leave_a_run_waiting(world& w, agentrt::store& s) {
    w.decide = [](agentrt::tool_entry const& t, auto const&, auto const&) {
        return t.name == "send_message" ? agentrt::require_approval("mail", "mail leaves") : agentrt::allow();
    };
    agentrt::testkit::scripted_agent agent({decision::call("send_message", send_args)});
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    auto id = d.start("send").value().id;
    w.decide = [](auto const&, auto const&, auto const&) { return agentrt::allow(); };
    return id;
}

} // namespace

TEST_CASE("prune removes finished runs last changed before the date, and keeps the rest") {
    world w;
    auto s = w.open();
    auto old_finished = finish_a_run(w, s);
    auto old_waiting = leave_a_run_waiting(w, s);
    auto cutoff = w.clock() + 1;
    w.clock.advance(std::chrono::hours(1));
    auto new_finished = finish_a_run(w, s);
    auto pruned = agentrt::prune(s, cutoff);
    REQUIRE(pruned);
    CHECK(pruned->runs == std::vector<std::string>{old_finished});
    CHECK_FALSE(agentrt::read_run(s, old_finished));
    CHECK(agentrt::read_events(s, old_finished).error().code == agentrt::errc::not_found);
    CHECK(agentrt::read_run(s, old_waiting));
    CHECK(agentrt::read_run(s, new_finished));
    CHECK(agentrt::list_runs(s).size() == 2);
}

TEST_CASE("after a prune every chain still verifies, the newest run pruned too") {
    world w;
    auto s = w.open();
    finish_a_run(w, s);
    auto kept = leave_a_run_waiting(w, s);
    finish_a_run(w, s);
    REQUIRE(agentrt::prune(s, w.clock() + 1));
    CHECK(agentrt::list_runs(s).size() == 1);
    auto report = agentrt::verify(s);
    CHECK_MESSAGE(report.ok(), report.first_break);
    CHECK(report.runs == 1);
    CHECK(agentrt::check_invariants(s).ok());
    (void)kept;
}

TEST_CASE("a run erased without prune's record is still reported deleted") {
    world w;
    auto s = w.open();
    finish_a_run(w, s);
    auto middle = finish_a_run(w, s);
    finish_a_run(w, s);
    s.write([&](agentrt::store_writer& wr) { CHECK(wr.erase_run(middle)); });
    auto report = agentrt::verify(s);
    CHECK(report.first_break.find("a run was deleted") != std::string::npos);
}

TEST_CASE("prune refuses a store that does not verify, so it cannot hide tampering") {
    world w;
    auto s = w.open();
    finish_a_run(w, s);
    auto middle = finish_a_run(w, s);
    auto last = finish_a_run(w, s);
    s.write([&](agentrt::store_writer& wr) { CHECK(wr.erase_run(middle)); }); // behind prune's back
    REQUIRE_FALSE(agentrt::verify(s).ok());
    // Pruning the run whose link shows the deletion would make the store verify again.
    for (bool dry : {true, false}) {
        CAPTURE(dry);
        auto pruned = agentrt::prune(s, w.clock() + 1, dry);
        REQUIRE_FALSE(pruned);
        CHECK(pruned.error().code == agentrt::errc::refused);
        CHECK(pruned.error().message.find("does not verify") != std::string::npos);
        CHECK(pruned.error().message.find("a run was deleted") != std::string::npos);
    }
    CHECK(agentrt::list_runs(s).size() == 2);
    CHECK(agentrt::read_run(s, last));
}

TEST_CASE("a session whose run ended and was pruned meanwhile gets a typed error, never an exception") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("look up").value();
    REQUIRE(session.open_step().value());
    REQUIRE(session.propose(decision::complete("shipped")));
    REQUIRE(session.run().status == agentrt::run_status::completed);
    w.clock.advance(std::chrono::hours(1));
    REQUIRE(agentrt::prune(s, w.clock()).value().runs == std::vector<std::string>{session.run_id()});

    auto next = session.open_step(); // the run is not running: no step, and no exception
    REQUIRE(next);
    CHECK_FALSE(*next);
    CHECK_THROWS_AS(session.run(), agentrt::exception);
    try {
        (void)session.run();
    } catch (agentrt::exception const& e) {
        CHECK(e.error().code == agentrt::errc::not_found);
        CHECK(e.error().message == "run " + session.run_id() + " is no longer in the store: it ended and was pruned");
    }
    CHECK(agentrt::verify(s).ok());
}

TEST_CASE("a dry prune changes nothing") {
    world w;
    auto s = w.open();
    auto id = finish_a_run(w, s);
    auto pruned = agentrt::prune(s, w.clock() + 1, true);
    REQUIRE(pruned);
    CHECK(pruned->runs == std::vector<std::string>{id});
    CHECK(agentrt::read_run(s, id));
}

TEST_CASE("backup writes a compact copy that opens as a store, owner-only, and refuses a used destination") {
    world w;
    auto s = w.open();
    auto id = finish_a_run(w, s);
    fs::path copy = w.dir.path / "copy";
    REQUIRE(s.backup(copy));
    CHECK((fs::status(copy).permissions() & fs::perms::all) == fs::perms::owner_all);
    CHECK((fs::status(copy / "data.mdb").permissions() & fs::perms::all) ==
          (fs::perms::owner_read | fs::perms::owner_write));
    auto again = s.backup(copy);
    REQUIRE_FALSE(again);
    CHECK(again.error().message.find("already holds a store") != std::string::npos);
    fs::create_directories(w.dir.path / "used");
    std::ofstream(w.dir.path / "used" / "note.txt") << "x";
    CHECK_FALSE(s.backup(w.dir.path / "used"));
    auto restored = agentrt::store::open(copy, {.access = agentrt::store_access::operator_only});
    REQUIRE(restored);
    CHECK(agentrt::read_run(*restored, id).value().run.status == agentrt::run_status::completed);
    CHECK(agentrt::verify(*restored).ok());
}

TEST_CASE("an operator's note is recorded in approval.decided") {
    world w;
    auto s = w.open();
    auto id = leave_a_run_waiting(w, s);
    auto a = agentrt::pending_approvals(s).at(0);
    agentrt::operator_options o;
    o.who = "ana";
    o.note = "checked with the customer";
    REQUIRE(agentrt::approve(s, id, a.step_index, a.hash, o));
    auto events = agentrt::read_events(s, id).value();
    CHECK(events.back().is(agentrt::event_type::approval_decided));
    CHECK(events.back().data.at("note").as_string() == "checked with the customer");
}

TEST_CASE("the invariant checker checks one run when asked, and reports its progress") {
    world w;
    auto s = w.open();
    auto first = finish_a_run(w, s);
    finish_a_run(w, s);
    std::vector<std::pair<std::size_t, std::size_t>> progress;
    agentrt::check_options options;
    options.progress = [&](std::size_t done, std::size_t total) { progress.emplace_back(done, total); };
    CHECK(agentrt::check_invariants(s, options).runs_checked == 2);
    CHECK(progress == std::vector<std::pair<std::size_t, std::size_t>>{{1, 2}, {2, 2}});
    options.run = first;
    CHECK(agentrt::check_invariants(s, options).runs_checked == 1);
    options.run = "nope";
    auto missing = agentrt::check_invariants(s, options);
    CHECK(missing.problems == std::vector<std::string>{"no run nope in the store"});
}
