#include <agentrt/runtime/operator.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include "engines/lmdb/keys.hpp"
#include "fixture.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

using namespace runtime_test;
using agentrt::decision;
using agentrt::run_status;
using agentrt::step_status;

namespace {

// Asks for an approval of every send_message call; allows everything else.
agentrt::verdict ask_for_send(agentrt::tool_entry const& t, agentrt::arguments const&, agentrt::run_view const&) {
    if (t.name == "send_message")
        return agentrt::require_approval("external_message", "a message leaves the company", {{"may", "send"}},
                                         {{"text", "send hi to a@b.c"}});
    return agentrt::allow();
}

// Starts run-1, whose first step waits on an approval of send_message.
agentrt::approval_record start_waiting(world& w, agentrt::store& s) {
    w.decide = ask_for_send;
    agentrt::testkit::scripted_agent agent({decision::call("send_message", send_args), decision::complete("sent")});
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    auto run = d.start("send hi").value();
    REQUIRE(run.status == run_status::waiting_for_approval);
    auto pending = agentrt::pending_approvals(s);
    REQUIRE(pending.size() == 1);
    return pending[0];
}

agentrt::operator_options by(std::string who, agentrt::clock_function clock = agentrt::system_clock_ms,
                             std::optional<std::chrono::milliseconds> ttl = {}) {
    agentrt::operator_options o;
    o.who = std::move(who);
    o.clock = std::move(clock);
    o.approval_ttl = ttl;
    return o;
}

} // namespace

TEST_CASE("a required approval pauses the run and releases the lease") {
    world w;
    auto s = w.open();
    auto a = start_waiting(w, s);
    auto details = agentrt::read_run(s, "run-1").value();
    CHECK(details.run.lease.owner.empty());
    CHECK(details.steps[0].status == step_status::awaiting_approval);
    CHECK(a.kind == "external_message");
    CHECK(a.hash == agentrt::approval_hash(a));
    CHECK(a.request.at("tool").at("name") == "send_message");
    CHECK(a.request.at("arguments").at("subject") == "hi");
    CHECK(w.calls.empty());
}

TEST_CASE("an approved request runs once on resume, and the policy is asked again") {
    world w;
    auto s = w.open();
    auto a = start_waiting(w, s);
    REQUIRE(agentrt::approve(s, a.run_id, a.step_index, a.hash, by("ana", w.clock)));
    int asked = 0;
    w.decide = [&](auto const& t, auto const& args, auto const& v) {
        ++asked;
        return ask_for_send(t, args, v);
    };
    agentrt::testkit::scripted_agent agent({decision::call("send_message", send_args), decision::complete("sent")});
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    auto run = d.resume("run-1").value();
    CHECK(asked == 1);
    CHECK(w.calls["send_message"] == 1);
    CHECK(run.status == run_status::completed);
    auto again = d.resume("run-1");
    REQUIRE_FALSE(again);
    CHECK(w.calls["send_message"] == 1);
    CHECK(agentrt::check_invariants(s).ok());
}

TEST_CASE("on resume a policy that now denies fails the step and runs nothing") {
    world w;
    auto s = w.open();
    auto a = start_waiting(w, s);
    REQUIRE(agentrt::approve(s, a.run_id, a.step_index, a.hash));
    w.decide = [](auto const&, auto const&, auto const&) { return agentrt::deny("changed my mind"); };
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.attach("run-1").value();
    CHECK_FALSE(session.pending_execution());
    auto step = agentrt::read_run(s, "run-1").value().steps[0];
    CHECK(step.status == step_status::failed);
    CHECK(session.run().status == run_status::running);
    CHECK(w.calls.empty());
}

TEST_CASE("on resume a policy asking for a different approval waits again") {
    world w;
    auto s = w.open();
    auto a = start_waiting(w, s);
    REQUIRE(agentrt::approve(s, a.run_id, a.step_index, a.hash));
    w.decide = [](auto const&, auto const&, auto const&) { return agentrt::require_approval("stricter", "new rule"); };
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.attach("run-1").value();
    CHECK_FALSE(session.pending_execution());
    CHECK(session.run().status == run_status::waiting_for_approval);
    auto pending = agentrt::pending_approvals(s);
    REQUIRE(pending.size() == 1);
    CHECK(pending[0].kind == "stricter");
    CHECK(pending[0].seq == 1);
    CHECK(w.calls.empty());
}

TEST_CASE("only the latest approval of a step grants") {
    world w;
    auto s = w.open();
    auto first = start_waiting(w, s);
    REQUIRE(agentrt::approve(s, first.run_id, first.step_index, first.hash));
    // The policy now asks for a different approval: the first grant no longer counts.
    w.decide = [](auto const&, auto const&, auto const&) { return agentrt::require_approval("stricter", "new rule"); };
    agentrt::gate g(s, w.table, w.policy, w.options());
    (void)g.attach("run-1").value();
    auto second = agentrt::pending_approvals(s).at(0);
    // The older, approved approval cannot be decided again nor grant.
    auto stale = agentrt::approve(s, "run-1", 0, first.hash);
    REQUIRE_FALSE(stale);
    CHECK(stale.error().message.find("is not the latest approval") != std::string::npos);
    auto waiting = g.attach("run-1");
    REQUIRE_FALSE(waiting);
    CHECK(waiting.error().message == "run run-1 waits for approval " + second.hash + " of step 0 (stricter)");
    CHECK(w.calls.empty());
}

TEST_CASE("a grant the policy refuses on resume is spent, and no longer makes its run ready") {
    world w;
    auto s = w.open();
    auto first = start_waiting(w, s);
    REQUIRE(agentrt::approve(s, first.run_id, first.step_index, first.hash));
    w.decide = [](auto const& t, auto const&, auto const&) {
        return t.name == "send_message" ? agentrt::deny("sending is off today") : agentrt::allow();
    };
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.attach("run-1").value();
    auto details = agentrt::read_run(s, "run-1").value();
    CHECK(details.steps.at(0).status == step_status::failed);
    CHECK(details.approvals.at(0).used);
    // The run waits again, on a new step: the spent grant of step 0 does not make it ready.
    w.decide = ask_for_send;
    (void)session.open_step().value();
    (void)session.propose(decision::call("send_message", send_args)).value();
    REQUIRE(session.run().status == run_status::waiting_for_approval);
    CHECK(agentrt::ready_runs(s, w.clock()).empty());
    CHECK(agentrt::check_invariants(s).ok());
    CHECK(w.calls.empty());
}

TEST_CASE("on resume, approved arguments that today's schema refuses fail the step and run nothing") {
    world w;
    auto s = w.open();
    auto waiting = start_waiting(w, s);
    REQUIRE(agentrt::approve(s, waiting.run_id, waiting.step_index, waiting.hash));
    // Today's send_message wants subjects of at least five characters; "hi" was approved.
    std::vector<agentrt::tool_entry> entries(w.table.entries().begin(), w.table.entries().end());
    for (auto& e : entries)
        if (e.name == "send_message")
            e.decode = [original =
                            e.decode](boost::json::value const& document) -> agentrt::result<agentrt::arguments> {
                auto const& subject = document.as_object().at("subject").as_string();
                if (subject.size() < 5)
                    return agentrt::error{agentrt::errc::invalid_arguments,
                                          "the arguments do not match the schema",
                                          {{"/subject", "minLength", "5, got " + std::to_string(subject.size())}}};
                return original(document);
            };
    agentrt::tool_table today(std::move(entries));
    agentrt::gate g(s, today, w.policy, w.options());
    auto session = g.attach("run-1").value();
    CHECK_FALSE(session.pending_execution());
    auto details = agentrt::read_run(s, "run-1").value();
    CHECK(details.run.status == run_status::running);
    CHECK(details.steps.at(0).status == step_status::failed);
    CHECK(details.steps.at(0).error.find("/subject: minLength 5, got 2") != std::string::npos);
    auto events = agentrt::read_events(s, "run-1").value();
    auto failed = std::find_if(events.begin(), events.end(),
                               [](auto const& e) { return e.is(agentrt::event_type::step_failed); });
    REQUIRE(failed != events.end());
    CHECK(failed->data.at("reason") == "invalid_decision");
    CHECK(w.calls.empty());
}

TEST_CASE("only an approval whose request the policy asks for again grants, not an older granted one") {
    world w;
    auto s = w.open();
    auto first = start_waiting(w, s);
    REQUIRE(agentrt::approve(s, first.run_id, first.step_index, first.hash));
    w.decide = [](auto const&, auto const&, auto const&) { return agentrt::require_approval("stricter", "new rule"); };
    agentrt::gate g(s, w.table, w.policy, w.options());
    (void)g.attach("run-1").value(); // asks for the stricter approval: the first grant is no longer the latest
    // The policy goes back to the first request: the older grant still does not grant, as it is not the latest.
    w.decide = ask_for_send;
    auto waiting = g.attach("run-1");
    REQUIRE_FALSE(waiting);
    CHECK(waiting.error().message.find("waits for approval") != std::string::npos);
    CHECK(w.calls.empty());
    CHECK(agentrt::read_run(s, "run-1").value().run.status == run_status::waiting_for_approval);
}

TEST_CASE("a tampered approval row is refused") {
    world w;
    std::string hash;
    {
        auto s = w.open();
        hash = start_waiting(w, s).hash;
    }
    {
        raw_lmdb raw(w.store_path);
        auto key = agentrt::keys::approval("run-1", 0, 0);
        auto row = boost::json::parse(raw.get("approvals", key)).as_object();
        row["presentation"] = boost::json::object{{"text", "something harmless"}};
        raw.put("approvals", key, boost::json::serialize(row));
        raw.commit();
    }
    auto s = w.open();
    auto decided = agentrt::approve(s, "run-1", 0, hash);
    REQUIRE_FALSE(decided);
    CHECK(decided.error().message ==
          "the stored approval of step run-1/0 no longer matches its hash: it was altered outside agentrt; refusing");
    CHECK(agentrt::pending_approvals(s).at(0).status == agentrt::approval_status::pending);
}

TEST_CASE("approving with a hash other than the one stored is refused") {
    world w;
    auto s = w.open();
    auto a = start_waiting(w, s);
    auto decided = agentrt::approve(s, a.run_id, a.step_index, std::string(64, '0'));
    REQUIRE_FALSE(decided);
    CHECK(decided.error().code == agentrt::errc::refused);
    CHECK(agentrt::pending_approvals(s).size() == 1);
}

TEST_CASE("rejecting with a hash other than the one stored is refused") {
    world w;
    auto s = w.open();
    auto a = start_waiting(w, s);
    auto decided = agentrt::reject(s, a.run_id, a.step_index, std::string(64, '0'));
    REQUIRE_FALSE(decided);
    CHECK(decided.error().code == agentrt::errc::refused);
    CHECK(agentrt::pending_approvals(s).size() == 1);
    CHECK(agentrt::read_run(s, "run-1").value().run.status == run_status::waiting_for_approval);
}

TEST_CASE("rejecting an approval fails the step and the run approval_rejected") {
    world w;
    auto s = w.open();
    auto a = start_waiting(w, s);
    REQUIRE(agentrt::reject(s, a.run_id, a.step_index, a.hash, by("ana")));
    auto details = agentrt::read_run(s, "run-1").value();
    CHECK(details.run.status == run_status::failed);
    CHECK(details.run.reason == "approval_rejected");
    CHECK(details.steps[0].status == step_status::failed);
    CHECK(details.approvals[0].decided_by == "ana");
    CHECK(w.calls.empty());
}

TEST_CASE("approving past the approval's TTL is refused and changes nothing") {
    world w;
    auto s = w.open();
    auto a = start_waiting(w, s);
    auto events_before = agentrt::read_events(s, "run-1").value().size();
    w.clock.advance(std::chrono::minutes(61));
    auto decided =
        agentrt::approve(s, a.run_id, a.step_index, a.hash, by("operator", w.clock, std::chrono::minutes(60)));
    REQUIRE_FALSE(decided);
    CHECK(decided.error().code == agentrt::errc::refused);
    CHECK(decided.error().message ==
          "the approval of step run-1/0 expired before it was decided; reject it to end the run");
    auto details = agentrt::read_run(s, "run-1").value();
    CHECK(details.approvals[0].status == agentrt::approval_status::pending);
    CHECK(details.run.status == agentrt::run_status::waiting_for_approval);
    CHECK(agentrt::read_events(s, "run-1").value().size() == events_before);
    auto rejected =
        agentrt::reject(s, a.run_id, a.step_index, a.hash, by("operator", w.clock, std::chrono::minutes(60)));
    REQUIRE(rejected);
    CHECK(agentrt::read_run(s, "run-1").value().run.status == agentrt::run_status::failed);
}

TEST_CASE("a grant unused past its TTL no longer grants") {
    world w;
    auto s = w.open();
    auto a = start_waiting(w, s);
    REQUIRE(agentrt::approve(s, a.run_id, a.step_index, a.hash, by("operator", w.clock)));
    w.clock.advance(std::chrono::hours(2));
    auto options = w.options();
    options.grant_ttl = std::chrono::hours(1);
    agentrt::gate g(s, w.table, w.policy, options);
    auto session = g.attach("run-1").value();
    CHECK_FALSE(session.pending_execution());
    CHECK(session.run().status == run_status::waiting_for_approval);
    auto details = agentrt::read_run(s, "run-1").value();
    CHECK(details.approvals[0].status == agentrt::approval_status::expired);
    CHECK(details.approvals[1].status == agentrt::approval_status::pending);
    CHECK(w.calls.empty());
}

TEST_CASE("a grant past its TTL whose policy now allows outright runs once, and the store holds its invariants") {
    world w;
    auto s = w.open();
    auto a = start_waiting(w, s);
    REQUIRE(agentrt::approve(s, a.run_id, a.step_index, a.hash, by("operator", w.clock)));
    w.clock.advance(std::chrono::hours(2));
    w.decide = [](auto const&, auto const&, auto const&) { return agentrt::allow(); };
    auto options = w.options();
    options.grant_ttl = std::chrono::hours(1);
    agentrt::gate g(s, w.table, w.policy, options);
    auto session = g.attach("run-1").value();
    REQUIRE(session.pending_execution() == std::optional<std::uint64_t>(0));
    CHECK(session.execute().value().status == step_status::done);
    CHECK(w.calls["send_message"] == 1);
    auto report = agentrt::check_invariants(s, {.allow_in_progress = true}); // the session holds the run
    CHECK(report.problems == std::vector<std::string>{});
}

TEST_CASE("an operator cancels a run without its lease") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    (void)session.open_step().value();
    auto run = agentrt::cancel(s, "run-1", "stop it", by("ana")).value();
    CHECK(run.status == run_status::cancelled);
    CHECK(run.reason == "operator_cancelled");
    CHECK(run.lease.owner.empty());
    CHECK_FALSE(session.propose(decision::call("lookup_order", lookup_args)));
    CHECK(agentrt::read_run(s, "run-1").value().steps[0].status == step_status::interrupted);
    CHECK_FALSE(agentrt::cancel(s, "run-1"));
}

TEST_CASE("the loser of a race between cancel and approve gets a typed error and changes nothing") {
    world w;
    auto s = w.open();
    auto shown = start_waiting(w, s);
    REQUIRE(agentrt::cancel(s, "run-1", "stop it", by("ana")));
    auto before = agentrt::read_events(s, "run-1").value().size();
    auto approved = agentrt::approve(s, shown.run_id, shown.step_index, shown.hash, by("bob"));
    REQUIRE_FALSE(approved);
    CHECK(approved.error().code == agentrt::errc::conflict);
    CHECK(agentrt::read_events(s, "run-1").value().size() == before);
    auto details = agentrt::read_run(s, "run-1").value();
    CHECK(details.run.status == run_status::cancelled);
    CHECK(details.approvals.at(0).decided_by != "bob");
    CHECK(w.calls.empty());
}

TEST_CASE("a tool still running when its run is cancelled gets its outcome appended late") {
    world w;
    auto s = w.open();
    agentrt::gate g(s, w.table, w.policy, w.options());
    auto session = g.begin("goal").value();
    w.replace["send_message"] = [&](auto const&, auto const&) -> agentrt::tool_result {
        REQUIRE(agentrt::cancel(s, "run-1"));
        return agentrt::tool_output{{{"sent", true}}, "sent"};
    };
    (void)session.open_step().value();
    (void)session.propose(decision::call("send_message", send_args)).value();
    auto step = session.execute().value();
    CHECK(step.status == step_status::interrupted);
    CHECK(step.late_observation == R"({"sent":true})");
    auto events = agentrt::read_events(s, "run-1").value();
    CHECK(events.back().is(agentrt::event_type::step_tool_finished));
    CHECK(events.back().data.at("late") == true);
    CHECK(session.run().status == run_status::cancelled);
}

TEST_CASE("active time excludes approval waits and ends the run past its limit") {
    world w;
    w.decide = ask_for_send;
    auto s = w.open();
    auto options = w.options();
    options.limits.max_active = std::chrono::seconds(10);
    agentrt::gate g(s, w.table, w.policy, options);
    {
        auto session = g.begin("goal").value();
        (void)session.open_step().value();
        w.clock.advance(std::chrono::seconds(5));
        (void)session.propose(decision::call("send_message", send_args)).value(); // waits
    }
    w.clock.advance(std::chrono::hours(1)); // the wait does not count
    auto a = agentrt::pending_approvals(s).at(0);
    REQUIRE(agentrt::approve(s, "run-1", 0, a.hash, by("ana", w.clock)));
    auto session = g.attach("run-1").value();
    (void)session.execute().value(); // also opens step 1
    CHECK(session.run().active_ms == 5'000);
    w.clock.advance(std::chrono::seconds(3));
    (void)session.propose(decision::call("lookup_order", lookup_args)).value();
    (void)session.execute().value(); // 8 s active: step 2 opens
    CHECK(session.run().active_ms == 8'000);
    w.clock.advance(std::chrono::seconds(3));
    (void)session.propose(decision::call("lookup_order", R"({"order_id":"ord-2"})")).value();
    (void)session.execute().value(); // 11 s active: the run ends before step 3
    auto run = session.run();
    CHECK(run.status == run_status::failed);
    CHECK(run.reason == "limit_active");
    CHECK(run.active_ms == 11'000);
}
