// runs, show, events, pending, export: what a store holds, for reading.
#include "cli.hpp"

#include <agentrt/runtime/reads.hpp>

#include <boost/json/parse.hpp>

#include <cstdint>
#include <ostream>

namespace agentrt::cli {
namespace {

std::string or_dash(std::string text) {
    return text.empty() ? "-" : text;
}

run_details load_run(store const& s, std::string const& id) {
    auto details = read_run(s, id);
    if (!details)
        throw failure(details.error(), sanitize(details.error().message, 400));
    return std::move(*details);
}

int runs_command(context& c, command_line const& l) {
    auto limit = l.number("--limit", 20), offset = l.number("--offset", 0);
    if (limit == 0)
        throw usage_error("--limit wants at least 1 run");
    auto s = c.open_store();
    auto wanted = offset > SIZE_MAX - limit ? SIZE_MAX : static_cast<std::size_t>(offset + limit);
    auto runs = list_runs(s, {}, wanted);
    runs.erase(runs.begin(), runs.begin() + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(offset, runs.size())));
    if (c.json) {
        for (auto const& run : runs)
            c.out << json_line(to_json(run));
        return exit_ok;
    }
    std::vector<std::vector<std::string>> rows{{"RUN", "STATUS", "REASON", "STEPS", "UPDATED", "GOAL"}};
    for (auto const& run : runs)
        rows.push_back({sanitize(run.id, 40), std::string(to_string(run.status)), or_dash(sanitize(run.reason, 30)),
                        std::to_string(run.next_step), utc_time(run.updated_ms), sanitize(run.goal, 60)});
    if (runs.empty())
        c.out << (offset == 0 ? "no runs\n" : "no runs at this offset\n");
    else
        print_table(c.out, rows);
    return exit_ok;
}

std::string decision_summary(step_record const& step) {
    if (step.kind == decision_kind::tool_call)
        return sanitize(step.tool, 64) + " " + sanitize(step.arguments, 80);
    if (step.kind) {
        std::string summary;
        boost::json::value parsed;
        try {
            parsed = parse_record_text(step.decision);
        } catch (std::exception const&) {
        }
        if (parsed.is_object())
            if (auto const* s = parsed.get_object().if_contains("summary"); s && s->is_string())
                summary = s->get_string();
        return std::string(to_string(*step.kind)) + ": " + sanitize(summary, 80);
    }
    return step.decision.empty() ? "-" : "unusable: " + sanitize(step.decision, 80);
}

std::string verdict_summary(step_record const& step) {
    if (!step.policy)
        return "-";
    std::string out = sanitize(step.policy->outcome, 24);
    if (!step.policy->reason.empty())
        out += ": " + sanitize(step.policy->reason, 60);
    return out;
}

std::string outcome_summary(step_record const& step) {
    std::string out;
    if (!step.observation.empty())
        out = sanitize(step.observation, 80);
    if (!step.error.empty())
        out += (out.empty() ? "" : "; ") + std::string("error: ") + sanitize(step.error, 80);
    if (!step.late_observation.empty())
        out += "; late: " + sanitize(step.late_observation, 60);
    return or_dash(out);
}

int show_command(context& c, command_line const& l) {
    auto s = c.open_store();
    auto d = load_run(s, l.positional[0]);
    auto pending = pending_of(d.run, d.approvals);
    if (c.json) {
        boost::json::array steps, approvals;
        for (auto const& step : d.steps)
            steps.push_back(to_json(step));
        for (auto const& a : d.approvals)
            approvals.push_back(to_json(a));
        c.out << json_line({{"run", to_json(d.run)}, {"steps", steps}, {"approvals", approvals}});
        return exit_ok;
    }
    auto const& r = d.run;
    std::string lease = r.lease.owner.empty() ? std::string("none")
                                              : sanitize(r.lease.owner, 80) + " until " + utc_time(r.lease.expiry_ms);
    print_table(c.out, {{"run", sanitize(r.id, 120)},
                        {"status", std::string(to_string(r.status))},
                        {"reason", or_dash(sanitize(r.reason, 60) +
                                           (r.message.empty() ? "" : " (" + sanitize(r.message, 160) + ")"))},
                        {"goal", sanitize(r.goal, 200)},
                        {"created", utc_time(r.created_ms)},
                        {"updated", utc_time(r.updated_ms)},
                        {"policy", or_dash(sanitize(r.policy, 80))},
                        {"lease", lease},
                        {"events", std::to_string(r.event_count) + ", head " + or_dash(sanitize(r.head, 80))}});
    c.out << "\nsteps\n";
    std::vector<std::vector<std::string>> rows{{"  STEP", "STATUS", "DECISION", "VERDICT", "OUTCOME"}};
    for (auto const& step : d.steps)
        rows.push_back({"  " + std::to_string(step.index), std::string(to_string(step.status)), decision_summary(step),
                        verdict_summary(step), outcome_summary(step)});
    if (d.steps.empty())
        c.out << "  none\n";
    else
        print_table(c.out, rows);
    c.out << "\npending approvals\n";
    if (pending.empty())
        c.out << "  none\n";
    for (auto const& a : pending) {
        print_approval(c.out, a, false);
        c.out << "  decide with: agentrt approve " << sanitize(r.id, 120) << " --hash " << sanitize(a.hash)
              << "   (or reject)\n";
    }
    return exit_ok;
}

std::string event_data_summary(event_record const& e) {
    boost::json::object data = e.data;
    data.erase("step");
    return data.empty() ? "-" : sanitize(display_json(data), 120);
}

int events_command(context& c, command_line const& l) {
    auto s = c.open_store();
    auto events = read_events(s, l.positional[0]);
    if (!events)
        throw failure(events.error(), sanitize(events.error().message, 400));
    if (c.json) {
        for (auto const& e : *events)
            c.out << json_line(to_json(e));
        return exit_ok;
    }
    std::vector<std::vector<std::string>> rows{{"SEQ", "TIME", "TYPE", "STEP", "HASH", "DATA"}};
    for (auto const& e : *events) {
        auto const* step = e.data.if_contains("step");
        rows.push_back({std::to_string(e.seq), utc_time(e.at_ms), sanitize(e.type, 40),
                        step ? sanitize(display_json(*step), 20) : "-", sanitize(e.hash.substr(0, 12)),
                        event_data_summary(e)});
    }
    print_table(c.out, rows);
    return exit_ok;
}

int pending_command(context& c, command_line const&) {
    auto s = c.open_store();
    auto pending = pending_approvals(s);
    if (c.json) {
        for (auto const& a : pending)
            c.out << json_line(to_json(a));
        return exit_ok;
    }
    if (pending.empty()) {
        c.out << "no pending approvals\n";
        return exit_ok;
    }
    std::vector<std::vector<std::string>> rows{{"RUN", "STEP", "KIND", "TOOL", "HASH", "REASON"}};
    for (auto const& a : pending) {
        std::string tool;
        if (auto const* t = a.request.if_contains("tool"); t && t->is_object())
            if (auto const* n = t->get_object().if_contains("name"); n && n->is_string())
                tool = n->get_string();
        rows.push_back({sanitize(a.run_id, 40), std::to_string(a.step_index), sanitize(a.kind, 40), sanitize(tool, 64),
                        sanitize(a.hash), sanitize(a.reason, 80)});
    }
    print_table(c.out, rows);
    return exit_ok;
}

int export_command(context& c, command_line const& l) {
    auto s = c.open_store();
    auto events = read_events(s, l.positional[0]);
    if (!events)
        throw failure(events.error(), sanitize(events.error().message, 400));
    for (auto const& e : *events)
        c.out << json_line(to_json(e));
    return exit_ok;
}

} // namespace

std::vector<command> read_commands() {
    return {
        {"runs",
         "runs [--limit N] [--offset N]",
         "list runs, newest first",
         "Shows each run's id, status, reason, steps, last change and goal. --limit (default 20) and --offset\n"
         "page through a large store.",
         {{"--limit", "N", "list at most N runs (default 20)"}, {"--offset", "N", "skip the N newest runs first"}},
         0,
         0,
         runs_command},
        {"show",
         "show RUN",
         "show a run, its steps and its pending approvals",
         "Each step shows its decision, the policy's verdict and a summary of its outcome. Each pending approval\n"
         "shows exactly what it would run, and its hash: `agentrt approve RUN --hash HASH` decides that one\n"
         "and refuses if it changed since.",
         {},
         1,
         1,
         show_command},
        {"events",
         "events RUN",
         "print a run's audit log (with --json: one event per line)",
         "",
         {},
         1,
         1,
         events_command},
        {"pending", "pending", "list every waiting approval across runs", "", {}, 0, 0, pending_command},
        {"export",
         "export RUN",
         "write a run's events as JSON lines, verifiable on their own",
         "The lines are the run's hash-chained events; `agentrt verify --events FILE` checks them without the\n"
         "store, and `--head SEQ:HASH` against a head kept elsewhere.",
         {},
         1,
         1,
         export_command},
    };
}

} // namespace agentrt::cli
