// A store written by version one of agentrt (tests/data/store-v1; its README says how it was made),
// opened by this one.
#include <agentrt/runtime.hpp>
#include <agentrt/testkit/scripted_agent.hpp>

#include "../../examples/shop/shop.hpp"
#include "fixture.hpp"

using namespace runtime_test;
using agentrt::run_status;
using agentrt::step_status;

namespace {

// A copy of the version-one store in `dir`, owner-only as agentrt requires.
void copy_v1_store(fs::path const& dir) {
    fs::create_directories(dir);
    fs::permissions(dir, fs::perms::owner_all);
    fs::copy_file(AGENTRT_SOURCE_DIR "/tests/data/store-v1/data.mdb", dir / "data.mdb");
    fs::permissions(dir / "data.mdb", fs::perms::owner_read | fs::perms::owner_write);
}

std::map<std::string, agentrt::run_record> runs_by_id(agentrt::store const& s) {
    std::map<std::string, agentrt::run_record> out;
    for (auto& r : agentrt::list_runs(s))
        out.emplace(r.id, r);
    return out;
}

} // namespace

TEST_CASE("a store of schema version 1 is not migrated by an operator, and stays as it was") {
    world w;
    copy_v1_store(w.store_path);
    auto op = agentrt::store::open(w.store_path, {.access = agentrt::store_access::operator_only});
    REQUIRE_FALSE(op);
    CHECK(op.error().message == "store " + w.store_path.string() +
                                    " has schema version 1, older than 3; an operator never migrates: open it once "
                                    "with a writer");
    raw_lmdb raw(w.store_path);
    CHECK(raw.get("meta", "schema_version") == "1");
}

TEST_CASE("a store written by version one's code is migrated by its first writer, every run and chain kept") {
    world w;
    copy_v1_store(w.store_path);
    auto s = w.open();
    CHECK(s.read([](agentrt::store_reader const& r) { return r.meta("schema_version"); }) == "3");

    auto runs = runs_by_id(s);
    REQUIRE(runs.size() == 4);
    CHECK(runs.at("run-completed").status == run_status::completed);
    CHECK(runs.at("run-waiting").status == run_status::waiting_for_approval);
    CHECK(runs.at("run-failed").status == run_status::failed);
    CHECK(runs.at("run-held").status == run_status::running);
    CHECK_FALSE(runs.at("run-held").lease.owner.empty()); // its process died holding it
    for (auto const& [id, run] : runs)
        CHECK_MESSAGE(run.lease.epoch == 0, id); // version 1 counted no takes

    auto completed = agentrt::read_run(s, "run-completed").value();
    REQUIRE(completed.steps.size() == 3);
    CHECK(completed.steps[1].tool == "send_email");
    CHECK(completed.steps[1].status == step_status::done);
    CHECK(agentrt::read_run(s, "run-held").value().steps.at(0).status == step_status::executing);

    auto chains = agentrt::verify(s);
    CHECK_MESSAGE(chains.ok(), chains.first_break);
    CHECK(chains.runs == 4);
    CHECK(chains.events == 32);
}

TEST_CASE("a run whose version-one holder died mid side effect resumes after the migration, the effect not re-run") {
    world w;
    copy_v1_store(w.store_path);
    auto s = w.open();
    fs::path outbox = w.dir.path / "outbox";
    auto table = shop::tools{shop::lookup_order{}, shop::send_email{outbox}, shop::wipe_account{}}.table();
    auto policy = agentrt::lower_policy(shop::policy{}, shop::tools{});
    agentrt::testkit::scripted_agent agent({agentrt::decision::complete("done")});
    agentrt::driver d(s, table, policy, agent); // real clocks: the old lease lapsed long ago

    auto resumed = d.resume("run-held").value();
    CHECK(resumed.status == run_status::waiting_for_approval);
    CHECK(resumed.lease.owner.empty());
    CHECK(resumed.lease.epoch == 1); // the first take since version 2
    auto step = agentrt::read_run(s, "run-held").value().steps.at(0);
    CHECK(step.status == step_status::interrupted);
    CHECK(step.resolution == "approval");
    CHECK_FALSE(fs::exists(outbox)); // the mail was not sent again on its own

    auto report = agentrt::check_invariants(s);
    CHECK_MESSAGE(report.ok(), (report.problems.empty() ? "" : report.problems.front()));
    CHECK(agentrt::verify(s).ok());
}

TEST_CASE("a migration that needs more map than the store had grows it, and at the maximum is storage_full") {
    auto const used = fs::file_size(AGENTRT_SOURCE_DIR "/tests/data/store-v1/data.mdb");
    {
        world w;
        copy_v1_store(w.store_path);
        auto s = agentrt::store::open(w.store_path, {.lmdb = {.initial_map_bytes = 4096}}); // the file's size, then
        REQUIRE_MESSAGE(s, (s ? "" : s.error().to_string()));
        CHECK(s->read([](agentrt::store_reader const& r) { return r.meta("schema_version"); }) == "3");
        CHECK(runs_by_id(*s).size() == 4);
    }
    world w;
    copy_v1_store(w.store_path);
    auto s = agentrt::store::open(w.store_path, {.lmdb = {.initial_map_bytes = 4096, .max_map_bytes = used}});
    REQUIRE_FALSE(s);
    CHECK_MESSAGE(s.error().code == agentrt::errc::storage_full, s.error().to_string());
    raw_lmdb raw(w.store_path);
    CHECK(raw.get("meta", "schema_version") == "1"); // nothing of the migration was written
}
