#include <agentrt/runtime/verify.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include "engines/lmdb/keys.hpp"
#include "engines/lmdb/seal.hpp"
#include "fixture.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

using namespace runtime_test;
using agentrt::decision;

namespace {

// Three completed runs of two steps each: run-1, run-2, run-3.
void three_runs(world& w) {
    auto s = w.open();
    for (int i = 0; i < 3; ++i) {
        agentrt::testkit::scripted_agent agent({decision::call("lookup_order", lookup_args), decision::complete("ok")});
        agentrt::driver d(s, w.table, w.policy, agent, w.options());
        REQUIRE(d.start("goal").value().status == agentrt::run_status::completed);
    }
    REQUIRE(agentrt::verify(s).ok());
}

void delete_run(raw_lmdb& raw, std::string const& id, std::uint64_t order) {
    raw.del("runs", id);
    raw.del("run_order", agentrt::lmdb::big_endian(order));
    for (std::uint64_t seq = 0;; ++seq) {
        MDB_val k{}, v{};
        auto key = agentrt::keys::event(id, seq);
        k = {key.size(), key.data()};
        if (mdb_get(raw.txn, raw.db("events"), &k, &v) != 0)
            break;
        raw.del("events", key);
    }
}

} // namespace

TEST_CASE("verify passes an untouched store and counts what it checked") {
    world w;
    three_runs(w);
    auto s = w.open();
    auto report = agentrt::verify(s);
    CHECK(report.ok());
    CHECK(report.runs == 3);
    CHECK(report.events == 3 * 10);
}

TEST_CASE("verify finds an altered event") {
    world w;
    three_runs(w);
    {
        raw_lmdb raw(w.store_path);
        auto key = agentrt::keys::event("run-2", 3);
        auto row = boost::json::parse(raw.get("events", key)).as_object();
        row["data"].as_object()["decision"] = "something else";
        raw.put("events", key, boost::json::serialize(row));
        raw.commit();
    }
    auto s = w.open();
    CHECK(agentrt::verify(s).first_break ==
          "run run-2 event 3 (step.decided) was altered: its content no longer matches its hash");
}

TEST_CASE("verify finds an altered event whose hash was recomputed") {
    world w;
    three_runs(w);
    {
        raw_lmdb raw(w.store_path);
        auto key = agentrt::keys::event("run-2", 3);
        auto e = agentrt::event_from_json(boost::json::parse(raw.get("events", key)));
        e.data["decision"] = "something else";
        e.hash = agentrt::event_hash(e);
        raw.put("events", key, boost::json::serialize(agentrt::to_json(e)));
        raw.commit();
    }
    auto s = w.open();
    CHECK(agentrt::verify(s).first_break ==
          "run run-2 event 4 (step.policy) does not link to the event before it: an event before it was altered, "
          "replaced or deleted");
}

TEST_CASE("verify finds a deleted event") {
    world w;
    three_runs(w);
    {
        raw_lmdb raw(w.store_path);
        raw.del("events", agentrt::keys::event("run-1", 2));
        raw.commit();
    }
    auto s = w.open();
    CHECK(agentrt::verify(s).first_break == "run run-1: event 2 is missing (found event 3 in its place)");
}

TEST_CASE("verify finds a deleted last event") {
    world w;
    three_runs(w);
    {
        raw_lmdb raw(w.store_path);
        raw.del("events", agentrt::keys::event("run-3", 9));
        raw.commit();
    }
    auto s = w.open();
    CHECK(agentrt::verify(s).first_break ==
          "run run-3: its last event(s) are missing (the chain ends at event 9 before the recorded head)");
}

TEST_CASE("verify finds a deleted run") {
    world w;
    three_runs(w);
    {
        raw_lmdb raw(w.store_path);
        delete_run(raw, "run-2", 2);
        raw.commit();
    }
    auto s = w.open();
    auto report = agentrt::verify(s);
    CHECK(report.first_break.starts_with("the run created before run run-3 is missing"));
}

TEST_CASE("verify finds the newest run deleted") {
    world w;
    three_runs(w);
    {
        raw_lmdb raw(w.store_path);
        delete_run(raw, "run-3", 3);
        raw.commit();
    }
    auto s = w.open();
    auto report = agentrt::verify(s);
    CHECK(report.first_break.starts_with("the newest run (run.created "));
    CHECK(report.first_break.ends_with(") is missing: a run was deleted"));
}

TEST_CASE("one run's exported events verify on their own") {
    world w;
    three_runs(w);
    auto s = w.open();
    auto events = agentrt::read_events(s, "run-2").value();
    auto head = agentrt::read_run(s, "run-2").value().run.head;
    CHECK(agentrt::verify_events(events, head).ok());
    auto altered = events;
    altered[5].data["observation"] = "forged";
    CHECK(agentrt::verify_events(altered, head).first_break ==
          "run run-2 event 5 (step.tool_started) was altered: its content no longer matches its hash");
    altered = events;
    altered.pop_back();
    CHECK_FALSE(agentrt::verify_events(altered, head).ok());
}

TEST_CASE("verify finds a run record whose head or event count was altered, or a middle run claiming to be first") {
    auto tampered = [](std::string const& what) {
        world w;
        three_runs(w);
        {
            raw_lmdb raw(w.store_path);
            if (what == "prev_run") {
                // The newest run made to claim it is the first one (hiding the runs before it): its
                // link emptied and every hash after it recomputed, the store's chain head included.
                auto key = [](std::uint64_t seq) { return agentrt::keys::event("run-3", seq); };
                auto run = agentrt::run_from_json(boost::json::parse(raw.get("runs", "run-3")));
                std::string prev;
                for (std::uint64_t seq = 0; seq < run.event_count; ++seq) {
                    auto e = agentrt::event_from_json(boost::json::parse(raw.get("events", key(seq))));
                    if (seq == 0)
                        e.data["prev_run"] = "";
                    e.prev = prev;
                    e.hash = agentrt::event_hash(e);
                    raw.put("events", key(seq), boost::json::serialize(agentrt::to_json(e)));
                    if (seq == 0)
                        raw.put("meta", "run_chain_head", e.hash);
                    prev = e.hash;
                }
                run.head = prev;
                raw.put("runs", "run-3", boost::json::serialize(agentrt::to_json(run)));
            } else {
                auto row = boost::json::parse(raw.get("runs", "run-2")).as_object();
                if (what == "head")
                    row["head"] = "";
                else
                    row["event_count"] = row["event_count"].to_number<std::int64_t>() + 1;
                raw.put("runs", "run-2", boost::json::serialize(row));
            }
            raw.commit();
        }
        auto s = w.open();
        return agentrt::verify(s).first_break;
    };
    CHECK(tampered("head") == "run run-2: its record names no head, though every run has events");
    CHECK(tampered("event_count") == "run run-2: its record counts 11 events, but 10 are stored");
    CHECK(tampered("prev_run") == "run run-3 links to no run before it, though it is not the oldest run");
}

TEST_CASE("a record is sealed with the CRC-32 of its key and text, big-endian: what every version 3 store holds") {
    using agentrt::lmdb_detail::seal;
    using agentrt::lmdb_detail::unseal;
    // "123456789" is CRC-32's check input; its checksum is 0xCBF43926 however it is split.
    CHECK(seal("1234", "56789") == "56789\xCB\xF4\x39\x26");
    CHECK(seal("", "123456789") == "123456789\xCB\xF4\x39\x26");
    CHECK(seal("", "") == std::string(4, '\0'));
    CHECK(unseal("1234", "56789\xCB\xF4\x39\x26") == "56789");
    CHECK_FALSE(unseal("1234", "56788\xCB\xF4\x39\x26"));
    CHECK_FALSE(unseal("1235", "56789\xCB\xF4\x39\x26"));
    CHECK_FALSE(unseal("", "123"));
}

TEST_CASE("an empty key or text seals as its bytes do, whatever pointer its view holds") {
    using agentrt::lmdb_detail::seal;
    using agentrt::lmdb_detail::unseal;
    std::string_view const null_view; // data() is nullptr
    CHECK(seal("123456789", null_view) == seal("123456789", ""));
    CHECK(seal(null_view, "123456789") == "123456789\xCB\xF4\x39\x26");
    CHECK(unseal("a key", seal("a key", null_view)) == "");
    CHECK_FALSE(unseal("another key", seal("a key", null_view)));
}

TEST_CASE("a record whose bytes changed behind the runtime fails its checksum: reading it is store_damaged naming "
          "the record, and verify reports the damage") {
    world w;
    three_runs(w);
    auto key = agentrt::keys::step("run-2", 0);
    {
        raw_lmdb raw(w.store_path);
        auto stored = raw.get_stored("steps", key);
        auto at = stored.find("lookup_order");
        REQUIRE(at != std::string::npos);
        stored[at] = 'L'; // the checksum stays that of the old text
        raw.put_stored("steps", key, stored);
        raw.commit();
    }
    auto s = w.open();
    auto read = agentrt::read_run(s, "run-2");
    REQUIRE_FALSE(read);
    CHECK(read.error().code == agentrt::errc::store_damaged);
    CHECK(read.error().message.find("store " + w.store_path.string() + " is damaged: the record 'run-2") !=
          std::string::npos);
    CHECK(read.error().message.find("of steps does not match its checksum") != std::string::npos);
    CHECK(agentrt::read_run(s, "run-1")); // the other runs read as before
    auto report = agentrt::verify(s);
    CHECK(report.damaged);
    CHECK(report.first_break == read.error().message);
}

TEST_CASE("verify finds a step record that is missing, though every event chain holds") {
    world w;
    three_runs(w);
    {
        raw_lmdb raw(w.store_path);
        raw.del("steps", agentrt::keys::step("run-3", 1));
        raw.commit();
    }
    auto s = w.open();
    auto report = agentrt::verify(s);
    CHECK_FALSE(report.damaged);
    CHECK(report.first_break == "run run-3: step 1 (its record counts 2 steps) is missing");
}
