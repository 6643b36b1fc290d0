// approve, reject and cancel: what is shown, how it is confirmed, and that only the shown request is decided.
#include "command.hpp"

#include <boost/json/parse.hpp>

using namespace cli_test;
using agentrt::approval_status;
using agentrt::run_status;

namespace {

agentrt::approval_record only_approval(agentrt::store const& s, std::string const& run) {
    auto approvals = agentrt::read_run(s, run).value().approvals;
    REQUIRE(approvals.size() == 1);
    return approvals[0];
}

agentrt::event_record last_event(agentrt::store const& s, std::string const& run, std::string const& type) {
    auto events = agentrt::read_events(s, run).value();
    for (auto it = events.rbegin(); it != events.rend(); ++it)
        if (it->type == type)
            return *it;
    FAIL("no " << type << " event in run " << run);
    return {};
}

} // namespace

TEST_CASE("approve without a terminal and without --yes or --hash decides nothing, with exit status 2") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto o = on_store(w.store_path, {"approve", id, "--by", "ana"}, {.input = "y\n"});
    SHOW(o);
    CHECK(o.status == 2);
    CHECK(o.err.find("nothing decided: no terminal to confirm on") != std::string::npos);
    CHECK(o.out.find("hash") != std::string::npos); // what would have been decided is still shown
    CHECK(only_approval(s, id).status == approval_status::pending);
}

TEST_CASE("approve prints the tool, every argument with its size, kind, reason, capability, presentation and hash") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto a = only_approval(s, id);
    auto o = on_store(w.store_path, {"approve", id, "--yes", "--by", "ana"});
    SHOW(o);
    REQUIRE(o.status == 0);
    CHECK(o.out.find("approval of step run-1/0 (request 0, pending)") != std::string::npos);
    CHECK(o.out.find("  tool          send_message (remote_mutation)") != std::string::npos);
    CHECK(o.out.find("  description   Send a message to one recipient.") != std::string::npos);
    CHECK(o.out.find("  arguments     4") != std::string::npos);
    CHECK(o.out.find(R"(    to          34 bytes  {"address":"a@b.c","kind":"email"})") != std::string::npos);
    CHECK(o.out.find("    cc          2 bytes  []") != std::string::npos);
    CHECK(o.out.find(R"(    subject     4 bytes  "hi")") != std::string::npos);
    CHECK(o.out.find("    counters    2 bytes  {}") != std::string::npos);
    CHECK(o.out.find("  kind          external_message") != std::string::npos);
    CHECK(o.out.find("  reason        a message leaves the company") != std::string::npos);
    CHECK(o.out.find(R"(  capability    {"may":"send"})") != std::string::npos);
    CHECK(o.out.find(R"(  presentation  {"text":"send a message to a@b.c"})") != std::string::npos);
    CHECK(o.out.find("  hash          " + a.hash) != std::string::npos);
    CHECK(o.out.find("approved step run-1/0 (hash " + a.hash + ") by ana") != std::string::npos);
}

TEST_CASE("approve --yes approves the printed approval, recording who and the note") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto o = on_store(w.store_path, {"approve", id, "--yes", "--by", "ana", "--note", "customer asked"});
    SHOW(o);
    REQUIRE(o.status == 0);
    auto a = only_approval(s, id);
    CHECK(a.status == approval_status::approved);
    CHECK(a.decided_by == "ana");
    auto decided = last_event(s, id, "approval.decided");
    CHECK(decided.data.at("by") == "ana");
    CHECK(decided.data.at("note") == "customer asked");
    CHECK(decided.data.at("hash").as_string() == a.hash);
}

TEST_CASE("approve --hash decides exactly the approval whose hash show printed") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto shown = on_store(w.store_path, {"show", id});
    auto hash = only_approval(s, id).hash;
    REQUIRE(shown.out.find("--hash " + hash) != std::string::npos);
    auto o = on_store(w.store_path, {"approve", id, "--hash", hash, "--by", "ana"});
    SHOW(o);
    REQUIRE(o.status == 0);
    CHECK(only_approval(s, id).status == approval_status::approved);
}

TEST_CASE("approve --hash is refused when the store changed between show and approve") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto shown_hash = only_approval(s, id).hash;
    auto shown = on_store(w.store_path, {"show", id});
    REQUIRE(shown.out.find(shown_hash) != std::string::npos);
    // Meanwhile the request changes: a newer approval of the same step asks for other arguments.
    std::string new_hash;
    s.write([&](agentrt::store_writer& wr) {
        auto old = wr.approvals(id).at(0);
        old.status = approval_status::expired;
        wr.put(old);
        auto changed = old;
        changed.seq = old.seq + 1;
        changed.status = approval_status::pending;
        changed.request["arguments"].as_object()["subject"] = "wire all the money";
        changed.hash = agentrt::approval_hash(changed);
        wr.put(changed);
        new_hash = changed.hash;
    });
    auto o = on_store(w.store_path, {"approve", id, "--hash", shown_hash, "--by", "ana"});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.err.find("no pending approval of run run-1 has hash " + shown_hash) != std::string::npos);
    CHECK(o.err.find("the pending one is " + new_hash) != std::string::npos);
    auto approvals = agentrt::read_run(s, id).value().approvals;
    CHECK(approvals.at(1).status == approval_status::pending);
    CHECK(agentrt::read_run(s, id).value().run.status == run_status::waiting_for_approval);
}

TEST_CASE("approve refuses an approval whose stored row was altered behind the runtime's back") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    s.write([&](agentrt::store_writer& wr) {
        auto a = wr.approvals(id).at(0);
        a.request["arguments"].as_object()["subject"] = "altered";
        wr.put(a); // the stored hash no longer matches
    });
    auto o = on_store(w.store_path, {"approve", id, "--yes", "--by", "ana"});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.err.find("was altered outside agentrt") != std::string::npos);
    CHECK(only_approval(s, id).status == approval_status::pending);
}

TEST_CASE("approve on a terminal asks for a typed y and approves") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto o = on_store(w.store_path, {"approve", id, "--by", "ana"}, {.input = "y\n", .terminal = true});
    SHOW(o);
    CHECK(o.status == 0);
    CHECK(o.out.find("Approve exactly this request? Type y and Enter to confirm:") != std::string::npos);
    CHECK(only_approval(s, id).status == approval_status::approved);
}

TEST_CASE("a request changed while the operator reads it is refused after the typed y") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto shown_hash = only_approval(s, id).hash;
    auto change_the_request = [&] {
        s.write([&](agentrt::store_writer& wr) {
            auto old = wr.approvals(id).at(0);
            old.status = approval_status::expired;
            wr.put(old);
            auto changed = old;
            changed.seq = old.seq + 1;
            changed.status = approval_status::pending;
            changed.request["arguments"].as_object()["subject"] = "wire all the money";
            changed.hash = agentrt::approval_hash(changed);
            wr.put(changed);
        });
    };
    auto o = on_store(w.store_path, {"approve", id, "--by", "ana"},
                      {.input = "y\n", .terminal = true, .wait_for = "Type y", .before_typing = change_the_request});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.out.find("hash          " + shown_hash) != std::string::npos);
    CHECK(o.out.find("is not the latest approval of step run-1/0") != std::string::npos);
    CHECK(o.out.find("nothing decided") != std::string::npos);
    auto approvals = agentrt::read_run(s, id).value().approvals;
    CHECK(approvals.at(0).status == approval_status::expired);
    CHECK(approvals.at(1).status == approval_status::pending);
}

TEST_CASE("approve on a terminal decides nothing unless y is typed, with exit status 2") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto o = on_store(w.store_path, {"approve", id, "--by", "ana"}, {.input = "n\n", .terminal = true});
    SHOW(o);
    CHECK(o.status == 2);
    CHECK(o.out.find("nothing decided") != std::string::npos);
    CHECK(only_approval(s, id).status == approval_status::pending);
}

TEST_CASE("approve with an empty --by is refused") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto o = on_store(w.store_path, {"approve", id, "--yes", "--by", ""});
    SHOW(o);
    CHECK(o.status == 2);
    CHECK(o.err.find("--by needs a name") != std::string::npos);
    CHECK(only_approval(s, id).status == approval_status::pending);
}

TEST_CASE("approve names the login name as who decided when --by is not given") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto o = on_store(w.store_path, {"approve", id, "--yes"});
    SHOW(o);
    REQUIRE(o.status == 0);
    CHECK_FALSE(only_approval(s, id).decided_by.empty());
}

TEST_CASE("approve of a run with nothing pending fails with exit status 1") {
    world w;
    auto s = w.open();
    auto id = run_to_completion(w, s);
    auto o = on_store(w.store_path, {"approve", id, "--yes", "--by", "ana"});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.err == "agentrt: run run-1 (completed) has no pending approval\n");
}

TEST_CASE("approve with --json prints the decided approval as JSON, and what was shown on stderr") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto o = on_store(w.store_path, {"--json", "approve", id, "--yes", "--by", "ana"});
    SHOW(o);
    REQUIRE(o.status == 0);
    auto decided = boost::json::parse(o.out);
    CHECK(decided.at("status") == "approved");
    CHECK(o.err.find("presentation") != std::string::npos);
}

TEST_CASE("reject --yes rejects the approval and the run fails approval_rejected") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto o = on_store(w.store_path, {"reject", id, "--yes", "--by", "ana", "--note", "not today"});
    SHOW(o);
    REQUIRE(o.status == 0);
    CHECK(o.out.find("rejected step run-1/0") != std::string::npos);
    auto run = agentrt::read_run(s, id).value().run;
    CHECK(run.status == run_status::failed);
    CHECK(run.reason == "approval_rejected");
    CHECK(last_event(s, id, "approval.decided").data.at("note") == "not today");
}

TEST_CASE("reject without a terminal and without --yes decides nothing") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto o = on_store(w.store_path, {"reject", id, "--by", "ana"});
    SHOW(o);
    CHECK(o.status == 2);
    CHECK(only_approval(s, id).status == approval_status::pending);
}

TEST_CASE("cancel ends a run that has not ended") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto o = on_store(w.store_path, {"cancel", id, "--by", "ana", "--reason", "wrong customer"});
    SHOW(o);
    REQUIRE(o.status == 0);
    CHECK(o.out == "cancelled run run-1 (wrong customer (ana))\n");
    auto run = agentrt::read_run(s, id).value().run;
    CHECK(run.status == run_status::cancelled);
    CHECK(run.reason == "operator_cancelled");
}

TEST_CASE("a cancelled run shows no approval to decide, and approve says why") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    REQUIRE(on_store(w.store_path, {"cancel", id, "--by", "ana"}).status == 0);
    auto show = on_store(w.store_path, {"show", id});
    SHOW(show);
    CHECK(show.out.find("pending approvals\n  none\n") != std::string::npos);
    auto o = on_store(w.store_path, {"approve", id, "--yes", "--by", "ana"});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.err == "agentrt: run run-1 (cancelled) has no pending approval\n");
}

TEST_CASE("cancel of a run that has ended fails with exit status 1") {
    world w;
    auto s = w.open();
    auto id = run_to_completion(w, s);
    auto o = on_store(w.store_path, {"cancel", id, "--by", "ana"});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.err == "agentrt: run run-1 is already completed\n");
}

TEST_CASE("approve --approval-ttl refuses an approval requested longer ago and changes nothing") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s); // requested at the world's clock, 2023-11-14: years before now
    // Nothing expires by time alone: the approval is still pending until someone tries to decide it.
    CHECK(only_approval(s, id).status == approval_status::pending);
    auto o = on_store(w.store_path, {"approve", id, "--yes", "--by", "ana", "--approval-ttl", "1h"});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.err.find("the approval of step run-1/0 expired before it was decided; reject it to end the run; "
                     "nothing decided") != std::string::npos);
    CHECK(only_approval(s, id).status == approval_status::pending);
    for (auto const& e : agentrt::read_events(s, id).value())
        CHECK_FALSE(e.is(agentrt::event_type::approval_expired));
    CHECK(agentrt::read_run(s, id).value().run.status == run_status::waiting_for_approval);
}

TEST_CASE("approve --approval-ttl longer than the approval's age approves it") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    auto o = on_store(w.store_path, {"approve", id, "--yes", "--by", "ana", "--approval-ttl", "3650d"});
    SHOW(o);
    CHECK(o.status == 0);
    CHECK(only_approval(s, id).status == approval_status::approved);
}

TEST_CASE("approve --approval-ttl wants a whole number and a unit") {
    world w;
    auto s = w.open();
    auto id = start_waiting(w, s);
    for (char const* bad : {"30", "1.5h", "h", "0s", "-1h", "2w", "36501d"}) {
        CAPTURE(bad);
        auto o = on_store(w.store_path, {"approve", id, "--yes", "--by", "ana", "--approval-ttl", bad});
        CHECK(o.status == 2);
        CHECK(o.err.find("--approval-ttl wants a duration") != std::string::npos);
    }
    CHECK(only_approval(s, id).status == approval_status::pending);
    auto reject = on_store(w.store_path, {"reject", id, "--yes", "--by", "ana", "--approval-ttl", "1h"});
    CHECK(reject.status == 2);
    CHECK(reject.err.find("unknown option --approval-ttl for agentrt reject") != std::string::npos);
}
