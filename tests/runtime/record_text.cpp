// The records' stored text and the events' hashed text, written directly for speed, are byte for
// byte what boost::json::serialize(to_json(...)) and canonical_json of the event body write: stores
// written before and after read the same, and every existing hash chain still verifies.
#include "record_text.hpp"
#include "migrations.hpp"

#include <agentrt/catalog/error.hpp>

#include <agentrt/catalog/canonical_json.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <random>

namespace {

using namespace agentrt;

// Every byte value, escapes and UTF-8 included, in strings of every length around the 8-byte words.
struct text_source {
    std::mt19937_64 random{20261129};
    std::string operator()() {
        static constexpr std::string_view alphabet = "ab\"\\/\n\t\r\b\f\x01\x1f\x7f \xc3\xa9{}:,0";
        std::string out(random() % 40, 'x');
        for (char& c : out)
            c = random() % 4 == 0 ? static_cast<char>(random() % 256) : alphabet[random() % alphabet.size()];
        return out;
    }
    std::int64_t number() {
        switch (random() % 3) {
        case 0:
            return static_cast<std::int64_t>(random() % 10);
        case 1:
            return -static_cast<std::int64_t>(random() >> 1);
        default:
            return static_cast<std::int64_t>(random() >> 1);
        }
    }
    std::uint64_t count() { return random() % 2 ? random() % 100 : random(); }
};

run_record random_run(text_source& t) {
    run_record r;
    r.id = t();
    r.goal = t();
    r.status = static_cast<run_status>(t.random() % 5);
    r.reason = t();
    r.message = t();
    r.created_ms = t.number();
    r.updated_ms = t.number();
    r.active_ms = t.number();
    r.active_since_ms = t.number();
    r.order = t.count();
    r.next_step = t.count();
    r.failed_streak = t.count();
    r.event_count = t.count();
    r.model_calls = t.count();
    r.tokens = t.count();
    r.cost_micros = t.count();
    r.head = t();
    r.policy = t();
    r.lease = {t(), t(), t.number(), t.number()};
    return r;
}

step_record random_step(text_source& t) {
    step_record s;
    s.run_id = t();
    s.index = t.count();
    s.status = static_cast<step_status>(t.random() % 6);
    s.decision = t();
    if (t.random() % 2)
        s.kind = static_cast<decision_kind>(t.random() % 3);
    s.tool = t();
    s.arguments = t();
    s.spec_hash = t();
    if (t.random() % 2)
        s.policy = policy_record{t(), t(), t(), t.count(), t.count(), t.count()};
    s.observation = t();
    s.error = t();
    s.interrupted_in = t();
    s.resolution = t();
    s.attempt = static_cast<std::uint32_t>(t.random());
    s.ignored_calls = t.count();
    s.late_observation = t();
    s.started_ms = t.number();
    s.finished_ms = t.number();
    return s;
}

event_record random_event(text_source& t) {
    event_record e;
    e.run_id = t();
    e.seq = t.count();
    e.type = t();
    e.at_ms = t.number();
    e.data = {{"step", t.count()}, {t(), t()}, {"ok", true}, {"nested", {{"z", 1}, {"a", nullptr}}}, {"n", -3}};
    e.prev = t();
    e.hash = t();
    return e;
}

// The records' JSON as version one of the store wrote it, by hand, before records were described
// once, with the one key version two added (the lease's epoch): the oracle the stored text is held
// to, so that a key, its order or a number's kind cannot move without a test failing.
boost::json::object v1_json(run_record const& r) {
    boost::json::object lease{{"owner", r.lease.owner},
                              {"host", r.lease.host},
                              {"pid", r.lease.pid},
                              {"expiry", r.lease.expiry_ms},
                              {"epoch", r.lease.epoch}};
    return {{"id", r.id},
            {"goal", r.goal},
            {"status", to_string(r.status)},
            {"reason", r.reason},
            {"message", r.message},
            {"created", r.created_ms},
            {"updated", r.updated_ms},
            {"active", r.active_ms},
            {"active_since", r.active_since_ms},
            {"order", r.order},
            {"next_step", r.next_step},
            {"failed_streak", r.failed_streak},
            {"event_count", r.event_count},
            {"model_calls", r.model_calls},
            {"tokens", r.tokens},
            {"cost_micros", r.cost_micros},
            {"head", r.head},
            {"policy", r.policy},
            {"lease", std::move(lease)}};
}

boost::json::object v1_json(step_record const& s) {
    boost::json::object o{{"run", s.run_id},
                          {"index", s.index},
                          {"status", to_string(s.status)},
                          {"decision", s.decision},
                          {"kind", s.kind ? boost::json::value(to_string(*s.kind)) : boost::json::value(nullptr)},
                          {"tool", s.tool},
                          {"arguments", s.arguments},
                          {"spec_hash", s.spec_hash},
                          {"observation", s.observation},
                          {"error", s.error},
                          {"interrupted_in", s.interrupted_in},
                          {"resolution", s.resolution},
                          {"attempt", s.attempt},
                          {"ignored_calls", s.ignored_calls},
                          {"late_observation", s.late_observation},
                          {"started", s.started_ms},
                          {"finished", s.finished_ms}};
    if (s.policy)
        o["policy"] = boost::json::object{{"identity", s.policy->identity},
                                          {"outcome", s.policy->outcome},
                                          {"reason", s.policy->reason},
                                          {"steps_seen", s.policy->steps_seen},
                                          {"approvals_seen", s.policy->approvals_seen},
                                          {"failed_streak", s.policy->failed_streak}};
    else
        o["policy"] = nullptr;
    return o;
}

boost::json::object v1_event_body(event_record const& e) {
    boost::json::object o;
    o["run"] = e.run_id;
    o["seq"] = e.seq;
    o["type"] = e.type;
    o["at"] = e.at_ms;
    o["data"] = e.data;
    o["prev"] = e.prev;
    return o;
}

boost::json::object v1_json(event_record const& e) {
    auto o = v1_event_body(e);
    o["hash"] = e.hash;
    return o;
}

// What the event hash was taken over before the text was written directly.
std::string event_body_as_object(event_record const& e) {
    boost::json::object o;
    o["run"] = e.run_id;
    o["seq"] = e.seq;
    o["type"] = e.type;
    o["at"] = e.at_ms;
    o["data"] = e.data;
    o["prev"] = e.prev;
    return canonical_json(o);
}

} // namespace

TEST_CASE("run, step and event records are stored as version one wrote them, for any content") {
    text_source t;
    for (int i = 0; i < 500; ++i) {
        CAPTURE(i);
        auto run = random_run(t);
        CHECK(record_text::of(run) == boost::json::serialize(v1_json(run)));
        CHECK(record_text::of(run) == boost::json::serialize(to_json(run)));
        auto step = random_step(t);
        CHECK(record_text::of(step) == boost::json::serialize(v1_json(step)));
        CHECK(record_text::of(step) == boost::json::serialize(to_json(step)));
        auto event = random_event(t);
        CHECK(record_text::of(event) == boost::json::serialize(v1_json(event)));
        CHECK(record_text::of(event) == boost::json::serialize(to_json(event)));
    }
}

TEST_CASE("an event is hashed over the canonical JSON of its body, as before") {
    text_source t;
    for (int i = 0; i < 500; ++i) {
        CAPTURE(i);
        auto event = random_event(t);
        CHECK(record_text::event_body_text(event) == event_body_as_object(event));
        CHECK(event_hash(event) == sha256_hex(event_body_as_object(event)));
    }
}

TEST_CASE("a stored event hash is pinned") {
    event_record e;
    e.run_id = "r-1";
    e.seq = 2;
    e.type = "step.started";
    e.at_ms = 1764374400000;
    e.data = {{"step", 0}};
    e.prev = "abc";
    CHECK(record_text::event_body_text(e) ==
          R"({"at":1764374400000,"data":{"step":0},"prev":"abc","run":"r-1","seq":2,"type":"step.started"})");
    CHECK(event_hash(e) == sha256_hex(record_text::event_body_text(e)));
}

// Version 2 of the store's format: version 1, as the code before records were described once wrote
// it, with the lease's epoch. Every record, every kind of member (escapes, a negative number, an
// absent and a present optional, JSON values, a bool) byte for byte.
TEST_CASE("every record is stored in the text of schema version 2, and reads back as written") {
    run_record r;
    r.id = "r-1";
    r.goal = "g\"oal\n";
    r.status = run_status::waiting_for_approval;
    r.reason = "x";
    r.message = "m";
    r.created_ms = 1;
    r.updated_ms = -2;
    r.active_ms = 3;
    r.active_since_ms = 4;
    r.order = 5;
    r.next_step = 6;
    r.failed_streak = 7;
    r.event_count = 8;
    r.model_calls = 9;
    r.tokens = 10;
    r.cost_micros = 11;
    r.head = "h";
    r.policy = "p/1";
    r.lease = {"o", "host", 12, 13, 14};
    step_record s;
    s.run_id = "r-1";
    s.index = 2;
    s.status = step_status::interrupted;
    s.decision = R"({"d":1})";
    s.kind = decision_kind::tool_call;
    s.tool = "t";
    s.arguments = "{}";
    s.spec_hash = "sh";
    s.policy = policy_record{"p/1", "allow", "why", 1, 2, 3};
    s.observation = "o";
    s.error = "e";
    s.interrupted_in = "executing";
    s.resolution = "approval";
    s.attempt = 2;
    s.ignored_calls = 1;
    s.late_observation = "l";
    s.started_ms = 100;
    s.finished_ms = 200;
    step_record fresh;
    fresh.run_id = "r-2";
    approval_record a;
    a.run_id = "r-1";
    a.step_index = 2;
    a.seq = 1;
    a.kind = "k";
    a.reason = "r";
    a.capability = boost::json::object{{"b", 1}, {"a", 2.5}};
    a.presentation = nullptr;
    a.request = {{"run", "r-1"}};
    a.hash = "ah";
    a.status = approval_status::approved;
    a.used = true;
    a.requested_ms = 5;
    a.decided_ms = 6;
    a.decided_by = "ana";
    model_call_record m;
    m.run_id = "r-1";
    m.seq = 3;
    m.step_index = 2;
    m.attempt = 1;
    m.model = "small";
    m.status = "ok";
    m.input_tokens = 10;
    m.output_tokens = 20;
    m.cost_micros = 30;
    m.request_hash = "rh";
    m.dispatched_ms = 7;
    m.finished_ms = 8;
    event_record e;
    e.run_id = "r-1";
    e.seq = 4;
    e.type = "step.started";
    e.at_ms = 9;
    e.data = {{"step", 2}, {"b", true}};
    e.prev = "pv";
    e.hash = "hh";

    CHECK(
        record_text::of(r) ==
        R"~({"id":"r-1","goal":"g\"oal\n","status":"waiting_for_approval","reason":"x","message":"m","created":1,"updated":-2,"active":3,"active_since":4,"order":5,"next_step":6,"failed_streak":7,"event_count":8,"model_calls":9,"tokens":10,"cost_micros":11,"head":"h","policy":"p/1","lease":{"owner":"o","host":"host","pid":12,"expiry":13,"epoch":14}})~");
    CHECK(
        record_text::of(s) ==
        R"~({"run":"r-1","index":2,"status":"interrupted","decision":"{\"d\":1}","kind":"tool_call","tool":"t","arguments":"{}","spec_hash":"sh","observation":"o","error":"e","interrupted_in":"executing","resolution":"approval","attempt":2,"ignored_calls":1,"late_observation":"l","started":100,"finished":200,"policy":{"identity":"p/1","outcome":"allow","reason":"why","steps_seen":1,"approvals_seen":2,"failed_streak":3}})~");
    CHECK(
        record_text::of(fresh) ==
        R"~({"run":"r-2","index":0,"status":"deciding","decision":"","kind":null,"tool":"","arguments":"","spec_hash":"","observation":"","error":"","interrupted_in":"","resolution":"","attempt":0,"ignored_calls":0,"late_observation":"","started":0,"finished":0,"policy":null})~");
    CHECK(
        record_text::of(a) ==
        R"~({"run":"r-1","step":2,"seq":1,"kind":"k","reason":"r","capability":{"b":1,"a":2.5E0},"presentation":null,"request":{"run":"r-1"},"hash":"ah","status":"approved","used":true,"requested":5,"decided":6,"decided_by":"ana"})~");
    CHECK(
        record_text::of(m) ==
        R"~({"run":"r-1","seq":3,"step":2,"attempt":1,"model":"small","status":"ok","input_tokens":10,"output_tokens":20,"cost_micros":30,"error":"","request_hash":"rh","dispatched":7,"finished":8})~");
    CHECK(record_text::of(e) ==
          R"~({"run":"r-1","seq":4,"type":"step.started","at":9,"data":{"step":2,"b":true},"prev":"pv","hash":"hh"})~");
    CHECK(boost::json::serialize(to_json(a)) == record_text::of(a));
    CHECK(boost::json::serialize(to_json(m)) == record_text::of(m));

    CHECK(record_text::of(run_from_json(parse_record_text(record_text::of(r)))) == record_text::of(r));
    CHECK(record_text::of(step_from_json(parse_record_text(record_text::of(s)))) == record_text::of(s));
    CHECK(record_text::of(step_from_json(parse_record_text(record_text::of(fresh)))) == record_text::of(fresh));
    CHECK(record_text::of(approval_from_json(parse_record_text(record_text::of(a)))) == record_text::of(a));
    CHECK(record_text::of(model_call_from_json(parse_record_text(record_text::of(m)))) == record_text::of(m));
    CHECK(record_text::of(event_from_json(parse_record_text(record_text::of(e)))) == record_text::of(e));
}

TEST_CASE("a run of schema version 1 moves to version 2 with its lease at epoch 0, every other byte kept") {
    std::string v1 =
        R"~({"id":"r-1","goal":"g\"oal\n","status":"running","reason":"","message":"m","created":1,"updated":-2,"active":3,"active_since":4,"order":5,"next_step":6,"failed_streak":7,"event_count":8,"model_calls":9,"tokens":10,"cost_micros":11,"head":"h","policy":"p/1","lease":{"owner":"o","host":"host","pid":12,"expiry":13}})~";
    CHECK_THROWS_WITH_AS(run_from_json(parse_record_text(v1)), "stored lease record lacks 'epoch'", agentrt::exception);
    CHECK(
        agentrt::migrations::run_text_v1_to_v2(v1) ==
        R"~({"id":"r-1","goal":"g\"oal\n","status":"running","reason":"","message":"m","created":1,"updated":-2,"active":3,"active_since":4,"order":5,"next_step":6,"failed_streak":7,"event_count":8,"model_calls":9,"tokens":10,"cost_micros":11,"head":"h","policy":"p/1","lease":{"owner":"o","host":"host","pid":12,"expiry":13,"epoch":0}})~");
    CHECK_THROWS_WITH_AS(agentrt::migrations::run_text_v1_to_v2(R"({"id":"r-1"})"),
                         "a stored run has no lease object: it is not a run of schema version 1; restore the store "
                         "from a backup",
                         agentrt::exception);
}

TEST_CASE("a stored record that lacks a field or holds the wrong kind of value is refused by name") {
    auto refused = [](auto read, std::string_view text) {
        try {
            (void)read(parse_record_text(text));
        } catch (agentrt::exception const& e) {
            CHECK(e.error().code == errc::store_failed);
            return e.error().message;
        }
        return std::string("accepted");
    };
    auto run =
        boost::json::parse(
            R"~({"id":"r-1","goal":"g\"oal\n","status":"waiting_for_approval","reason":"x","message":"m","created":1,"updated":-2,"active":3,"active_since":4,"order":5,"next_step":6,"failed_streak":7,"event_count":8,"model_calls":9,"tokens":10,"cost_micros":11,"head":"h","policy":"p/1","lease":{"owner":"o","host":"host","pid":12,"expiry":13}})~")
            .as_object();
    run.erase("goal");
    CHECK(refused(run_from_json, boost::json::serialize(run)) == "stored run record lacks 'goal'");
    run =
        boost::json::parse(
            R"~({"id":"r-1","goal":"g\"oal\n","status":"waiting_for_approval","reason":"x","message":"m","created":1,"updated":-2,"active":3,"active_since":4,"order":5,"next_step":6,"failed_streak":7,"event_count":8,"model_calls":9,"tokens":10,"cost_micros":11,"head":"h","policy":"p/1","lease":{"owner":"o","host":"host","pid":12,"expiry":13}})~")
            .as_object();
    run["lease"].as_object()["pid"] = "twelve";
    CHECK(refused(run_from_json, boost::json::serialize(run)) == "stored lease field 'pid' is not an integer");
    run["lease"] = 1;
    CHECK(refused(run_from_json, boost::json::serialize(run)) == "stored lease record is not a JSON object");
    auto step =
        boost::json::parse(
            R"~({"run":"r-1","index":2,"status":"interrupted","decision":"{\"d\":1}","kind":"tool_call","tool":"t","arguments":"{}","spec_hash":"sh","observation":"o","error":"e","interrupted_in":"executing","resolution":"approval","attempt":2,"ignored_calls":1,"late_observation":"l","started":100,"finished":200,"policy":{"identity":"p/1","outcome":"allow","reason":"why","steps_seen":1,"approvals_seen":2,"failed_streak":3}})~")
            .as_object();
    step["status"] = "sleeping";
    CHECK(refused(step_from_json, boost::json::serialize(step)) ==
          "stored record has an unknown step status 'sleeping'");
}
