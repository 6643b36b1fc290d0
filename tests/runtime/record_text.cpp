// The records' stored text and the events' hashed text, written directly for speed, are byte for
// byte what boost::json::serialize(to_json(...)) and canonical_json of the event body write: stores
// written before and after read the same, and every existing hash chain still verifies.
#include "record_text.hpp"

#include <agentrt/catalog/canonical_json.hpp>

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

TEST_CASE("run, step and event records are stored as boost::json::serialize wrote them") {
    text_source t;
    for (int i = 0; i < 500; ++i) {
        CAPTURE(i);
        auto run = random_run(t);
        CHECK(record_text::of(run) == boost::json::serialize(to_json(run)));
        auto step = random_step(t);
        CHECK(record_text::of(step) == boost::json::serialize(to_json(step)));
        auto event = random_event(t);
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
