// verify, check, backup and prune: the health and upkeep of a store.
#include "command.hpp"
#include "engines/lmdb/keys.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <fstream>
#include <sys/stat.h>

using namespace cli_test;
using agentrt::run_status;
using agentrt::step_status;

namespace {

// Records no runtime would write: a run that ended without a reason, whose step started its tool
// twice without a grant and is left executing.
void write_contradictory_run(agentrt::store& s, std::string const& id) {
    s.write([&](agentrt::store_writer& wr) {
        agentrt::run_record run;
        run.id = id;
        run.goal = "forged";
        run.status = run_status::completed;
        run.created_ms = run.updated_ms = 1'700'000'000'000;
        wr.put(run);
        wr.append(run, agentrt::event_type::run_created, {{"goal", "forged"}}, run.created_ms);
        agentrt::step_record step;
        step.run_id = id;
        step.status = step_status::executing;
        step.tool = "send_message";
        wr.put(step);
        wr.append(run, agentrt::event_type::step_tool_started, {{"step", 0}, {"attempt", 1}}, run.created_ms);
        wr.append(run, agentrt::event_type::step_tool_started, {{"step", 0}, {"attempt", 2}}, run.created_ms);
        wr.put(run);
    });
}

// Changes an event's data in place, behind the runtime's back (the store must be closed).
void alter_event(fs::path const& store, std::string const& run, std::uint64_t seq) {
    raw_lmdb raw(store);
    auto key = agentrt::keys::event(run, seq);
    auto event = boost::json::parse(raw.get("events", key));
    event.as_object()["data"].as_object()["forged"] = true;
    raw.put("events", key, boost::json::serialize(event));
    raw.commit();
}

unsigned mode_of(fs::path const& p) {
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return st.st_mode & 0777;
}

} // namespace

TEST_CASE("verify walks every chain of a sound store") {
    world w;
    auto s = w.open();
    run_to_completion(w, s);
    start_waiting(w, s);
    auto report = agentrt::verify(s);
    auto o = on_store(w.store_path, {"verify"});
    SHOW(o);
    CHECK(o.status == 0);
    CHECK(o.out == "ok: 2 runs, " + std::to_string(report.events) + " events; every chain holds\n");
}

TEST_CASE("verify names the first altered event, with exit status 1") {
    world w;
    std::string type;
    {
        auto s = w.open();
        run_to_completion(w, s);
        run_to_completion(w, s);
        type = agentrt::read_events(s, "run-1").value().at(2).type;
    }
    alter_event(w.store_path, "run-1", 2);
    auto o = on_store(w.store_path, {"verify"});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.out == "broken: run run-1 event 2 (" + type + ") was altered: its content no longer matches its hash\n");
}

TEST_CASE("verify names a deleted run") {
    world w;
    auto s = w.open();
    run_to_completion(w, s);
    run_to_completion(w, s);
    run_to_completion(w, s);
    s.write([](agentrt::store_writer& wr) { wr.erase_run("run-2"); }); // not recorded, as a prune would
    auto o = on_store(w.store_path, {"verify"});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.out.find("the run created before run run-3 is missing") != std::string::npos);
    CHECK(o.out.find("a run was deleted") != std::string::npos);
}

TEST_CASE("verify RUN checks the events from --from to --to") {
    world w;
    std::size_t count = 0;
    {
        auto s = w.open();
        run_to_completion(w, s);
        count = agentrt::read_events(s, "run-1").value().size();
    }
    REQUIRE(count > 4);
    auto whole = on_store(w.store_path, {"verify", "run-1"});
    SHOW(whole);
    CHECK(whole.status == 0);
    CHECK(whole.out == "ok: run run-1 events 0 to " + std::to_string(count - 1) + " chain\n");
    alter_event(w.store_path, "run-1", 3);
    auto before = on_store(w.store_path, {"verify", "run-1", "--from", "0", "--to", "2"});
    CHECK(before.status == 0);
    auto after = on_store(w.store_path, {"verify", "run-1", "--from", "1"});
    SHOW(after);
    CHECK(after.status == 1);
    CHECK(after.out.find("broken: run run-1 event 3") != std::string::npos);
    auto beyond = on_store(w.store_path, {"verify", "run-1", "--to", "99"});
    CHECK(beyond.status == 1);
    CHECK(beyond.out.find("event 99 is missing") != std::string::npos);
}

TEST_CASE("verify RUN --head checks a head kept elsewhere") {
    world w;
    auto s = w.open();
    auto id = run_to_completion(w, s);
    auto events = agentrt::read_events(s, id).value();
    std::string head = "3:" + events[3].hash;
    auto kept = on_store(w.store_path, {"verify", id, "--head", head});
    SHOW(kept);
    CHECK(kept.status == 0);
    CHECK(kept.out.find("and the head given matches") != std::string::npos);
    auto rewritten = on_store(w.store_path, {"verify", id, "--head", "3:" + events[2].hash});
    SHOW(rewritten);
    CHECK(rewritten.status == 1);
    CHECK(rewritten.out.find("not the head kept elsewhere") != std::string::npos);
    CHECK(rewritten.out.find("the log was rewritten") != std::string::npos);
    auto missing = on_store(w.store_path, {"verify", id, "--head", "99:" + events[2].hash});
    CHECK(missing.status == 1);
    CHECK(missing.out.find("events were deleted") != std::string::npos);
    auto malformed = on_store(w.store_path, {"verify", id, "--head", "three"});
    CHECK(malformed.status == 2);
    CHECK(malformed.err.find("--head wants SEQ:HASH") != std::string::npos);
}

TEST_CASE("verify --events checks an export on its own") {
    world w;
    auto s = w.open();
    auto id = run_to_completion(w, s);
    auto exported = on_store(w.store_path, {"export", id});
    REQUIRE(exported.status == 0);
    fs::path file = w.dir.path / "run.jsonl";
    std::ofstream(file) << exported.out;
    auto o = run_command({"verify", "--events", file.string()});
    SHOW(o);
    CHECK(o.status == 0);
    auto events = agentrt::read_events(s, id).value();
    CHECK(o.out == "ok: " + std::to_string(events.size()) + " exported events of run run-1 chain\n");
    auto head = run_command({"verify", "--events", file.string(), "--head", "1:" + events[0].hash});
    CHECK(head.status == 1);
    auto l = lines(exported.out);
    auto altered = boost::json::parse(l[1]);
    altered.as_object()["type"] = "run.forged";
    l[1] = boost::json::serialize(altered);
    std::ofstream out(file);
    for (auto const& line : l)
        out << line << '\n';
    out.close();
    auto broken = run_command({"verify", "--events", file.string()});
    SHOW(broken);
    CHECK(broken.status == 1);
    CHECK(broken.out.find("event 1") != std::string::npos);
}

TEST_CASE("check passes on a store of real runs") {
    world w;
    auto s = w.open();
    run_to_completion(w, s);
    start_waiting(w, s);
    auto o = on_store(w.store_path, {"check"});
    SHOW(o);
    CHECK(o.status == 0);
    CHECK(o.out == "ok: 2 runs checked, no violation\n");
}

TEST_CASE("check prints each violation of contradictory records, with exit status 1") {
    world w;
    auto s = w.open();
    run_to_completion(w, s);
    write_contradictory_run(s, "forged-1");
    auto o = on_store(w.store_path, {"check"});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.out.find("violation: step forged-1/0 started its tool again (start 2) without an approval\n") !=
          std::string::npos);
    CHECK(o.out.find("violation: step forged-1/0 is left executing\n") != std::string::npos);
    CHECK(o.out.find("violation: run forged-1 ended without a reason\n") != std::string::npos);
    CHECK(o.out.find("in 2 runs checked") != std::string::npos);
}

TEST_CASE("check RUN checks only that run") {
    world w;
    auto s = w.open();
    auto id = run_to_completion(w, s);
    write_contradictory_run(s, "forged-1");
    auto sound = on_store(w.store_path, {"check", id});
    SHOW(sound);
    CHECK(sound.status == 0);
    CHECK(sound.out == "ok: 1 runs checked, no violation\n");
    auto bad = on_store(w.store_path, {"check", "forged-1"});
    CHECK(bad.status == 1);
    auto missing = on_store(w.store_path, {"check", "nope"});
    CHECK(missing.status == 1);
    CHECK(missing.out.find("no run nope in the store") != std::string::npos);
}

TEST_CASE("check --in-progress accepts a step still executing under a held lease") {
    world w;
    auto s = w.open();
    s.write([](agentrt::store_writer& wr) {
        agentrt::run_record run;
        run.id = "live-1";
        run.lease.owner = "host/1/token";
        run.lease.expiry_ms = 1'800'000'000'000;
        wr.put(run);
        wr.append(run, agentrt::event_type::run_created, {{"goal", "live"}}, 1'700'000'000'000);
        agentrt::step_record step;
        step.run_id = "live-1";
        step.status = step_status::executing;
        wr.put(step);
        wr.append(run, agentrt::event_type::step_tool_started, {{"step", 0}, {"attempt", 1}}, 1'700'000'000'000);
        wr.put(run);
    });
    auto offline = on_store(w.store_path, {"check"});
    SHOW(offline);
    CHECK(offline.status == 1);
    CHECK(offline.out.find("violation: step live-1/0 is left executing") != std::string::npos);
    auto live = on_store(w.store_path, {"check", "--in-progress"});
    SHOW(live);
    CHECK(live.status == 0);
}

TEST_CASE("check shows its progress on stderr") {
    world w;
    auto s = w.open();
    run_to_completion(w, s);
    run_to_completion(w, s);
    auto o = on_store(w.store_path, {"check", "--progress"});
    SHOW(o);
    CHECK(o.status == 0);
    CHECK(o.err == "checked 1 of 2 runs\nchecked 2 of 2 runs\n");
}

TEST_CASE("backup writes a compact copy that opens, verifies and holds the same runs, owner-only") {
    world w;
    auto s = w.open();
    run_to_completion(w, s);
    start_waiting(w, s);
    fs::path copy = w.dir.path / "copy";
    auto o = on_store(w.store_path, {"backup", copy.string()});
    SHOW(o);
    REQUIRE(o.status == 0);
    CHECK(mode_of(copy) == 0700);
    CHECK(mode_of(copy / "data.mdb") == 0600);
    auto runs = on_store(copy, {"runs"});
    CHECK(runs.out == on_store(w.store_path, {"runs"}).out);
    CHECK(on_store(copy, {"verify"}).status == 0);
    auto again = on_store(w.store_path, {"backup", copy.string()});
    CHECK(again.status == 1);
    CHECK(again.err.find("already holds a store") != std::string::npos);
}

TEST_CASE("prune removes finished runs older than the date, and the store still verifies") {
    world w;
    auto s = w.open();
    run_to_completion(w, s);            // run-1, 2023-11-14
    auto waiting = start_waiting(w, s); // run-2, 2023-11-14, still waiting
    w.clock.advance(std::chrono::hours(24 * 10));
    run_to_completion(w, s); // run-3, 2023-11-24
    auto dry = on_store(w.store_path, {"prune", "--before", "2023-11-20", "--dry-run"});
    SHOW(dry);
    CHECK(dry.status == 0);
    CHECK(dry.out == "would prune run-1\nwould prune 1 run(s) that ended before 2023-11-20T00:00:00.000Z\n");
    CHECK(agentrt::read_run(s, "run-1"));
    auto o = on_store(w.store_path, {"prune", "--before", "2023-11-20"});
    SHOW(o);
    CHECK(o.status == 0);
    CHECK(o.out == "pruned run-1\npruned 1 run(s) that ended before 2023-11-20T00:00:00.000Z\n");
    CHECK_FALSE(agentrt::read_run(s, "run-1"));
    CHECK(agentrt::read_run(s, waiting));
    auto verified = on_store(w.store_path, {"verify"});
    SHOW(verified);
    CHECK(verified.status == 0);
    CHECK(verified.out.starts_with("ok: 2 runs"));
    auto newest = on_store(w.store_path, {"prune", "--before", "2030-01-01T00:00:00Z"});
    CHECK(newest.out.find("pruned run-3") != std::string::npos);
    CHECK(on_store(w.store_path, {"verify"}).status == 0);
    CHECK(on_store(w.store_path, {"check"}).status == 0);
}

TEST_CASE("prune needs a valid UTC date") {
    world w;
    auto s = w.open();
    run_to_completion(w, s);
    auto none = on_store(w.store_path, {"prune"});
    CHECK(none.status == 2);
    auto bad = on_store(w.store_path, {"prune", "--before", "2023-02-30"});
    SHOW(bad);
    CHECK(bad.status == 2);
    CHECK(bad.err.find("--before wants a UTC date like 2026-01-31") != std::string::npos);
    CHECK(agentrt::read_run(s, "run-1"));
}

TEST_CASE("a data file cut short is refused by every command as damaged, naming the file and what to do, never by a "
          "signal, with the exit status of a damaged store") {
    for (std::uintmax_t keep : {std::uintmax_t{0}, std::uintmax_t{4096}, std::uintmax_t{3 * 4096}}) {
        CAPTURE(keep);
        world w;
        {
            auto s = w.open();
            for (int i = 0; i < 20; ++i)
                run_to_completion(w, s, "run " + std::to_string(i)); // enough pages to cut
        }
        auto file = w.store_path / "data.mdb";
        REQUIRE(fs::file_size(file) > 4 * 4096);
        fs::resize_file(file, keep);
        for (std::vector<std::string> command : {std::vector<std::string>{"verify"},
                                                 {"check"},
                                                 {"runs"},
                                                 {"show", "run-1"},
                                                 {"events", "run-1"},
                                                 {"pending"},
                                                 {"export", "run-1"}}) {
            auto o = on_store(w.store_path, command);
            SHOW(o);
            CHECK(o.status == 3);
            CHECK(o.err.find("store " + w.store_path.string() + " is damaged: " + file.string()) != std::string::npos);
            CHECK(o.err.find("restore the store from a backup") != std::string::npos);
        }
        auto writer = agentrt::store::open(w.store_path); // nor does a writer make it a new, empty store
        REQUIRE_FALSE(writer);
        CHECK(writer.error().message.find("is damaged") != std::string::npos);
        CHECK(fs::file_size(file) == keep);
    }
}
