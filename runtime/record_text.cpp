#include "record_text.hpp"

#include "record_fields.hpp"

#include <agentrt/catalog/canonical_json.hpp>

#include <boost/json/serialize.hpp>

#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace agentrt::record_text {
namespace {

template <class Integer>
void append_integer(std::string& out, Integer n) {
    char buffer[24];
    auto end = std::to_chars(buffer, buffer + sizeof buffer, n).ptr;
    out.append(buffer, end);
}

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
void write(std::string& out, T const& v) {
    if constexpr (requires { record_fields::of<T>::list; }) {
        // Each field's punctuation and key, joined once per record type: `{"id":`, `,"goal":`, ...
        static auto const prefixes = std::apply(
            [](auto const&... f) {
                bool first = true;
                return std::array<std::string, sizeof...(f)>{
                    (std::string(std::exchange(first, false) ? "{\"" : ",\"") + std::string(f.key) + "\":")...};
            },
            record_fields::of<T>::list);
        std::size_t i = 0;
        std::apply([&](auto const&... f) { ((out += prefixes[i++], write(out, v.*f.member)), ...); },
                   record_fields::of<T>::list);
        out += '}';
    } else if constexpr (is_optional<T>::value) {
        if (v)
            write(out, *v);
        else
            out += "null";
    } else if constexpr (std::is_same_v<T, std::string>) {
        append_json_string(out, v); // escaped as boost::json::serialize escapes
    } else if constexpr (std::is_enum_v<T>) {
        append_json_string(out, to_string(v));
    } else if constexpr (std::is_same_v<T, bool>) {
        out += v ? "true" : "false";
    } else if constexpr (std::is_integral_v<T>) {
        append_integer(out, v);
    } else {
        out += boost::json::serialize(v);
    }
}

} // namespace

std::string of(run_record const& r) {
    std::string out;
    out.reserve(400 + r.goal.size() + r.message.size());
    write(out, r);
    return out;
}

std::string of(step_record const& s) {
    std::string out;
    out.reserve(400 + s.decision.size() + s.arguments.size() + s.observation.size() + s.error.size() +
                s.late_observation.size());
    write(out, s);
    return out;
}

std::string of(approval_record const& a) {
    std::string out;
    out.reserve(600);
    write(out, a);
    return out;
}

std::string of(model_call_record const& m) {
    std::string out;
    out.reserve(300);
    write(out, m);
    return out;
}

std::string of(event_record const& e) {
    std::string out;
    out.reserve(300);
    write(out, e);
    return out;
}

// The canonical form (keys sorted) is the hash's, not the record's: written here as canonical_json
// writes it.
namespace {
void field(std::string& out, std::string_view prefix, std::string_view value) {
    out += prefix;
    append_json_string(out, value);
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
