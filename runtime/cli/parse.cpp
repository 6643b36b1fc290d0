// The command line of agentrt, parsed by CLI11 against the table of commands, and its --help.
//
// CLI11 (header-only, packaged by Debian as libcli11-dev) matches options, values and commands; what
// it leaves over is turned here into agentrt's own messages: an unknown command or option names the
// nearest one when it looks like a typo, which CLI11 2.1.2 does not do.
#include "cli.hpp"

// The whole of CLI11: its parts define each other's inline members (App needs Config's).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <memory>
#include <sstream>

namespace agentrt::cli {
namespace {

constexpr std::string_view global_usage = "usage: agentrt [--store PATH] [--json] ";
// CLI11 takes at most this many words for one option; a command takes far fewer (checked afterwards).
constexpr int any_number_of_words = 1 << 20;

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours
// each cost 1, so "aprove", "approv" and "aprpove" are all 1 from "approve".
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i)
        d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j)
        d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

command const* find_command(std::vector<command> const& commands, std::string_view name) {
    for (auto const& c : commands)
        if (c.name == name)
            return &c;
    return nullptr;
}

// "  --hash H  what it does" for every option CLI11 will accept, so help and parser cannot disagree.
void print_options(std::ostream& out, CLI::App const& app) {
    std::vector<std::vector<std::string>> rows;
    for (CLI::Option const* o : app.get_options([](CLI::Option const* o) { return o->nonpositional(); })) {
        std::string name = o->get_name();
        if (o->get_type_size() > 0)
            name += " " + o->get_type_name();
        rows.push_back({"  " + name, o->get_description()});
    }
    print_table(out, rows);
}

std::string tool_help(std::vector<command> const& commands, CLI::App const& app) {
    std::ostringstream out;
    out << global_usage
        << "COMMAND [ARGS]\n\n"
           "Shows and decides what a store of agentrt runs holds. The store is the directory given by --store,\n"
           "or by the environment variable AGENTRT_STORE; agentrt never creates or migrates one.\n\n"
           "commands:\n";
    std::vector<std::vector<std::string>> rows;
    for (auto const& c : commands)
        rows.push_back({"  " + std::string(c.name), std::string(c.summary)});
    print_table(out, rows);
    out << "\noptions:\n";
    print_options(out, app);
    out << "\n`agentrt COMMAND --help` describes a command.\n"
           "exit status: 0 success, 1 a failed operation or check, 2 a usage error or an unconfirmed decision\n";
    return out.str();
}

std::string command_help(command const& c, CLI::App const& app) {
    std::ostringstream out;
    out << global_usage << c.synopsis << "\n\n" << c.summary << ".\n";
    if (!c.help.empty())
        out << "\n" << c.help << "\n";
    out << "\noptions:\n";
    print_options(out, app);
    out << "\n--store PATH and --json may come before or after the command; see agentrt --help.\n";
    return out.str();
}

// CLI11 asks its formatter for the help of the command --help was given to.
class help_formatter : public CLI::FormatterBase {
public:
    explicit help_formatter(std::vector<command> const& commands) : commands_(commands) {}

    std::string make_help(CLI::App const* app, std::string, CLI::AppFormatMode) const override {
        if (command const* c = app->get_parent() ? find_command(commands_, app->get_name()) : nullptr)
            return command_help(*c, *app);
        return tool_help(commands_, *app);
    }

private:
    std::vector<command> const& commands_;
};

std::vector<std::string> option_names(CLI::App const& app) {
    std::vector<std::string> names;
    for (CLI::Option const* o : app.get_options([](CLI::Option const* o) { return o->nonpositional(); }))
        names.push_back(o->get_name());
    return names;
}

std::string did_you_mean(std::string_view typed, std::vector<std::string> const& candidates, char quote) {
    auto near = nearest_names(typed, candidates);
    if (near.empty())
        return {};
    std::string out = "; did you mean ";
    for (std::size_t i = 0; i < near.size(); ++i)
        out += (i == 0                 ? ""
                : i + 1 == near.size() ? " or "
                                       : ", ") +
               std::string(quote ? 1 : 0, quote) + near[i] + std::string(quote ? 1 : 0, quote);
    return out + "?";
}

// "; see agentrt --help", or after a question "? See agentrt --help".
std::string see(std::string const& suggestion, std::string const& where) {
    return suggestion.empty() ? "; see " + where + " --help" : suggestion + " See " + where + " --help";
}

// CLI11 leaves over, on the tool, every word nothing matched: an unknown command or option.
[[noreturn]] void refuse_left_over(std::string word, CLI::App const& app, CLI::App const* sub,
                                   std::vector<command> const& commands) {
    if (!word.starts_with("-")) {
        if (sub)
            throw usage_error("unexpected argument '" + sanitize(word, 40) + "' for agentrt " + sub->get_name());
        std::vector<std::string> names;
        for (auto const& c : commands)
            names.emplace_back(c.name);
        throw usage_error("unknown command '" + sanitize(word, 40) + "'" +
                          see(did_you_mean(word, names, '\''), "agentrt"));
    }
    if (auto eq = word.find('='); eq != std::string::npos && word.starts_with("--"))
        word.resize(eq);
    auto names = option_names(app);
    if (sub) {
        auto own = option_names(*sub);
        names.insert(names.end(), own.begin(), own.end());
    }
    std::string where = sub ? "agentrt " + sub->get_name() : std::string("agentrt");
    throw usage_error("unknown option " + sanitize(word, 40) + " for " + where +
                      see(did_you_mean(word, names, 0), where));
}

// CLI11's wording of two mistakes, said as the rest of the command says things.
std::string reworded(CLI::ParseError const& e) {
    std::string m = e.what();
    if (auto at = m.find(": 1 required "); at != std::string::npos && m.ends_with(" missing"))
        return m.substr(0, at) + " needs a value";
    if (auto at = m.find(" was given a disallowed flag override"); at != std::string::npos)
        return "--" + m.substr(0, at) + " takes no value";
    return m;
}

std::unique_ptr<CLI::App> make_app(std::vector<command> const& commands) {
    auto app = std::make_unique<CLI::App>("", "agentrt");
    // Set before the commands are added: they inherit these.
    app->formatter(std::make_shared<help_formatter>(commands));
    app->set_help_flag("-h,--help", "this help");
    app->fallthrough();            // global options may come after the command
    app->require_subcommand(0, 1); // one command; a second command's name is an argument of the first
    app->allow_extras();           // kept for refuse_left_over's messages
    app->add_option("--store")->type_name("PATH")->description("the store directory (default: $AGENTRT_STORE)");
    app->add_flag("--json")->disable_flag_override()->description("JSON output (one object per line) for programs");
    for (auto const& c : commands) {
        CLI::App* sub = app->add_subcommand(std::string(c.name), std::string(c.summary));
        sub->allow_extras(false);
        for (auto const& o : c.options) {
            CLI::Option* added = o.value.empty()
                                     ? sub->add_flag(std::string(o.name))->disable_flag_override()
                                     : sub->add_option(std::string(o.name))->type_name(std::string(o.value));
            added->description(std::string(o.description));
        }
        sub->add_option("ARGS")->expected(0, any_number_of_words)->allow_extra_args();
    }
    return app;
}

void fill(command_line& line, CLI::App const& sub) {
    line.command = sub.get_name();
    for (CLI::Option const* o : sub.get_options()) {
        if (o->count() == 0 || o == sub.get_help_ptr())
            continue;
        if (!o->nonpositional())
            line.positional = o->results();
        else if (o->get_type_size() == 0)
            line.flags.insert(o->get_name());
        else
            line.values[o->get_name()] = o->results().back();
    }
}

} // namespace

parsed_line parse_command_line(std::vector<std::string> const& args, std::vector<command> const& commands) {
    // CLI11 2.1.2 hands the words after `--` in a command to the tool, and still reads options among
    // them; so they are split off here, and are the command's arguments whatever they look like.
    auto dashes = std::find(args.begin(), args.end(), "--");
    std::vector<std::string> reversed(args.begin(), dashes);
    std::reverse(reversed.begin(), reversed.end());
    std::vector<std::string> after(dashes == args.end() ? dashes : dashes + 1, args.end());

    auto app = make_app(commands);
    parsed_line out;
    auto selected = [&]() -> CLI::App const* {
        auto subs = app->get_subcommands();
        return subs.empty() ? nullptr : subs.front();
    };
    try {
        app->parse(reversed);
    } catch (CLI::CallForHelp const&) {
        out.found = selected() ? find_command(commands, selected()->get_name()) : nullptr;
        out.help = app->help();
        return out;
    } catch (CLI::ParseError const& e) {
        out.found = selected() ? find_command(commands, selected()->get_name()) : nullptr;
        throw parse_refusal(sanitize(reworded(e), 200), out.found);
    }
    CLI::App const* sub = selected();
    out.found = sub ? find_command(commands, sub->get_name()) : nullptr;
    try {
        auto left = app->remaining();
        if (!sub && dashes != args.end())
            throw usage_error("-- ends a command's options, so it goes after the command: agentrt COMMAND -- ARGS");
        if (!left.empty())
            refuse_left_over(left.front(), *app, sub, commands);
        if (!sub)
            throw usage_error("no command given");
    } catch (usage_error const& e) {
        throw parse_refusal(e.what(), out.found);
    }
    fill(out.line, *sub);
    out.line.positional.insert(out.line.positional.end(), after.begin(), after.end());
    if (auto const& c = *out.found; out.line.positional.size() < c.min_args || out.line.positional.size() > c.max_args)
        throw parse_refusal("wrong number of arguments for agentrt " + out.line.command + ": it takes " +
                                (c.min_args == c.max_args
                                     ? std::to_string(c.min_args)
                                     : std::to_string(c.min_args) + " to " + std::to_string(c.max_args)) +
                                ", got " + std::to_string(out.line.positional.size()),
                            out.found);
    if (auto store = app->get_option("--store"); store->count() > 0)
        out.line.values["--store"] = store->results().back();
    if (app->get_option("--json")->count() > 0)
        out.line.flags.insert("--json");
    return out;
}

std::vector<std::string> nearest_names(std::string_view typed, std::vector<std::string> const& candidates) {
    // A typo is a slip or two, and fewer in a short word: "rnus" is runs, "xyz" is not anything.
    if (typed.size() > 64)
        return {};
    std::size_t allowed = std::clamp<std::size_t>(typed.size() / 3, 1, 2);
    std::size_t best = allowed + 1;
    std::vector<std::string> out;
    for (auto const& name : candidates) {
        std::size_t d = edit_distance(typed, name);
        if (d < best) {
            best = d;
            out.clear();
        }
        if (d == best && std::find(out.begin(), out.end(), name) == out.end())
            out.push_back(name);
    }
    return out;
}

} // namespace agentrt::cli
