// agentrt's demonstration: a side effect lost in a crash is never re-run on its own.
//
// A scripted agent looks up an order and mails the customer. The process is killed right after the
// mail left and before its outcome was recorded. A second process resumes and finds the run waiting
// on an approval; an operator inspects it with `agentrt show` and approves it with `agentrt approve`;
// a third process finishes the run. The mail went out exactly twice (once lost, once approved), and
// never a third time.
#include "shop.hpp"
#include <agentrt/testkit/scripted_agent.hpp>

#include <agentrt/runtime.hpp>
#include <agentrt/testkit/scenario.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

std::string const mail = R"({"to":"ana@customers.example","subject":"Your refund for ord-1042",)"
                         R"("body":"The refund of 19.99 is on its way."})";

agentrt::testkit::scenario shop_scenario(fs::path const& outbox) {
    agentrt::testkit::scenario s;
    s.tools = [outbox] {
        return shop::tools{shop::lookup_order{}, shop::send_email{outbox}, shop::wipe_account{}}.table();
    };
    s.policy = [] { return agentrt::lower_policy(shop::policy{}, shop::tools{}); };
    s.agent = [] {
        return std::make_unique<agentrt::testkit::scripted_agent>(std::vector<agentrt::decision>{
            agentrt::decision::call("lookup_order", R"({"order_id":"ord-1042"})"),
            agentrt::decision::call("send_email", mail), agentrt::decision::complete("ana was told about her refund")});
    };
    s.goal = "tell the customer of ord-1042 about the refund";
    return s;
}

void section(std::string_view title) {
    std::string rule;
    for (std::size_t i = title.size(); i < 70; ++i)
        rule += "━";
    std::cout << "\n━━ " << title << " " << rule << "\n";
}

std::vector<std::string> lines_of(fs::path const& file) {
    std::vector<std::string> lines;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

void show_outbox(fs::path const& outbox) {
    auto lines = lines_of(outbox);
    std::cout << "   outbox: " << lines.size() << " mail(s)\n";
    for (auto const& l : lines)
        std::cout << "     " << l << "\n";
}

// Runs a command, its output indented under a "$ command" line; returns its exit status.
int run(std::vector<std::string> const& argv) {
    std::string shown = "$";
    for (auto const& a : argv)
        shown += " " + (a.find(' ') == std::string::npos ? a : "'" + a + "'");
    std::cout << shown << "\n" << std::flush;
    pid_t child = ::fork();
    if (child == 0) {
        std::vector<char*> args;
        for (auto const& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        std::perror("execv");
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

} // namespace

int main(int argc, char** argv) {
    fs::path work =
        argc > 1 ? fs::path(argv[1]) : fs::temp_directory_path() / ("agentrt-demo-" + std::to_string(::getpid()));
    fs::remove_all(work);
    fs::create_directories(work);
    fs::path const outbox = work / "outbox";
    std::string const store = (work / "store").string();
    std::string const cli = AGENTRT_CLI;

    section("1. A run, and a crash at the worst moment");
    std::cout << "   The agent looks up ord-1042, then mails the customer; the shop's policy lets mail to\n"
                 "   customers go out without asking anyone. The process is killed (SIGKILL) right after\n"
                 "   the mail left and before its outcome was recorded. A second process then resumes.\n";
    auto s = shop_scenario(outbox);
    s.store = work;
    s.deterministic = false;                        // real time, as the operator's command and the third process see it
    s.mode = agentrt::testkit::crash_mode::process; // a real process, really killed
    s.answer = [](agentrt::approval_record const&) { return agentrt::testkit::operator_answer::leave; };
    auto first = agentrt::testkit::run_scenario(s, {{1, agentrt::testkit::crash_point::after_effect_before_outcome}});
    std::cout << "   crashes: " << first.crashes_fired.size() << ", resumes: " << first.resumes << ", run "
              << first.run.id << " is " << agentrt::to_string(first.run.status) << "\n";
    show_outbox(outbox);
    std::cout << "   The resumed process did not send again: it cannot know whether the mail left, so the\n"
                 "   step became an interrupted side effect that waits for a person.\n";

    section("2. The operator looks at what would run again");
    run({cli, "--store", store, "show", "run-1"});

    section("3. ... and approves exactly that request");
    run({cli, "--store", store, "approve", "run-1", "--yes", "--by", "demo-operator"});

    section("4. A third process resumes the run");
    pid_t child = ::fork();
    if (child == 0) {
        auto opened = agentrt::store::open(store, {agentrt::durability::process_crash});
        if (!opened)
            ::_exit(1);
        auto table = s.tools();
        auto policy = s.policy();
        auto agent = s.agent();
        agentrt::driver d(*opened, table, policy, *agent);
        auto run = d.resume("run-1");
        ::_exit(run && run->status == agentrt::run_status::completed ? 0 : 1);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    std::cout << "   the resume " << (WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "completed the run" : "FAILED")
              << "\n";
    show_outbox(outbox);
    auto sent = lines_of(outbox).size();
    std::cout << "   The mail went out " << sent
              << " times: once lost in the crash, once approved; both carry\n"
                 "   the same idempotency key, so a mail service could recognise the repeat.\n";

    section("5. The audit log, and an offline check of the store");
    run({cli, "--store", store, "events", "run-1"});
    int check = run({cli, "--store", store, "check"});

    section("6. The shop's own property tests (never, fuzz_check, explore)");
    std::string tests = AGENTRT_SHOP_TESTS;
    std::fflush(nullptr);
    int tested = std::system((tests + " --no-intro=true --no-version=true 2>&1 | grep -E "
                                      "'^(explore|never|fuzz_check|\\[doctest\\] (test cases|Status))'")
                                 .c_str());

    bool ok = sent == 2 && check == 0 && tested == 0;
    std::cout << "\n"
              << (ok ? "The promise held: the side effect ran exactly twice, once lost and once approved."
                     : "Something went wrong: see above.")
              << "\n   (store and outbox kept in " << work.string() << ")\n";
    return ok ? 0 : 1;
}
