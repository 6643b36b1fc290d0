// runs, show, events, pending, export, and what they print of text from models, tools and consumers.
#include "command.hpp"
#include <agentrt/testkit/scripted_agent.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

using namespace cli_test;

TEST_CASE("runs lists runs newest first") {
    world w;
    auto s = w.open();
    for (int i = 0; i < 3; ++i)
        run_to_completion(w, s, "goal " + std::to_string(i));
    auto o = on_store(w.store_path, {"runs"});
    SHOW(o);
    REQUIRE(o.status == 0);
    auto l = lines(o.out);
    REQUIRE(l.size() == 4);
    CHECK(l[0].starts_with("RUN    STATUS     REASON          STEPS  UPDATED"));
    CHECK(l[1].starts_with("run-3  completed  goal_completed  2      2023-11-14T22:13:20.000Z  goal 2"));
    CHECK(l[2].starts_with("run-2"));
    CHECK(l[3].starts_with("run-1"));
}

TEST_CASE("runs pages with --limit and --offset") {
    world w;
    auto s = w.open();
    for (int i = 0; i < 3; ++i)
        run_to_completion(w, s);
    auto o = on_store(w.store_path, {"runs", "--limit", "1", "--offset", "1"});
    SHOW(o);
    REQUIRE(o.status == 0);
    auto l = lines(o.out);
    REQUIRE(l.size() == 2);
    CHECK(l[1].starts_with("run-2 "));
    auto past = on_store(w.store_path, {"runs", "--offset", "5"});
    CHECK(past.out == "no runs at this offset\n");
}

TEST_CASE("runs with --json prints one run object per line") {
    world w;
    auto s = w.open();
    run_to_completion(w, s);
    start_waiting(w, s);
    auto o = on_store(w.store_path, {"--json", "runs"});
    SHOW(o);
    REQUIRE(o.status == 0);
    auto l = lines(o.out);
    REQUIRE(l.size() == 2);
    CHECK(boost::json::parse(l[0]).at("id") == "run-2");
    CHECK(boost::json::parse(l[0]).at("status") == "waiting_for_approval");
    CHECK(boost::json::parse(l[1]).at("id") == "run-1");
}

TEST_CASE("show prints the run, its steps with decision, verdict and outcome, and its pending approval with the hash") {
    world w;
    auto s = w.open();
    run_to_completion(w, s);
    auto id = start_waiting(w, s);
    auto hash = agentrt::pending_approvals(s).at(0).hash;
    auto done = on_store(w.store_path, {"show", "run-1"});
    SHOW(done);
    REQUIRE(done.status == 0);
    CHECK(done.out.find("status   completed") != std::string::npos);
    CHECK(done.out.find(R"(lookup_order {"order_id":"ord-1"}  allow)") != std::string::npos);
    CHECK(done.out.find(R"({"order":"ord-1","status":"shipped"})") != std::string::npos);
    CHECK(done.out.find("complete: shipped") != std::string::npos);
    auto waiting = on_store(w.store_path, {"show", id});
    SHOW(waiting);
    REQUIRE(waiting.status == 0);
    CHECK(waiting.out.find("awaiting_approval") != std::string::npos);
    CHECK(waiting.out.find("require_approval: a message leaves the company") != std::string::npos);
    CHECK(waiting.out.find("kind          external_message") != std::string::npos);
    CHECK(waiting.out.find("hash          " + hash) != std::string::npos);
    CHECK(waiting.out.find("decide with: agentrt approve run-2 --hash " + hash) != std::string::npos);
}

TEST_CASE("show of a run that does not exist fails with exit status 1") {
    world w;
    auto s = w.open();
    run_to_completion(w, s);
    auto o = on_store(w.store_path, {"show", "run-9"});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.err == "agentrt: no run run-9\n");
}

TEST_CASE("events prints the audit log as aligned text") {
    world w;
    auto s = w.open();
    auto id = run_to_completion(w, s);
    auto events = agentrt::read_events(s, id).value();
    auto o = on_store(w.store_path, {"events", id});
    SHOW(o);
    REQUIRE(o.status == 0);
    auto l = lines(o.out);
    REQUIRE(l.size() == events.size() + 1);
    CHECK(l[0].starts_with("SEQ  TIME                      TYPE                STEP  HASH          DATA"));
    CHECK(l[1].starts_with("0    2023-11-14T22:13:20.000Z  run.created         -     " + events[0].hash.substr(0, 12)));
    for (std::size_t i = 0; i < events.size(); ++i)
        CHECK(l[i + 1].find(events[i].type) != std::string::npos);
}

TEST_CASE("events with --json prints one event per line, as stored") {
    world w;
    auto s = w.open();
    auto id = run_to_completion(w, s);
    auto events = agentrt::read_events(s, id).value();
    auto o = on_store(w.store_path, {"events", id, "--json"});
    SHOW(o);
    REQUIRE(o.status == 0);
    auto l = lines(o.out);
    REQUIRE(l.size() == events.size());
    for (std::size_t i = 0; i < events.size(); ++i)
        CHECK(agentrt::event_from_json(boost::json::parse(l[i])).hash == events[i].hash);
}

TEST_CASE("pending lists every waiting approval across runs") {
    world w;
    auto s = w.open();
    start_waiting(w, s, "first");
    run_to_completion(w, s);
    start_waiting(w, s, "second");
    auto pending = agentrt::pending_approvals(s);
    REQUIRE(pending.size() == 2);
    auto o = on_store(w.store_path, {"pending"});
    SHOW(o);
    REQUIRE(o.status == 0);
    auto l = lines(o.out);
    REQUIRE(l.size() == 3);
    CHECK(l[1].starts_with("run-3  0     external_message  send_message  " + pending[0].hash));
    CHECK(l[2].starts_with("run-1  0     external_message  send_message  " + pending[1].hash));
    auto json = on_store(w.store_path, {"pending", "--json"});
    CHECK(lines(json.out).size() == 2);
    CHECK(boost::json::parse(lines(json.out)[0]).at("hash").as_string() == pending[0].hash);
}

TEST_CASE("export writes the run's events as JSON lines") {
    world w;
    auto s = w.open();
    auto id = run_to_completion(w, s);
    auto events = agentrt::read_events(s, id).value();
    auto o = on_store(w.store_path, {"export", id});
    SHOW(o);
    REQUIRE(o.status == 0);
    std::vector<agentrt::event_record> exported;
    for (auto const& line : lines(o.out))
        exported.push_back(agentrt::event_from_json(boost::json::parse(line)));
    REQUIRE(exported.size() == events.size());
    CHECK(agentrt::verify_events(exported, events.back().hash).ok());
}

TEST_CASE("text from models, tools and consumers is printed sanitised") {
    world w;
    auto s = w.open();
    std::string goal = "pay \x1b[2J\xE2\x80\xAEtnuocca\xE2\x80\x8B now";
    std::string subject = "hi\xE2\x80\xA8\xE2\x81\xA6" + std::string(300, 'x');
    auto id = start_waiting(w, s, goal, subject.substr(0, 200));
    for (auto const& args :
         std::vector<std::vector<std::string>>{{"runs"}, {"show", id}, {"pending"}, {"events", id}}) {
        auto o = on_store(w.store_path, args);
        SHOW(o);
        REQUIRE(o.status == 0);
        for (char const* raw : {"\x1b", "\xE2\x80\xAE", "\xE2\x80\x8B", "\xE2\x80\xA8", "\xE2\x81\xA6"})
            CHECK(o.out.find(raw) == std::string::npos);
    }
    auto runs = on_store(w.store_path, {"runs"});
    CHECK(runs.out.find(R"(pay \u001b[2J\u202etnuocca\u200b now)") != std::string::npos);
    auto show = on_store(w.store_path, {"show", id});
    CHECK(show.out.find(R"(hi\u2028\u2066xxx)") != std::string::npos);
    CHECK(show.out.find(" \xE2\x80\xA6 ") != std::string::npos); // the long subject, head and tail
}

TEST_CASE("--json output of show, verify, check, backup and prune is one JSON object per line") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto show = on_store(w.store_path, {"--json", "show", id});
    SHOW(show);
    REQUIRE(show.status == 0);
    auto shown = boost::json::parse(show.out);
    CHECK(shown.at("run").at("id").as_string() == id);
    CHECK(shown.at("steps").as_array().size() == 1);
    CHECK(shown.at("approvals").as_array().size() == 1);
    auto verify = on_store(w.store_path, {"--json", "verify"});
    CHECK(boost::json::parse(verify.out).at("ok") == true);
    auto check = on_store(w.store_path, {"--json", "check"});
    CHECK(boost::json::parse(check.out).at("runs_checked") == 1);
    auto backup = on_store(w.store_path, {"--json", "backup", (w.dir.path / "copy").string()});
    CHECK(boost::json::parse(backup.out).at("backup").as_string() == (w.dir.path / "copy").string());
    auto prune = on_store(w.store_path, {"--json", "prune", "--before", "2030-01-01", "--dry-run"});
    CHECK(boost::json::parse(prune.out).at("runs").as_array().empty());
}

TEST_CASE("show prints numbers by value, as canonical JSON spells them, never with Boost's exponent") {
    world w;
    auto s = w.open();
    w.decide = [](agentrt::tool_entry const& t, agentrt::arguments const&, agentrt::run_view const&) {
        if (t.name == "send_message")
            return agentrt::require_approval("spend", "over the limit", {{"max_amount", 120.0}, {"rate", 0.1}},
                                             {{"text", "pay 120.0"}});
        return agentrt::allow();
    };
    agentrt::testkit::scripted_agent agent(
        {agentrt::decision::call("send_message", send_with_subject("hi")), agentrt::decision::complete("sent")});
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    auto id = d.start("pay").value().id;
    auto capability = agentrt::pending_approvals(s).at(0).capability;
    REQUIRE(capability.at("max_amount").is_double());
    REQUIRE(boost::json::serialize(capability) == R"({"max_amount":1.2E2,"rate":1E-1})"); // what Boost writes
    auto o = on_store(w.store_path, {"show", id});
    SHOW(o);
    REQUIRE(o.status == 0);
    CHECK(o.out.find(R"(  capability    {"max_amount":120,"rate":0.1})") != std::string::npos);
    CHECK(o.out.find("E2") == std::string::npos);
    auto json = on_store(w.store_path, {"--json", "show", id});
    REQUIRE(json.status == 0);
    CHECK(boost::json::parse(json.out).at("approvals").at(0).at("capability").at("max_amount") == 120.0);
}
