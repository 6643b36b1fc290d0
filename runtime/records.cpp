#include <agentrt/runtime/records.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/error.hpp>

#include "errors.hpp"
#include "record_fields.hpp"
#include "record_text.hpp"

#include <boost/describe/enumerators.hpp>
#include <boost/json/parse.hpp>
#include <boost/mp11/algorithm.hpp>

#include <array>
#include <optional>
#include <tuple>
#include <type_traits>

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

// The names by value, read once from the description: the enumerators are 0, 1, 2, ... in order,
// and a record's text is written several times per step.
template <class Enum>
std::string_view name_of(Enum e) noexcept {
    using described = boost::describe::describe_enumerators<Enum>;
    static constexpr auto names = [] {
        std::array<std::string_view, boost::mp11::mp_size<described>::value> out{};
        boost::mp11::mp_for_each<described>([&](auto d) { out[static_cast<std::size_t>(d.value)] = d.name; });
        return out;
    }();
    auto i = static_cast<std::size_t>(e);
    return i < names.size() ? names[i] : std::string_view("(not a value of the enum)");
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

std::string event_hash(event_record const& e) {
    return sha256_hex(record_text::event_body_text(e));
}

namespace {

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
concept described_record = requires {
    record_fields::of<T>::list;
};

template <class T>
boost::json::value json_of(T const& v) {
    if constexpr (described_record<T>) {
        boost::json::object o;
        std::apply([&](auto const&... f) { (o.emplace(f.key, json_of(v.*f.member)), ...); },
                   record_fields::of<T>::list);
        return o;
    } else if constexpr (is_optional<T>::value) {
        return v ? json_of(*v) : boost::json::value(nullptr);
    } else if constexpr (std::is_enum_v<T>) {
        return boost::json::value(to_string(v));
    } else {
        return boost::json::value(v);
    }
}

template <class T>
void read(boost::json::value const& v, T& out, std::string_view record, std::string_view key) {
    auto what = [&] { return std::string(record) + " " + std::string(key); };
    if constexpr (described_record<T>) {
        auto const& o = as_object(v, record_fields::of<T>::name);
        std::apply(
            [&](auto const&... f) {
                (read(field(o, f.key, record_fields::of<T>::name), out.*f.member, record_fields::of<T>::name, f.key),
                 ...);
            },
            record_fields::of<T>::list);
    } else if constexpr (is_optional<T>::value) {
        if (v.is_null())
            out.reset();
        else
            read(v, out.emplace(), record, key);
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (!v.is_string())
            throw exception(err(errc::store_failed,
                                "stored " + std::string(record) + " field '" + std::string(key) + "' is not a string"));
        out = std::string(v.get_string());
    } else if constexpr (std::is_enum_v<T>) {
        if (!v.is_string())
            throw exception(err(errc::store_failed,
                                "stored " + std::string(record) + " field '" + std::string(key) + "' is not a string"));
        out = parse_enum<T>(v.get_string(), std::is_same_v<T, decision_kind> ? std::string("decision kind") : what());
    } else if constexpr (std::is_same_v<T, bool>) {
        out = v.is_bool() && v.get_bool();
    } else if constexpr (std::is_integral_v<T>) {
        std::int64_t n = 0;
        if (v.is_int64())
            n = v.get_int64();
        else if (v.is_uint64())
            n = static_cast<std::int64_t>(v.get_uint64());
        else
            throw exception(err(errc::store_failed, "stored " + std::string(record) + " field '" + std::string(key) +
                                                        "' is not an integer"));
        out = static_cast<T>(n);
    } else if constexpr (std::is_same_v<T, boost::json::object>) {
        out = as_object(v, what());
    } else {
        static_assert(std::is_same_v<T, boost::json::value>, "a record field of a type the store cannot keep");
        out = v;
    }
}

template <class R>
R record_from(boost::json::value const& v) {
    R r;
    read(v, r, record_fields::of<R>::name, "");
    return r;
}

template <class R>
boost::json::object record_json(R const& r) {
    return json_of(r).as_object();
}

} // namespace

boost::json::object to_json(run_record const& r) {
    return record_json(r);
}
boost::json::object to_json(step_record const& s) {
    return record_json(s);
}
boost::json::object to_json(approval_record const& a) {
    return record_json(a);
}
boost::json::object to_json(event_record const& e) {
    return record_json(e);
}
boost::json::object to_json(model_call_record const& m) {
    return record_json(m);
}

run_record run_from_json(boost::json::value const& v) {
    return record_from<run_record>(v);
}
step_record step_from_json(boost::json::value const& v) {
    return record_from<step_record>(v);
}
approval_record approval_from_json(boost::json::value const& v) {
    return record_from<approval_record>(v);
}
event_record event_from_json(boost::json::value const& v) {
    return record_from<event_record>(v);
}
model_call_record model_call_from_json(boost::json::value const& v) {
    return record_from<model_call_record>(v);
}

boost::json::value parse_record_text(std::string_view text, boost::json::storage_ptr memory) {
    boost::json::parse_options options;
    options.allow_invalid_utf8 = true;
    // Deeper than anything a record is written with: a model's arguments (read_limits, 256 deep)
    // inside an approval's request inside its record, a policy's JSON (no deeper than arguments)
    // and a tool's schema. Boost.JSON's default of 32 would refuse arguments the reader accepted.
    options.max_depth = 1024;
    boost::system::error_code ec;
    auto v = boost::json::parse(text, ec, std::move(memory), options);
    if (ec)
        throw exception(err(errc::store_failed, "stored record is not JSON (" + ec.message() + ")" + damage_advice));
    return v;
}

} // namespace agentrt
