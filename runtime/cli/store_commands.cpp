// verify, check, backup, prune: the health and upkeep of a store.
#include "cli.hpp"

#include <agentrt/runtime/check.hpp>
#include <agentrt/runtime/copy.hpp>
#include <agentrt/runtime/prune.hpp>
#include <agentrt/runtime/reads.hpp>
#include <agentrt/runtime/verify.hpp>

#include <boost/json/parse.hpp>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <ostream>

namespace agentrt::cli {
namespace {

namespace fs = std::filesystem;

struct head_mark {
    std::uint64_t seq = 0;
    std::string hash;
};

std::optional<head_mark> head_of(command_line const& l) {
    auto text = l.value("--head");
    if (!text)
        return std::nullopt;
    auto colon = text->find(':');
    head_mark h;
    if (colon == std::string::npos || colon == 0 || colon + 1 == text->size() ||
        std::from_chars(text->data(), text->data() + colon, h.seq).ptr != text->data() + colon)
        throw usage_error("--head wants SEQ:HASH (an event's number and its hash), got '" + sanitize(*text, 80) + "'");
    h.hash = text->substr(colon + 1);
    return h;
}

// The events [from, to] of one run: each where it belongs, linked to the one before, matching its hash.
std::string first_break(std::vector<event_record> const& events, std::uint64_t from, std::uint64_t to,
                        std::string const& run) {
    if (to >= events.size())
        return "run " + run + " has " + std::to_string(events.size()) + " events; event " + std::to_string(to) +
               " is missing";
    for (std::uint64_t i = from; i <= to; ++i) {
        auto const& e = events[i];
        std::string where = "run " + run + " event " + std::to_string(i) + " (" + e.type + ")";
        if (e.seq != i)
            return "run " + run + ": event " + std::to_string(i) + " is missing (found event " + std::to_string(e.seq) +
                   " in its place)";
        std::string expected_prev = i == 0 ? std::string() : events[i - 1].hash;
        if ((i > from || i == 0) && e.prev != expected_prev)
            return where + " does not link to the event before it: an event before it was altered, replaced or deleted";
        if (event_hash(e) != e.hash)
            return where + " was altered: its content no longer matches its hash";
    }
    return {};
}

std::string head_break(std::vector<event_record> const& events, head_mark const& h, std::string const& run) {
    if (h.seq >= events.size())
        return "the head kept elsewhere names event " + std::to_string(h.seq) + " of run " + run +
               ", but the run has only " + std::to_string(events.size()) + " events: events were deleted";
    if (events[h.seq].hash != h.hash)
        return "event " + std::to_string(h.seq) + " of run " + run + " has hash " + events[h.seq].hash +
               ", not the head kept elsewhere (" + h.hash + "): the log was rewritten";
    return {};
}

int report(context& c, std::string const& broken, std::string const& ok_text) {
    if (!broken.empty()) {
        if (c.json)
            c.out << json_line({{"ok", false}, {"first_break", sanitize(broken)}});
        else
            c.out << "broken: " << sanitize(broken) << "\n";
        return exit_failed;
    }
    if (c.json)
        c.out << json_line({{"ok", true}, {"verified", ok_text}});
    else
        c.out << "ok: " << ok_text << "\n";
    return exit_ok;
}

std::vector<event_record> read_export(std::string const& path) {
    std::ifstream in(path);
    if (!in)
        throw failure("cannot read " + sanitize(path, 200));
    std::vector<event_record> events;
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        if (line.empty())
            continue;
        try {
            events.push_back(event_from_json(parse_record_text(line)));
        } catch (std::exception const& e) {
            throw failure(sanitize(path, 200) + ":" + std::to_string(number) +
                          ": not an exported event: " + sanitize(e.what(), 200));
        }
    }
    return events;
}

int verify_command(context& c, command_line const& l) {
    auto head = head_of(l);
    if (auto file = l.value("--events")) {
        if (!l.positional.empty() || l.has("--from") || l.has("--to"))
            throw usage_error("--events verifies a whole export: give no RUN, --from or --to");
        auto events = read_export(*file);
        if (events.empty())
            throw failure(sanitize(*file, 200) + " holds no events: nothing to verify");
        auto r = verify_events(events);
        std::string broken = r.first_break;
        std::string run = events.empty() ? std::string("-") : events.front().run_id;
        if (broken.empty() && head)
            broken = head_break(events, *head, run);
        return report(c, broken,
                      std::to_string(r.events) + " exported events of run " + sanitize(run, 120) + " chain" +
                          (head ? ", up to the head given" : ""));
    }
    auto s = c.open_store();
    if (l.positional.empty()) {
        if (head || l.has("--from") || l.has("--to"))
            throw usage_error("--from, --to and --head need a RUN");
        auto r = verify(s);
        int status =
            report(c, r.first_break,
                   std::to_string(r.runs) + " runs, " + std::to_string(r.events) + " events; every chain holds");
        return r.damaged ? exit_damaged : status;
    }
    std::string run = l.positional[0];
    // The run's head and its events from one snapshot: a writer between two reads would look like
    // events gone missing.
    auto [recorded, events] = s.read([&](store_reader const& r) { return std::pair{r.run(run), r.events(run)}; });
    if (!recorded)
        throw failure("no run " + sanitize(run, 120));
    if (events.empty())
        return report(c, "run " + run + " has no events", "");
    std::uint64_t last = events.size() - 1;
    std::uint64_t from = l.number("--from", 0), to = l.number("--to", last);
    if (from > to)
        throw usage_error("--from " + std::to_string(from) + " is after --to " + std::to_string(to));
    std::string broken = first_break(events, from, to, run);
    if (broken.empty() && to == last && events.back().hash != recorded->head)
        broken = "run " + run + ": its last event(s) are missing (the chain ends at event " + std::to_string(last) +
                 " before the recorded head)";
    if (broken.empty() && head)
        broken = head_break(events, *head, run);
    return report(c, broken,
                  "run " + sanitize(run, 120) + " events " + std::to_string(from) + " to " + std::to_string(to) +
                      " chain" + (head ? ", and the head given matches" : ""));
}

int check_command(context& c, command_line const& l) {
    auto s = c.open_store();
    check_options options;
    if (!l.positional.empty())
        options.run = l.positional[0];
    options.allow_in_progress = l.has("--in-progress");
    bool always = l.has("--progress");
    options.progress = [&](std::size_t done, std::size_t total) {
        if (always || (total >= 1000 && (done % 1000 == 0 || done == total)))
            c.err << "checked " << done << " of " << total << " runs\n";
    };
    auto r = check_invariants(s, options);
    if (c.json) {
        boost::json::array problems;
        for (auto const& p : r.problems)
            problems.push_back(boost::json::string(sanitize(p)));
        c.out << json_line({{"ok", r.ok()}, {"runs_checked", r.runs_checked}, {"problems", problems}});
    } else {
        for (auto const& p : r.problems)
            c.out << "violation: " << sanitize(p) << "\n";
        if (r.ok())
            c.out << "ok: " << r.runs_checked << " runs checked, no violation\n";
        else
            c.out << r.problems.size() << " violation(s) in " << r.runs_checked << " runs checked\n";
    }
    return r.ok() ? exit_ok : exit_failed;
}

int backup_command(context& c, command_line const& l) {
    auto s = c.open_store();
    std::string destination = l.positional[0];
    if (auto done = s.backup(destination); !done)
        throw failure(done.error(), sanitize(done.error().message, 400));
    if (c.json)
        c.out << json_line({{"backup", destination}});
    else
        c.out << "backed up " << sanitize(s.location(), 200) << " to " << sanitize(destination, 200) << "\n";
    return exit_ok;
}

// A backup stopped by a damaged page leaves a partial data file: remove it, and the directory when
// the backup created it.
std::function<void()> undo_partial_backup(command_line const& l) {
    fs::path destination = l.positional[0];
    std::error_code ec;
    bool existed = fs::exists(destination, ec);
    return [destination, existed] {
        std::error_code ignored;
        fs::remove(destination / "data.mdb", ignored);
        if (!existed)
            fs::remove(destination, ignored);
    };
}

int copy_command(context& c, command_line const& l) {
    auto open = [](std::string const& where, store_access access) {
        auto s = agentrt::store::open(where, {.access = access});
        if (!s)
            throw failure(s.error(), sanitize(s.error().to_string(), 400));
        return std::move(*s);
    };
    auto from = open(l.positional[0], store_access::operator_only);
    auto to = open(l.positional[1], store_access::writer);
    auto copied = copy_store(from, to);
    if (!copied)
        throw failure(copied.error(), sanitize(copied.error().message, 400) + "; nothing copied");
    if (c.json)
        c.out << json_line({{"runs", copied->runs}, {"events", copied->events}, {"to", sanitize(to.location(), 200)}});
    else
        c.out << "copied " << copied->runs << " run(s) and " << copied->events << " event(s) from "
              << sanitize(from.location(), 200) << " to " << sanitize(to.location(), 200) << "\n";
    return exit_ok;
}

int prune_command(context& c, command_line const& l) {
    auto before = l.value("--before");
    if (!before)
        throw usage_error("prune needs --before DATE");
    std::int64_t before_ms = parse_utc_date(*before, "--before");
    bool dry = l.has("--dry-run");
    auto s = c.open_store();
    auto pruned = prune(s, before_ms, dry);
    if (!pruned)
        throw failure(pruned.error(), sanitize(pruned.error().message, 400) + "; nothing pruned");
    if (c.json) {
        boost::json::array ids;
        for (auto const& id : pruned->runs)
            ids.push_back(boost::json::string(id));
        c.out << json_line({{"dry_run", dry}, {"runs", ids}});
        return exit_ok;
    }
    for (auto const& id : pruned->runs)
        c.out << (dry ? "would prune " : "pruned ") << sanitize(id, 120) << "\n";
    c.out << (dry ? "would prune " : "pruned ") << pruned->runs.size() << " run(s) that ended before "
          << utc_time(before_ms) << "\n";
    return exit_ok;
}

} // namespace

std::vector<command> store_commands() {
    return {
        {"verify",
         "verify [RUN [--from SEQ] [--to SEQ]] [--head SEQ:HASH] [--events FILE]",
         "walk the event hash chains and name the first break",
         "Without RUN: every run's chain, and the chain of runs (a deleted run breaks it; runs removed by\n"
         "prune are recorded and accepted). With RUN: that run's events, from --from to --to. --head SEQ:HASH\n"
         "checks a head kept elsewhere: event SEQ must have hash HASH. --events FILE verifies an export\n"
         "(`agentrt export`) without the store.",
         {{"--from", "SEQ", "the first event of RUN to verify (default 0)"},
          {"--to", "SEQ", "the last event of RUN to verify (default: its last)"},
          {"--head", "SEQ:HASH", "event SEQ must have hash HASH, kept elsewhere"},
          {"--events", "FILE", "verify an export instead of the store"}},
         0,
         1,
         verify_command},
        {"check",
         "check [RUN] [--in-progress] [--progress]",
         "check the runtime's invariants over every run (or one)",
         "The checker the test kit uses: no step's tool started twice without a grant, no approval granting\n"
         "twice, every tool start closed, nothing left running without a lease, waiting runs waiting on\n"
         "something. Prints each violation; exit status 1 when there is any. Progress goes to stderr for\n"
         "stores of 1000 runs or more (every run with --progress). On a store in use, --in-progress does not\n"
         "count steps deciding or executing under a held lease as violations.",
         {{"--in-progress", "", "steps deciding or executing under a held lease are not violations"},
          {"--progress", "", "report progress on stderr after every run"}},
         0,
         1,
         check_command},
        {"backup",
         "backup DEST",
         "write a compact, consistent copy of the store to a new directory",
         "Safe while the store is in use. DEST is created owner-only and must not hold a store.",
         {},
         1,
         1,
         backup_command,
         undo_partial_backup},
        {"copy",
         "copy SOURCE DEST",
         "copy a store into a new one, of any engine (LMDB to PostgreSQL and back)",
         "SOURCE and DEST are store locations (a directory, lmdb:PATH, postgresql://...). DEST is created\n"
         "and must hold no run; every run of SOURCE, as of one snapshot, is copied in one transaction with\n"
         "its event chain, so `agentrt verify` passes on the copy. Stop SOURCE's writers first. Needs no\n"
         "--store.",
         {},
         2,
         2,
         copy_command},
        {"prune",
         "prune --before DATE [--dry-run]",
         "remove runs that ended before a date (UTC)",
         "Removes, in one transaction, every completed, failed or cancelled run last changed before DATE\n"
         "(2026-01-31 or 2026-01-31T12:00:00Z). What it removes is recorded, so `agentrt verify` still\n"
         "passes. --dry-run lists the runs without removing them. Take a backup first.",
         {{"--before", "DATE", "remove runs that ended before DATE (UTC)"},
          {"--dry-run", "", "list the runs, remove nothing"}},
         0,
         0,
         prune_command},
    };
}

} // namespace agentrt::cli
