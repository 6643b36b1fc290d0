#include "cli.hpp"

#include <agentrt/catalog/canonical_json.hpp>

#include <boost/json/serialize.hpp>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <ostream>
#include <stdexcept>

namespace agentrt::cli {

std::optional<std::string> command_line::value(std::string_view option) const {
    if (auto it = values.find(option); it != values.end())
        return it->second;
    return std::nullopt;
}

std::uint64_t command_line::number(std::string_view option, std::uint64_t fallback) const {
    auto text = value(option);
    if (!text)
        return fallback;
    std::uint64_t n = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
    if (ec != std::errc{} || end != text->data() + text->size() || text->empty())
        throw usage_error(std::string(option) + " wants a non-negative whole number, got '" + sanitize(*text, 40) +
                          "'");
    return n;
}

std::string utc_time(std::int64_t ms) {
    std::time_t seconds = static_cast<std::time_t>(ms / 1000);
    std::tm t{};
    ::gmtime_r(&seconds, &t);
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", t.tm_year + 1900, t.tm_mon + 1,
                  t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, static_cast<int>(ms % 1000));
    return buffer;
}

std::int64_t parse_utc_date(std::string_view text, std::string_view what) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, consumed = 0;
    std::string t(text);
    bool date_only = t.size() == 10 && std::sscanf(t.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &consumed) == 3;
    bool date_time = t.size() == 20 &&
                     std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &h, &mi, &s, &consumed) == 6;
    using namespace std::chrono;
    year_month_day day{year{y}, month{static_cast<unsigned>(mo)}, std::chrono::day{static_cast<unsigned>(d)}};
    if (!(date_only || date_time) || consumed != static_cast<int>(t.size()) || !day.ok() || h > 23 || mi > 59 ||
        s > 59 || h < 0 || mi < 0 || s < 0)
        throw usage_error(std::string(what) + " wants a UTC date like 2026-01-31 or 2026-01-31T12:00:00Z, got '" +
                          sanitize(text, 40) + "'");
    auto at = sys_days{day} + hours{h} + minutes{mi} + seconds{s};
    return duration_cast<milliseconds>(at.time_since_epoch()).count();
}

std::string json_line(boost::json::object const& o) {
    return boost::json::serialize(o) + "\n";
}

std::string display_json(boost::json::value const& v) {
    try {
        return ordered_json(v);
    } catch (std::invalid_argument const&) {
        // A non-finite number, which only a store altered outside agentrt holds: show it all the same.
        return boost::json::serialize(v);
    }
}

void print_table(std::ostream& out, std::vector<std::vector<std::string>> const& rows) {
    std::vector<std::size_t> widths;
    for (auto const& row : rows)
        for (std::size_t i = 0; i < row.size(); ++i) {
            widths.resize(std::max(widths.size(), row.size()));
            widths[i] = std::max(widths[i], display_width(row[i]));
        }
    for (auto const& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            line += row[i];
            if (i + 1 < row.size())
                line += std::string(widths[i] - display_width(row[i]) + 2, ' ');
        }
        out << line << '\n';
    }
}

std::vector<approval_record> pending_of(run_record const& run, std::vector<approval_record> const& approvals) {
    if (run.status != run_status::waiting_for_approval)
        return {};
    std::map<std::uint64_t, approval_record const*> latest;
    for (auto const& a : approvals)
        if (auto& l = latest[a.step_index]; !l || a.seq > l->seq)
            l = &a;
    std::vector<approval_record> out;
    for (auto const& [step, a] : latest)
        if (a->status == approval_status::pending)
            out.push_back(*a);
    return out;
}

namespace {

std::string shown_json(boost::json::value const& v, bool full, std::size_t cap) {
    return sanitize(display_json(v), full ? 0 : cap);
}

std::string string_member(boost::json::object const& o, std::string_view key) {
    auto const* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

} // namespace

void print_approval(std::ostream& out, approval_record const& a, bool full) {
    std::vector<std::vector<std::string>> rows;
    auto add = [&](std::string label, std::string value) { rows.push_back({"  " + label, std::move(value)}); };
    out << "approval of step " << sanitize(a.run_id, 120) << '/' << a.step_index << " (request " << a.seq << ", "
        << to_string(a.status) << ")\n";
    boost::json::object tool;
    if (auto const* t = a.request.if_contains("tool"); t && t->is_object())
        tool = t->get_object();
    add("tool",
        sanitize(string_member(tool, "name"), 80) + " (" + sanitize(string_member(tool, "side_effect"), 40) + ")");
    add("description", sanitize(string_member(tool, "description"), full ? 0 : 200));
    boost::json::value const* args = a.request.if_contains("arguments");
    if (args && args->is_object()) {
        add("arguments", std::to_string(args->get_object().size()));
        for (auto const& [name, value] : args->get_object()) {
            std::string text = display_json(value);
            add("  " + sanitize(name, 60), std::to_string(text.size()) + " bytes  " + shown_json(value, full, 400));
        }
    } else {
        add("arguments", args ? shown_json(*args, full, 400) : "(none)");
    }
    add("kind", sanitize(a.kind, 120));
    add("reason", sanitize(a.reason, full ? 0 : 400));
    add("capability", shown_json(a.capability, full, 400));
    add("presentation", shown_json(a.presentation, full, 400));
    add("requested", utc_time(a.requested_ms));
    if (a.status != approval_status::pending)
        add("decided", utc_time(a.decided_ms) + " by " + sanitize(a.decided_by, 80));
    add("hash", sanitize(a.hash));
    print_table(out, rows);
}

} // namespace agentrt::cli
