// approve, reject, cancel: what an operator decides.
#include "cli.hpp"

#include <agentrt/runtime/operator.hpp>
#include <agentrt/runtime/reads.hpp>

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <pwd.h>
#include <unistd.h>
#include <utility>

namespace agentrt::cli {
namespace {

std::string login_name() {
    char name[256];
    if (::getlogin_r(name, sizeof name) == 0 && name[0])
        return name;
    if (passwd const* pw = ::getpwuid(::geteuid()); pw && pw->pw_name && pw->pw_name[0])
        return pw->pw_name;
    if (char const* user = std::getenv("USER"); user && *user)
        return user;
    return {};
}

// "90s", "30m", "4h", "7d" (or "500ms"): a whole number and one unit. Bounded so that adding it to
// a record time cannot overflow.
std::chrono::milliseconds parse_duration(std::string_view text, std::string_view what) {
    constexpr std::pair<std::string_view, std::uint64_t> units[] = {
        {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}, {"d", 86'400'000}};
    constexpr std::uint64_t longest_ms = 100ull * 365 * 86'400'000; // a century
    std::uint64_t n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
    for (auto const& [name, ms] : units)
        if (ec == std::errc{} && end != text.data() && unit == name) {
            if (n == 0 || n > longest_ms / ms)
                throw usage_error(std::string(what) + " wants a duration above zero and at most a century, got '" +
                                  sanitize(text, 40) + "'");
            return std::chrono::milliseconds(n * ms);
        }
    throw usage_error(std::string(what) +
                      " wants a duration: a whole number and a unit (ms, s, m, h, d) like 30m or 7d, got '" +
                      sanitize(text, 40) + "'");
}

operator_options options_from(command_line const& l) {
    operator_options o;
    if (auto by = l.value("--by")) {
        if (by->empty())
            throw usage_error("--by needs a name: who decides is recorded");
        o.who = *by;
    } else {
        o.who = login_name();
        if (o.who.empty())
            throw usage_error("cannot tell who you are: name yourself with --by NAME");
    }
    o.note = l.value("--note").value_or("");
    if (auto ttl = l.value("--approval-ttl"))
        o.approval_ttl = parse_duration(*ttl, "--approval-ttl");
    return o;
}

approval_record choose(std::vector<approval_record> const& pending, command_line const& l, std::string const& run,
                       run_status status) {
    std::vector<approval_record> candidates = pending;
    if (auto step = l.value("--step")) {
        auto index = l.number("--step", 0);
        std::erase_if(candidates, [&](approval_record const& a) { return a.step_index != index; });
    }
    if (auto hash = l.value("--hash")) {
        if (hash->empty())
            throw usage_error("--hash wants the hash of the approval shown, got an empty one");
        for (auto const& a : candidates)
            if (a.hash == *hash)
                return a;
        std::string now = candidates.empty() ? std::string("none is pending")
                                             : "the pending one is " + sanitize(candidates.front().hash);
        throw failure("no pending approval of run " + sanitize(run, 120) + " has hash " + sanitize(*hash, 80) + " (" +
                      now + "): it changed or was decided since it was shown; nothing decided. Run `agentrt show " +
                      sanitize(run, 120) + "` and decide again");
    }
    if (candidates.empty())
        throw failure("run " + sanitize(run, 120) + " (" + std::string(to_string(status)) +
                      ") has no pending approval" + (l.has("--step") ? " at that step" : ""));
    if (candidates.size() > 1)
        throw usage_error("run " + sanitize(run, 120) + " has " + std::to_string(candidates.size()) +
                          " pending approvals: choose one with --step N or --hash H");
    return candidates.front();
}

// A typed y on the terminal, the only confirmation without --yes or --hash.
bool confirmed(std::ostream& view, bool approving) {
    view << (approving ? "Approve" : "Reject") << " exactly this request? Type y and Enter to confirm: " << std::flush;
    std::string answer;
    if (!std::getline(std::cin, answer))
        return false;
    return answer == "y" || answer == "Y" || answer == "yes";
}

int decide(context& c, command_line const& l, bool approving) {
    if (l.has("--yes") && l.has("--hash"))
        throw usage_error("--yes and --hash are two ways to confirm: give one");
    auto options = options_from(l);
    std::string run = l.positional[0];
    auto s = c.open_store();
    auto details = read_run(s, run);
    if (!details)
        throw failure(details.error(), sanitize(details.error().message, 400));
    auto shown = choose(pending_of(details->run, details->approvals), l, run, details->run.status);
    // Under --json the approval goes to stderr, so standard output stays one JSON object.
    std::ostream& view = c.json ? c.err : c.out;
    print_approval(view, shown, l.has("--full"));
    if (!l.has("--yes") && !l.has("--hash")) {
        if (!::isatty(STDIN_FILENO)) {
            c.err << "agentrt: nothing decided: no terminal to confirm on. Pass --yes to "
                  << (approving ? "approve" : "reject") << " what is shown above, or --hash " << sanitize(shown.hash)
                  << "\n";
            return exit_usage;
        }
        if (!confirmed(view, approving)) {
            c.err << "agentrt: nothing decided\n";
            return exit_usage;
        }
    }
    auto decided = approving ? approve(s, shown.run_id, shown.step_index, shown.hash, options)
                             : reject(s, shown.run_id, shown.step_index, shown.hash, options);
    if (!decided)
        throw failure(decided.error(), sanitize(decided.error().message, 400) + "; nothing decided");
    if (c.json)
        c.out << json_line(to_json(*decided));
    else
        c.out << (approving ? "approved" : "rejected") << " step " << sanitize(run, 120) << '/' << shown.step_index
              << " (hash " << sanitize(shown.hash) << ") by " << sanitize(options.who, 80) << "\n";
    return exit_ok;
}

int approve_command(context& c, command_line const& l) {
    return decide(c, l, true);
}
int reject_command(context& c, command_line const& l) {
    return decide(c, l, false);
}

int cancel_command(context& c, command_line const& l) {
    auto options = options_from(l);
    auto s = c.open_store();
    auto run = cancel(s, l.positional[0], l.value("--reason").value_or("cancelled by the operator"), options);
    if (!run)
        throw failure(run.error(), sanitize(run.error().message, 400));
    if (c.json)
        c.out << json_line(to_json(*run));
    else
        c.out << "cancelled run " << sanitize(run->id, 120) << " (" << sanitize(run->message, 200) << ")\n";
    return exit_ok;
}

constexpr std::string_view decide_help =
    "Prints exactly what would be decided: the tool, every argument with its size, the approval's kind,\n"
    "reason, capability, presentation and hash. Then it asks for a typed y on the terminal, unless --yes or\n"
    "--hash is given. The decision is made with the hash that was printed: if the request changed in\n"
    "between, it is refused and nothing is decided.\n\n"
    "Without a terminal and without --yes or --hash, nothing is decided (exit status 2).";

std::vector<option_spec> decide_options(bool approving) {
    std::vector<option_spec> options{
        {"--hash", "H", "decide exactly the approval whose hash `agentrt show` printed; refused if it changed"},
        {"--yes", "", "decide what is printed without asking"},
        {"--step", "N", "the step, when the run waits on more than one"},
        {"--by", "NAME", "who decides (default: your login name)"},
        {"--note", "TEXT", "why, recorded with the decision"},
        {"--full", "", "print long values whole instead of head and tail"}};
    if (approving)
        options.push_back(
            {"--approval-ttl", "DURATION", "refuse an approval requested longer ago (30m, 4h, 7d); it stays pending"});
    return options;
}

} // namespace

std::vector<command> decide_commands() {
    return {
        {"approve",
         "approve RUN [--hash H | --yes] [--step N] [--by NAME] [--note TEXT] [--approval-ttl DURATION] [--full]",
         "approve a pending approval, after showing exactly what it runs", decide_help, decide_options(true), 1, 1,
         approve_command},
        {"reject", "reject RUN [--hash H | --yes] [--step N] [--by NAME] [--note TEXT] [--full]",
         "reject a pending approval (the step fails and the run fails approval_rejected)", decide_help,
         decide_options(false), 1, 1, reject_command},
        {"cancel",
         "cancel RUN [--reason TEXT] [--by NAME]",
         "cancel a run that has not ended",
         "A step left deciding, executing or awaiting approval is marked interrupted; a tool still running\n"
         "elsewhere has its outcome appended late.",
         {{"--reason", "TEXT", "why, recorded with the run (default: cancelled by the operator)"},
          {"--by", "NAME", "who cancels (default: your login name)"}},
         1,
         1,
         cancel_command},
    };
}

} // namespace agentrt::cli
