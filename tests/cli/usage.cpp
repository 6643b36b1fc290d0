// The command line itself: help, exit statuses, where the store comes from, and stores it refuses.
#include "command.hpp"

using namespace cli_test;

TEST_CASE("--help describes the tool and lists every command, with exit status 0") {
    auto o = run_command({"--help"});
    SHOW(o);
    CHECK(o.status == 0);
    for (char const* name : {"runs", "show", "events", "pending", "export", "approve", "reject", "cancel", "verify",
                             "check", "backup", "prune"})
        CHECK(o.out.find(std::string("\n  ") + name + " ") != std::string::npos);
    CHECK(o.out.find("AGENTRT_STORE") != std::string::npos);
}

TEST_CASE("each command has its own --help") {
    auto o = run_command({"approve", "--help"});
    SHOW(o);
    CHECK(o.status == 0);
    CHECK(o.out.starts_with("usage: agentrt [--store PATH] [--json] approve RUN"));
    CHECK(o.out.find("--hash H") != std::string::npos);
    CHECK(o.out.find("Without a terminal") != std::string::npos);
    auto prune = run_command({"prune", "--help"});
    CHECK(prune.status == 0);
    CHECK(prune.out.find("--before") != std::string::npos);
}

TEST_CASE("a usage error exits 2 and says what was wrong") {
    auto none = run_command({});
    CHECK(none.status == 2);
    CHECK(none.err.find("no command given") != std::string::npos);
    auto unknown = run_command({"frobnicate"});
    CHECK(unknown.status == 2);
    CHECK(unknown.err.find("unknown command 'frobnicate'") != std::string::npos);
    auto option = run_command({"--store", "/nonexistent", "runs", "--yes"});
    CHECK(option.status == 2);
    CHECK(option.err.find("unknown option --yes for agentrt runs") != std::string::npos);
    auto count = run_command({"--store", "/nonexistent", "show"});
    CHECK(count.status == 2);
    auto number = run_command({"--store", "/nonexistent", "runs", "--limit", "many"});
    CHECK(number.status == 2);
    CHECK(number.err.find("--limit wants a non-negative whole number, got 'many'") != std::string::npos);
    auto missing = run_command({"--store", "/nonexistent", "runs", "--limit"});
    CHECK(missing.status == 2);
    CHECK(missing.err.find("agentrt: --limit needs a value") != std::string::npos);
    auto valued = run_command({"--store", "/nonexistent", "approve", "run-1", "--yes=1"});
    CHECK(valued.status == 2);
    CHECK(valued.err.find("agentrt: --yes takes no value") != std::string::npos);
}

TEST_CASE("without --store or AGENTRT_STORE the command is a usage error") {
    auto o = run_command({"runs"});
    SHOW(o);
    CHECK(o.status == 2);
    CHECK(o.err.find("pass --store PATH or set AGENTRT_STORE") != std::string::npos);
}

TEST_CASE("an empty --store is a usage error") {
    auto o = run_command({"--store", "", "runs"});
    SHOW(o);
    CHECK(o.status == 2);
    CHECK(o.err.find("--store wants a store directory, got an empty path") != std::string::npos);
}

TEST_CASE("runs --limit 0 and an empty --hash are usage errors") {
    world w;
    {
        auto s = w.open();
        run_to_completion(w, s);
    }
    auto none = on_store(w.store_path, {"runs", "--limit", "0"});
    CHECK(none.status == 2);
    CHECK(none.err.find("--limit wants at least 1 run") != std::string::npos);
    auto far = on_store(w.store_path, {"runs", "--offset", "1", "--limit", "18446744073709551615"});
    CHECK(far.status == 0);
    CHECK(far.out == "no runs at this offset\n");
    auto empty = on_store(w.store_path, {"approve", "run-1", "--by", "ana", "--hash", ""});
    CHECK(empty.status == 2);
    CHECK(empty.err.find("--hash wants the hash of the approval shown") != std::string::npos);
}

TEST_CASE("the store may come from AGENTRT_STORE") {
    world w;
    {
        auto s = w.open();
        run_to_completion(w, s);
    }
    auto o = run_command({"runs"}, {.env = {"AGENTRT_STORE=" + w.store_path.string()}});
    SHOW(o);
    CHECK(o.status == 0);
    CHECK(o.out.find("run-1") != std::string::npos);
}

TEST_CASE("the command never creates a store") {
    world w;
    auto o = on_store(w.store_path, {"runs"});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.err.find("no store at") != std::string::npos);
    CHECK_FALSE(fs::exists(w.store_path));
}

TEST_CASE("a store of a newer schema version is refused, saying the store is newer") {
    world w;
    {
        auto s = w.open();
        run_to_completion(w, s);
        s.write([](agentrt::store_writer& wr) { wr.put_meta("schema_version", "4"); });
    }
    auto o = on_store(w.store_path, {"runs"});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.err.find("has schema version 4, newer than this library's 3") != std::string::npos);
}

TEST_CASE("a store of an older schema version is refused and not migrated") {
    world w;
    {
        auto s = w.open();
        s.write([](agentrt::store_writer& wr) { wr.put_meta("schema_version", "0"); });
    }
    auto o = on_store(w.store_path, {"runs"});
    SHOW(o);
    CHECK(o.status == 1);
    CHECK(o.err.find("older than 3; an operator never migrates") != std::string::npos);
    raw_lmdb raw(w.store_path);
    CHECK(raw.get("meta", "schema_version") == "0");
}

TEST_CASE("every command's --help exits 0 and prints its usage and its options") {
    for (char const* name : {"runs", "show", "events", "pending", "export", "approve", "reject", "cancel", "verify",
                             "check", "backup", "prune"}) {
        CAPTURE(name);
        for (char const* flag : {"--help", "-h"}) {
            auto o = run_command({name, flag});
            SHOW(o);
            CHECK(o.status == 0);
            CHECK(o.out.starts_with(std::string("usage: agentrt [--store PATH] [--json] ") + name));
            CHECK(o.out.find("\noptions:\n  --help") != std::string::npos);
            CHECK(o.err.empty());
        }
    }
    auto runs = run_command({"--store", "/nonexistent", "runs", "--help"});
    CHECK(runs.status == 0);
    CHECK(runs.out.find("\n  --limit N   list at most N runs (default 20)\n") != std::string::npos);
}

TEST_CASE("a mistyped command names the nearest one and exits 2") {
    auto o = run_command({"aprove", "run-1"});
    SHOW(o);
    CHECK(o.status == 2);
    CHECK(o.err.starts_with("agentrt: unknown command 'aprove'; did you mean 'approve'? See agentrt --help\n"));
    auto swapped = run_command({"rnus"});
    CHECK(swapped.status == 2);
    CHECK(swapped.err.find("did you mean 'runs'?") != std::string::npos);
    auto far = run_command({"frobnicate"});
    CHECK(far.status == 2);
    CHECK(far.err.find("did you mean") == std::string::npos);
}

TEST_CASE("a mistyped option names the nearest one of the command and exits 2") {
    auto o = run_command({"--store", "/nonexistent", "runs", "--limt", "3"});
    SHOW(o);
    CHECK(o.status == 2);
    CHECK(o.err.starts_with("agentrt: unknown option --limt for agentrt runs; did you mean --limit? See agentrt runs "
                            "--help\n"));
    auto global = run_command({"--store", "/nonexistent", "runs", "--jsno"});
    CHECK(global.status == 2);
    CHECK(global.err.find("did you mean --json?") != std::string::npos);
}

TEST_CASE("global options may come after the command, and words after -- are the command's arguments") {
    world w;
    {
        auto s = w.open();
        run_to_completion(w, s);
    }
    auto after = run_command({"runs", "--json", "--store", w.store_path.string()});
    SHOW(after);
    CHECK(after.status == 0);
    CHECK(after.out.starts_with("{\"id\":\"run-1\""));
    auto dashed = on_store(w.store_path, {"show", "--", "--json"});
    CHECK(dashed.status == 1);
    CHECK(dashed.err.find("no run --json") != std::string::npos);
    auto count = on_store(w.store_path, {"show", "run-1", "extra"});
    CHECK(count.status == 2);
    CHECK(count.err.find("wrong number of arguments for agentrt show: it takes 1, got 2") != std::string::npos);
}
