#include "record_text.hpp"

#include <agentrt/catalog/canonical_json.hpp>

#include <boost/json/serialize.hpp>

#include <charconv>
#include <cstdint>

namespace agentrt::record_text {
namespace {

template <class Integer>
void append_integer(std::string& out, Integer n) {
    char buffer[24];
    auto end = std::to_chars(buffer, buffer + sizeof buffer, n).ptr;
    out.append(buffer, end);
}

// `prefix` is the punctuation and key before the value, for example `,"goal":`.
void field(std::string& out, std::string_view prefix, std::string_view value) {
    out += prefix;
    append_json_string(out, value); // escaped as boost::json::serialize escapes
}
void field(std::string& out, std::string_view prefix, std::int64_t value) {
    out += prefix;
    append_integer(out, value);
}
void field(std::string& out, std::string_view prefix, std::uint64_t value) {
    out += prefix;
    append_integer(out, value);
}

} // namespace

std::string of(run_record const& r) {
    std::string out;
    out.reserve(400 + r.goal.size() + r.message.size());
    field(out, "{\"id\":", r.id);
    field(out, ",\"goal\":", r.goal);
    field(out, ",\"status\":", to_string(r.status));
    field(out, ",\"reason\":", r.reason);
    field(out, ",\"message\":", r.message);
    field(out, ",\"created\":", r.created_ms);
    field(out, ",\"updated\":", r.updated_ms);
    field(out, ",\"active\":", r.active_ms);
    field(out, ",\"active_since\":", r.active_since_ms);
    field(out, ",\"order\":", r.order);
    field(out, ",\"next_step\":", r.next_step);
    field(out, ",\"failed_streak\":", r.failed_streak);
    field(out, ",\"event_count\":", r.event_count);
    field(out, ",\"model_calls\":", r.model_calls);
    field(out, ",\"tokens\":", r.tokens);
    field(out, ",\"cost_micros\":", r.cost_micros);
    field(out, ",\"head\":", r.head);
    field(out, ",\"policy\":", r.policy);
    field(out, ",\"lease\":{\"owner\":", r.lease.owner);
    field(out, ",\"host\":", r.lease.host);
    field(out, ",\"pid\":", r.lease.pid);
    field(out, ",\"expiry\":", r.lease.expiry_ms);
    out += "}}";
    return out;
}

std::string of(step_record const& s) {
    std::string out;
    out.reserve(400 + s.decision.size() + s.arguments.size() + s.observation.size() + s.error.size() +
                s.late_observation.size());
    field(out, "{\"run\":", s.run_id);
    field(out, ",\"index\":", s.index);
    field(out, ",\"status\":", to_string(s.status));
    field(out, ",\"decision\":", s.decision);
    if (s.kind)
        field(out, ",\"kind\":", to_string(*s.kind));
    else
        out += ",\"kind\":null";
    field(out, ",\"tool\":", s.tool);
    field(out, ",\"arguments\":", s.arguments);
    field(out, ",\"spec_hash\":", s.spec_hash);
    field(out, ",\"observation\":", s.observation);
    field(out, ",\"error\":", s.error);
    field(out, ",\"interrupted_in\":", s.interrupted_in);
    field(out, ",\"resolution\":", s.resolution);
    field(out, ",\"attempt\":", std::uint64_t{s.attempt});
    field(out, ",\"ignored_calls\":", s.ignored_calls);
    field(out, ",\"late_observation\":", s.late_observation);
    field(out, ",\"started\":", s.started_ms);
    field(out, ",\"finished\":", s.finished_ms);
    if (s.policy) {
        field(out, ",\"policy\":{\"identity\":", s.policy->identity);
        field(out, ",\"outcome\":", s.policy->outcome);
        field(out, ",\"reason\":", s.policy->reason);
        field(out, ",\"steps_seen\":", s.policy->steps_seen);
        field(out, ",\"approvals_seen\":", s.policy->approvals_seen);
        field(out, ",\"failed_streak\":", s.policy->failed_streak);
        out += "}}";
    } else {
        out += ",\"policy\":null}";
    }
    return out;
}

std::string of(event_record const& e) {
    std::string out;
    out.reserve(300);
    field(out, "{\"run\":", e.run_id);
    field(out, ",\"seq\":", e.seq);
    field(out, ",\"type\":", e.type);
    field(out, ",\"at\":", e.at_ms);
    out += ",\"data\":";
    out += boost::json::serialize(e.data);
    field(out, ",\"prev\":", e.prev);
    field(out, ",\"hash\":", e.hash);
    out += '}';
    return out;
}

std::string event_body_text(event_record const& e) {
    std::string out;
    out.reserve(300);
    field(out, "{\"at\":", e.at_ms);
    out += ",\"data\":";
    out += canonical_json(e.data);
    field(out, ",\"prev\":", e.prev);
    field(out, ",\"run\":", e.run_id);
    field(out, ",\"seq\":", e.seq);
    field(out, ",\"type\":", e.type);
    out += '}';
    return out;
}

} // namespace agentrt::record_text
