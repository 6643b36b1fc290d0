// Damaged stores never kill a reader: whatever damage a store's files take, every command exits with
// a message, never by a signal, and verify fails whenever the damage changed a record.
#include "command.hpp"
#include "record_text.hpp"

#include <agentrt/fuzz/doctest.hpp>

#include <rapidcheck.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace cli_test;

namespace {

// What a store holds, read in a child process: a damaged page may stop its reader with a signal.
struct reading {
    enum class how { sound, refused, stopped_by_signal } how = how::refused;
    std::string records; // every record of every run, as stored text, when sound
};

std::string every_record(agentrt::store const& s) {
    return s.read([](agentrt::store_reader const& r) {
        std::string out;
        for (auto const& run : r.runs({}, SIZE_MAX)) {
            out += agentrt::record_text::of(run) + "\n";
            for (auto const& x : r.steps(run.id))
                out += agentrt::record_text::of(x) + "\n";
            for (auto const& x : r.approvals(run.id))
                out += agentrt::record_text::of(x) + "\n";
            for (auto const& x : r.events(run.id))
                out += agentrt::record_text::of(x) + "\n";
            for (auto const& x : r.model_calls(run.id))
                out += agentrt::record_text::of(x) + "\n";
        }
        return out;
    });
}

reading read_in_child(fs::path const& store) {
    temp_dir io;
    fs::path file = io.path / "records";
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        for (int sig : {SIGSEGV, SIGBUS, SIGABRT})
            std::signal(sig, SIG_DFL);
        try {
            auto s = agentrt::store::open(store, {.access = agentrt::store_access::operator_only});
            if (!s)
                std::_Exit(1);
            std::ofstream(file, std::ios::binary) << every_record(*s);
            std::_Exit(0);
        } catch (...) {
            std::_Exit(1);
        }
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    reading r;
    if (WIFSIGNALED(status)) {
        r.how = reading::how::stopped_by_signal;
    } else if (WEXITSTATUS(status) == 0) {
        r.how = reading::how::sound;
        std::ifstream in(file, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        r.records = text.str();
    }
    return r;
}

// One way a file is damaged: cut short, a bit flipped, or a burst of garbage written over it.
enum class damage_kind { truncation, bit_flip, burst };

struct damage {
    damage_kind kind;
    std::string file;          // "data.mdb" or "lock.mdb"
    std::uint32_t permille;    // where, in thousandths of the file's size
    std::uint8_t bit;          // of a flip
    bool at_page_start;        // moved to the start of its page
    std::vector<char> garbage; // of a burst
};

std::uintmax_t const page_bytes = static_cast<std::uintmax_t>(::sysconf(_SC_PAGESIZE));

std::string describe(damage const& d) {
    static char const* const kinds[] = {"truncation", "bit flip", "burst"};
    return std::string(kinds[static_cast<int>(d.kind)]) + " of " + d.file + " at " + std::to_string(d.permille) +
           "/1000" + (d.at_page_start ? " (its page's start)" : "") +
           (d.kind == damage_kind::bit_flip ? " bit " + std::to_string(d.bit) : "") +
           (d.kind == damage_kind::burst ? " of " + std::to_string(d.garbage.size()) + " bytes" : "");
}

rc::Gen<damage> any_damage() {
    return rc::gen::apply(
        [](int kind, bool lock_file, std::uint32_t permille, std::uint8_t bit, bool at_page_start,
           std::vector<char> garbage) {
            return damage{static_cast<damage_kind>(kind),
                          lock_file ? "lock.mdb" : "data.mdb",
                          permille,
                          bit,
                          at_page_start,
                          std::move(garbage)};
        },
        rc::gen::weightedElement<int>({{1, 0}, {2, 1}, {3, 2}}),
        rc::gen::weightedElement<bool>({{4, false}, {1, true}}),
        rc::gen::resize(100, rc::gen::inRange<std::uint32_t>(0, 1000)), rc::gen::inRange<std::uint8_t>(0, 8),
        rc::gen::arbitrary<bool>(),
        rc::gen::resize(4000, rc::gen::nonEmpty(rc::gen::container<std::vector<char>>(rc::gen::arbitrary<char>()))));
}

void apply(damage const& d, fs::path const& store) {
    fs::path file = store / d.file;
    auto size = fs::file_size(file);
    auto at = size * d.permille / 1000;
    if (d.at_page_start)
        at = at / page_bytes * page_bytes + d.bit * 8; // a page's header and its first node offsets
    if (d.kind == damage_kind::truncation) {
        fs::resize_file(file, at);
        return;
    }
    std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
    f.seekg(static_cast<std::streamoff>(at));
    if (d.kind == damage_kind::bit_flip) {
        char c = 0;
        if (!f.get(c))
            return;
        f.seekp(static_cast<std::streamoff>(at));
        f.put(static_cast<char>(c ^ (1 << d.bit)));
        return;
    }
    f.seekp(static_cast<std::streamoff>(at));
    f.write(d.garbage.data(), static_cast<std::streamsize>(std::min<std::size_t>(d.garbage.size(), size - at)));
}

// A store of finished and waiting runs, in enough pages to damage.
struct sound_store {
    world w;
    reading pristine;
    sound_store() {
        {
            auto s = w.open();
            for (int i = 0; i < 60; ++i)
                run_to_completion(w, s, "look up " + std::to_string(i));
            start_waiting(w, s);
        }
        pristine = read_in_child(w.store_path);
        REQUIRE(pristine.how == reading::how::sound);
    }
};

std::vector<std::vector<std::string>> const every_reading_command = {
    {"verify"}, {"check"}, {"runs"}, {"show", "run-1"}, {"events", "run-1"}, {"pending"}, {"export", "run-1"},
};

} // namespace

TEST_CASE("damaged stores never kill a reader: after random damage to either file every command exits with a "
          "message, never by a signal, and verify fails whenever the damage changed a record") {
    sound_store sound;
    AGENTRT_CHECK_PROPERTY(
        "any truncations, bit flips and bursts of either file",
        [&] {
            auto damages =
                *rc::gen::resize(3, rc::gen::nonEmpty(rc::gen::container<std::vector<damage>>(any_damage())));
            temp_dir dir;
            fs::path store = dir.path / "store";
            fs::copy(sound.w.store_path, store);
            for (auto const& d : damages) {
                RC_LOG() << describe(d) << "\n";
                apply(d, store);
            }
            auto backup = on_store(store, {"backup", (dir.path / "copy").string()});
            RC_ASSERT(backup.status < 128); // 128 + N: stopped by signal N
            RC_ASSERT(backup.status == 0 || !backup.err.empty());
            if (backup.status != 0)
                RC_ASSERT_FALSE(fs::exists(dir.path / "copy" / "data.mdb")); // no partial copy is left
            int verified = -1;
            for (auto const& command : every_reading_command) {
                auto o = on_store(store, command);
                RC_LOG() << command[0] << ": exit " << o.status << ": " << o.err << o.out;
                RC_ASSERT(o.status < 128);
                RC_ASSERT(o.status == 0 || !o.err.empty() || !o.out.empty());
                if (o.status == 3)
                    RC_ASSERT((o.err + o.out).find("is damaged") != std::string::npos);
                if (command[0] == "verify")
                    verified = o.status;
            }
            auto after = read_in_child(store);
            RC_LOG() << "read in a child: " << static_cast<int>(after.how) << ", records "
                     << (after.records == sound.pristine.records ? "as before" : "changed") << "\n";
            if (after.how != reading::how::sound || after.records != sound.pristine.records)
                RC_ASSERT(verified != 0);
        },
        {.seed = {}, .cases = 40});
}

namespace {

// Points every node of each leaf page near the end of the data file past the file's end, where the
// map has no page behind it: LMDB reads such a node without a check, and its reader is stopped by
// SIGBUS. The leaf pages in LMDB 0.9's layout: flags at byte 10 (P_LEAF = 2), the lower bound of
// the free space at byte 12, the node offsets from byte 16.
int point_leaves_past_the_end(fs::path const& file) {
    auto size = fs::file_size(file);
    std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
    int damaged = 0;
    for (auto page = size - page_bytes; page + 0xfffe >= size && page >= 2 * page_bytes; page -= page_bytes) {
        unsigned char header[16];
        f.seekg(static_cast<std::streamoff>(page));
        f.read(reinterpret_cast<char*>(header), sizeof header);
        std::uint16_t flags = header[10] | header[11] << 8, lower = header[12] | header[13] << 8;
        if (!(flags & 0x02) || lower <= 16 || lower > page_bytes)
            continue;
        f.seekp(static_cast<std::streamoff>(page + 16));
        for (std::uint16_t node = 16; node < lower; node += 2)
            f.put(static_cast<char>(0xfe)).put(static_cast<char>(0xff));
        ++damaged;
    }
    return damaged;
}

} // namespace

TEST_CASE("a damaged page that stops the reader with a signal is reported as a damaged store, with its own exit "
          "status, and a backup it stopped leaves nothing behind") {
    sound_store sound;
    REQUIRE(point_leaves_past_the_end(sound.w.store_path / "data.mdb") > 0);
    for (std::vector<std::string> command : every_reading_command) {
        auto o = on_store(sound.w.store_path, command);
        SHOW(o);
        CHECK(o.status < 128);
        if (o.status == 3 && o.err.find("stopped the reader") != std::string::npos) {
            CHECK(o.err.find("store " + sound.w.store_path.string() +
                             " is damaged: reading it stopped the reader with SIGBUS") != std::string::npos);
            CHECK(o.err.find("Restore the store from a backup") != std::string::npos);
        }
    }
    auto verify = on_store(sound.w.store_path, {"verify"});
    SHOW(verify);
    CHECK(verify.status == 3);
    CHECK(verify.err.find("stopped the reader with SIGBUS") != std::string::npos);

    temp_dir dir;
    auto backup = on_store(sound.w.store_path, {"backup", (dir.path / "copy").string()});
    SHOW(backup);
    CHECK(backup.status == 3);
    CHECK_FALSE(fs::exists(dir.path / "copy"));
}
