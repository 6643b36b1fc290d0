#include <agentrt/runtime/records.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/error.hpp>

#include "errors.hpp"
#include "record_text.hpp"

#include <boost/describe/enum_to_string.hpp>
#include <boost/describe/enumerators.hpp>
#include <boost/json/parse.hpp>
#include <boost/mp11/algorithm.hpp>

#include <array>

namespace agentrt {
namespace {

template <class Enum>
Enum parse_enum(std::string_view text, std::string_view what) {
    Enum out{};
    bool found = false;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<Enum>>([&](auto d) {
        if (!found && text == d.name) {
            out = d.value;
            found = true;
        }
    });
    if (!found)
        throw exception(err(errc::store_failed,
                            "stored record has an unknown " + std::string(what) + " '" + std::string(text) + "'"));
    return out;
}

template <class Enum>
std::string_view name_of(Enum e) noexcept {
    return boost::describe::enum_to_string(e, "(not a value of the enum)");
}

boost::json::value const& field(boost::json::object const& o, std::string_view key, std::string_view record) {
    auto const* v = o.if_contains(key);
    if (!v)
        throw exception(
            err(errc::store_failed, "stored " + std::string(record) + " record lacks '" + std::string(key) + "'"));
    return *v;
}

boost::json::object const& as_object(boost::json::value const& v, std::string_view record) {
    if (!v.is_object())
        throw exception(err(errc::store_failed, "stored " + std::string(record) + " record is not a JSON object"));
    return v.get_object();
}

std::string text(boost::json::object const& o, std::string_view key, std::string_view record) {
    auto const& v = field(o, key, record);
    if (!v.is_string())
        throw exception(err(errc::store_failed,
                            "stored " + std::string(record) + " field '" + std::string(key) + "' is not a string"));
    return std::string(v.get_string());
}

std::int64_t integer(boost::json::object const& o, std::string_view key, std::string_view record) {
    auto const& v = field(o, key, record);
    if (v.is_int64())
        return v.get_int64();
    if (v.is_uint64())
        return static_cast<std::int64_t>(v.get_uint64());
    throw exception(err(errc::store_failed,
                        "stored " + std::string(record) + " field '" + std::string(key) + "' is not an integer"));
}

std::uint64_t count(boost::json::object const& o, std::string_view key, std::string_view record) {
    return static_cast<std::uint64_t>(integer(o, key, record));
}

} // namespace

std::string_view to_string(run_status s) noexcept {
    return name_of(s);
}
std::string_view to_string(step_status s) noexcept {
    return name_of(s);
}
std::string_view to_string(approval_status s) noexcept {
    return name_of(s);
}
std::string_view to_string(decision_kind k) noexcept {
    return name_of(k);
}
bool is_terminal(run_status s) noexcept {
    return s == run_status::completed || s == run_status::failed || s == run_status::cancelled;
}

std::string step_record::id() const {
    return run_id + "/" + std::to_string(index);
}

std::string approval_hash(approval_record const& a) {
    boost::json::object o;
    o["kind"] = a.kind;
    o["capability"] = a.capability;
    o["presentation"] = a.presentation;
    o["request"] = a.request;
    return canonical_hash(o);
}

namespace {
boost::json::object event_body(event_record const& e) {
    boost::json::object o;
    o["run"] = e.run_id;
    o["seq"] = e.seq;
    o["type"] = e.type;
    o["at"] = e.at_ms;
    o["data"] = e.data;
    o["prev"] = e.prev;
    return o;
}
} // namespace

std::string event_hash(event_record const& e) {
    return sha256_hex(record_text::event_body_text(e));
}

boost::json::object to_json(run_record const& r) {
    boost::json::object lease{
        {"owner", r.lease.owner}, {"host", r.lease.host}, {"pid", r.lease.pid}, {"expiry", r.lease.expiry_ms}};
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

run_record run_from_json(boost::json::value const& v) {
    constexpr std::string_view rec = "run";
    auto const& o = as_object(v, rec);
    run_record r;
    r.id = text(o, "id", rec);
    r.goal = text(o, "goal", rec);
    r.status = parse_enum<run_status>(text(o, "status", rec), "run status");
    r.reason = text(o, "reason", rec);
    r.message = text(o, "message", rec);
    r.created_ms = integer(o, "created", rec);
    r.updated_ms = integer(o, "updated", rec);
    r.active_ms = integer(o, "active", rec);
    r.active_since_ms = integer(o, "active_since", rec);
    r.order = count(o, "order", rec);
    r.next_step = count(o, "next_step", rec);
    r.failed_streak = count(o, "failed_streak", rec);
    r.event_count = count(o, "event_count", rec);
    r.model_calls = count(o, "model_calls", rec);
    r.tokens = count(o, "tokens", rec);
    r.cost_micros = count(o, "cost_micros", rec);
    r.head = text(o, "head", rec);
    r.policy = text(o, "policy", rec);
    auto const& lease = as_object(field(o, "lease", rec), "lease");
    r.lease.owner = text(lease, "owner", "lease");
    r.lease.host = text(lease, "host", "lease");
    r.lease.pid = integer(lease, "pid", "lease");
    r.lease.expiry_ms = integer(lease, "expiry", "lease");
    return r;
}

boost::json::object to_json(step_record const& s) {
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

step_record step_from_json(boost::json::value const& v) {
    constexpr std::string_view rec = "step";
    auto const& o = as_object(v, rec);
    step_record s;
    s.run_id = text(o, "run", rec);
    s.index = count(o, "index", rec);
    s.status = parse_enum<step_status>(text(o, "status", rec), "step status");
    s.decision = text(o, "decision", rec);
    if (auto const& k = field(o, "kind", rec); !k.is_null())
        s.kind = parse_enum<decision_kind>(text(o, "kind", rec), "decision kind");
    s.tool = text(o, "tool", rec);
    s.arguments = text(o, "arguments", rec);
    s.spec_hash = text(o, "spec_hash", rec);
    s.observation = text(o, "observation", rec);
    s.error = text(o, "error", rec);
    s.interrupted_in = text(o, "interrupted_in", rec);
    s.resolution = text(o, "resolution", rec);
    s.attempt = static_cast<std::uint32_t>(count(o, "attempt", rec));
    s.ignored_calls = count(o, "ignored_calls", rec);
    s.late_observation = text(o, "late_observation", rec);
    s.started_ms = integer(o, "started", rec);
    s.finished_ms = integer(o, "finished", rec);
    if (auto const& p = field(o, "policy", rec); !p.is_null()) {
        auto const& po = as_object(p, "policy");
        s.policy = policy_record{text(po, "identity", "policy"),        text(po, "outcome", "policy"),
                                 text(po, "reason", "policy"),          count(po, "steps_seen", "policy"),
                                 count(po, "approvals_seen", "policy"), count(po, "failed_streak", "policy")};
    }
    return s;
}

boost::json::object to_json(approval_record const& a) {
    return {{"run", a.run_id},
            {"step", a.step_index},
            {"seq", a.seq},
            {"kind", a.kind},
            {"reason", a.reason},
            {"capability", a.capability},
            {"presentation", a.presentation},
            {"request", a.request},
            {"hash", a.hash},
            {"status", to_string(a.status)},
            {"used", a.used},
            {"requested", a.requested_ms},
            {"decided", a.decided_ms},
            {"decided_by", a.decided_by}};
}

approval_record approval_from_json(boost::json::value const& v) {
    constexpr std::string_view rec = "approval";
    auto const& o = as_object(v, rec);
    approval_record a;
    a.run_id = text(o, "run", rec);
    a.step_index = count(o, "step", rec);
    a.seq = count(o, "seq", rec);
    a.kind = text(o, "kind", rec);
    a.reason = text(o, "reason", rec);
    a.capability = field(o, "capability", rec);
    a.presentation = field(o, "presentation", rec);
    a.request = as_object(field(o, "request", rec), "approval request");
    a.hash = text(o, "hash", rec);
    a.status = parse_enum<approval_status>(text(o, "status", rec), "approval status");
    auto const& used = field(o, "used", rec);
    a.used = used.is_bool() && used.get_bool();
    a.requested_ms = integer(o, "requested", rec);
    a.decided_ms = integer(o, "decided", rec);
    a.decided_by = text(o, "decided_by", rec);
    return a;
}

boost::json::object to_json(event_record const& e) {
    auto o = event_body(e);
    o["hash"] = e.hash;
    return o;
}

event_record event_from_json(boost::json::value const& v) {
    constexpr std::string_view rec = "event";
    auto const& o = as_object(v, rec);
    event_record e;
    e.run_id = text(o, "run", rec);
    e.seq = count(o, "seq", rec);
    e.type = text(o, "type", rec);
    e.at_ms = integer(o, "at", rec);
    e.data = as_object(field(o, "data", rec), "event data");
    e.prev = text(o, "prev", rec);
    e.hash = text(o, "hash", rec);
    return e;
}

boost::json::object to_json(model_call_record const& m) {
    return {{"run", m.run_id},
            {"seq", m.seq},
            {"step", m.step_index},
            {"attempt", m.attempt},
            {"model", m.model},
            {"status", m.status},
            {"input_tokens", m.input_tokens},
            {"output_tokens", m.output_tokens},
            {"cost_micros", m.cost_micros},
            {"error", m.error},
            {"request_hash", m.request_hash},
            {"dispatched", m.dispatched_ms},
            {"finished", m.finished_ms}};
}

model_call_record model_call_from_json(boost::json::value const& v) {
    constexpr std::string_view rec = "model call";
    auto const& o = as_object(v, rec);
    model_call_record m;
    m.run_id = text(o, "run", rec);
    m.seq = count(o, "seq", rec);
    m.step_index = count(o, "step", rec);
    m.attempt = static_cast<std::uint32_t>(count(o, "attempt", rec));
    m.model = text(o, "model", rec);
    m.status = text(o, "status", rec);
    m.input_tokens = count(o, "input_tokens", rec);
    m.output_tokens = count(o, "output_tokens", rec);
    m.cost_micros = count(o, "cost_micros", rec);
    m.error = text(o, "error", rec);
    m.request_hash = text(o, "request_hash", rec);
    m.dispatched_ms = integer(o, "dispatched", rec);
    m.finished_ms = integer(o, "finished", rec);
    return m;
}

boost::json::value parse_record_text(std::string_view text, boost::json::storage_ptr memory) {
    boost::json::parse_options options;
    options.allow_invalid_utf8 = true;
    return boost::json::parse(text, std::move(memory), options);
}

} // namespace agentrt
