#include "lmdb_engine.hpp"

#include "environment.hpp"

#include "errors.hpp"
#include "keys.hpp"
#include "lmdb.hpp"
#include "migrations.hpp"
#include "record_cache.hpp"
#include "record_text.hpp"
#include "seal.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <set>
#include <shared_mutex>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace agentrt::lmdb_detail {

// Counts forks, in the child: LMDB allows an environment only in the process that opened it (a child
// would share the parent's reader slots and its lock on owners.lock), so a store remembers the count
// it was opened under and refuses to be used under another.
std::atomic<std::uint64_t> forks{0};
std::uint64_t fork_count() {
    [[maybe_unused]] static bool const counting =
        ::pthread_atfork(nullptr, nullptr, [] { forks.fetch_add(1, std::memory_order_relaxed); }) == 0;
    return forks.load(std::memory_order_relaxed);
}

error store_error(std::string message) {
    return err(errc::store_failed, std::move(message));
}

error damaged_store(std::string message) {
    return err(errc::store_damaged, std::move(message));
}

namespace {

// LMDB forbids opening one environment twice in a process; a forked child may open its own.
std::mutex open_paths_mutex;
std::set<std::pair<pid_t, std::string>> open_paths;

// power_loss: each commit syncs its data pages before it writes its meta page, so the file is intact
// after a power failure. process_crash: no syncs.
//
// Not MDB_WRITEMAP, although it made process_crash steps 1.3x faster: with a writable map LMDB sets
// the file's size to the map size of whichever process opens or adopts last, so a process opening
// with a smaller map cuts the file under one that grew it (a write there is SIGBUS, a page there is
// lost), and a full disk becomes SIGBUS on a sparse page instead of a failed commit.
unsigned durability_flags(durability level) {
    return level == durability::power_loss ? MDB_NOMETASYNC : MDB_NOSYNC;
}

// Refuses a store file, or the store's directory, that group or others can write, or that another
// user owns: anyone who can write either can forge history or replace the store.
result<void> check_permissions(fs::path const& at, bool directory) {
    struct stat st {};
    if (::stat(at.c_str(), &st) != 0)
        return {};
    std::string what = directory ? "store directory " : "store file ";
    if (st.st_uid != ::geteuid())
        return store_error(what + at.string() + " belongs to uid " + std::to_string(st.st_uid) +
                           ", not to this user (uid " + std::to_string(::geteuid()) +
                           "): a store is used by the user who owns it; as that user, or with: chown " +
                           std::to_string(::geteuid()) + " " + at.string());
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%03o", static_cast<unsigned>(st.st_mode & 0777));
        return store_error(what + at.string() + " is writable by group or others (mode " + mode +
                           "); make it owner-only with: chmod " + (directory ? "700 " : "600 ") + at.string());
    }
    return {};
}

// The host a lease names: a process of another host cannot be seen from here.
std::string const& host_name() {
    static std::string const name = [] {
        char buffer[256] = {};
        ::gethostname(buffer, sizeof buffer - 1);
        return std::string(buffer);
    }();
    return name;
}

} // namespace

std::string const& lmdb_engine::host() const noexcept {
    return host_name();
}

lmdb_engine::~lmdb_engine() {
    if (owner_fd >= 0)
        ::close(owner_fd);
    std::lock_guard lock(open_paths_mutex);
    open_paths.erase({::getpid(), registered});
}

void adopt_grown_map(lmdb_engine const& s) {
    std::unique_lock lock(s.grow);
    lmdb::check(mdb_env_set_mapsize(s.env.get(), 0), "mdb_env_set_mapsize");
    MDB_envinfo info{};
    mdb_env_info(s.env.get(), &info);
    s.map_bytes = info.me_mapsize;
}

namespace {

constexpr char const* restore_advice =
    ": restore the store from a backup (a copy `agentrt backup` made), then resume its runs";

// LMDB makes lock.mdb afresh when it opens a store first, and reads it as it is when another process
// has it open: a reader table cut short is then read past its end (SIGBUS), and a header that is
// not LMDB's refuses the open for a reason LMDB blames on no file. Checked here, while another
// process holds LMDB's shared lock on its first byte.
result<void> check_lock_file(fs::path const& directory) {
    auto const file = directory / "lock.mdb";
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return {}; // none yet: LMDB makes it
    struct closer {
        int fd;
        ~closer() { ::close(fd); }
    } closing{fd};
    struct flock holder {};
    holder.l_type = F_WRLCK;
    holder.l_whence = SEEK_SET;
    holder.l_start = 0;
    holder.l_len = 1;
    if (::fcntl(fd, F_GETLK, &holder) != 0 || holder.l_type == F_UNLCK)
        return {}; // nobody else has the store open: LMDB rebuilds the file
    constexpr std::uint32_t lmdb_magic = 0xBEEFC0DE;
    constexpr off_t smallest = 192; // LMDB 0.9's two cache-line headers and one reader slot
    struct stat st {};
    std::uint32_t magic = 0;
    bool const whole = ::fstat(fd, &st) == 0 && st.st_size >= smallest;
    if (whole && ::pread(fd, &magic, sizeof magic, 0) == ssize_t(sizeof magic) && magic == lmdb_magic)
        return {};
    return damaged_store("store " + directory.string() + " is damaged: " + file.string() +
                         ", LMDB's lock file, which process " + std::to_string(holder.l_pid) + " has open, " +
                         (whole ? std::string("does not begin as LMDB's lock file does")
                                : "is " + std::to_string(st.st_size) + " bytes, cut short") +
                         ": stop every process that uses the store, then remove " + file.string() +
                         " (it holds no records: LMDB makes it again)");
}

} // namespace

error damaged_page_error(lmdb_engine const& s, lmdb::damaged_page const& e) {
    return damaged_store("store " + s.path.string() + " is damaged: " + e.error().message + restore_advice);
}

namespace {

void open_databases(lmdb_engine& s, bool create) {
    lmdb::txn t(s.env.get(), false);
    unsigned flags = create ? MDB_CREATE : 0;
    auto open = [&](char const* name, MDB_dbi& dbi) {
        int rc = mdb_dbi_open(t.get(), name, flags, &dbi);
        if (rc == MDB_NOTFOUND)
            throw exception(damaged_store("store " + s.path.string() + " has no '" + name +
                                          "' database: it was not created by agentrt, or is damaged" + restore_advice));
        lmdb::check(rc, "mdb_dbi_open");
    };
    open(keys::runs, s.runs);
    open(keys::run_order, s.run_order);
    open(keys::steps, s.steps);
    open(keys::approvals, s.approvals);
    open(keys::events, s.events);
    open(keys::tool_specs, s.tool_specs);
    open(keys::model_calls, s.model_calls);
    open(keys::meta, s.meta);
    t.commit();
}

void migrate_runs_to_v2(lmdb_engine& s, MDB_txn* t) {
    std::vector<std::pair<std::string, std::string>> migrated;
    {
        lmdb::cursor c(t, s.runs);
        MDB_val k{}, v{};
        for (bool at = c.first(k, v); at; at = c.next(k, v)) {
            std::string id(lmdb::view(k));
            try {
                migrated.emplace_back(id, migrations::run_text_v1_to_v2(lmdb::view(v)));
            } catch (exception const& e) {
                throw exception(store_error("store " + s.path.string() + ": run " + id +
                                            " cannot move to schema version 2: " + e.error().message));
            }
        }
    }
    for (auto const& [id, text] : migrated)
        lmdb::put(t, s.runs, id, text);
}

// Version 3 seals every value with its checksum (seal.hpp).
void seal_every_record(lmdb_engine& s, MDB_txn* t) {
    for (MDB_dbi dbi : {s.runs, s.run_order, s.steps, s.approvals, s.events, s.tool_specs, s.model_calls, s.meta}) {
        std::vector<std::pair<std::string, std::string>> sealed;
        {
            lmdb::cursor c(t, dbi);
            MDB_val k{}, v{};
            for (bool at = c.first(k, v); at; at = c.next(k, v))
                if (!(dbi == s.meta && lmdb::view(k) == bare_meta_key))
                    sealed.emplace_back(lmdb::view(k), seal(lmdb::view(k), lmdb::view(v)));
        }
        for (auto const& [key, value] : sealed)
            lmdb::put(t, dbi, key, value);
    }
}

result<void> check_version(lmdb_engine& s) {
    std::string text;
    int version = 0;
    {
        lmdb::txn t(s.env.get(), true);
        if (lmdb::get(t.get(), s.meta, "schema_version", text)) {
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
            if (ec != std::errc{} || end != text.data() + text.size())
                return damaged_store("store " + s.path.string() + " is damaged: its schema version is '" +
                                     text.substr(0, 40) + "', not a number: restore it from a backup");
        }
    }
    if (version > store_schema_version)
        return store_error("store " + s.path.string() + " has schema version " + std::to_string(version) +
                           ", newer than this library's " + std::to_string(store_schema_version) +
                           ": open it with a newer agentrt");
    if (version == store_schema_version)
        return {};
    if (s.options.access == store_access::operator_only)
        return store_error("store " + s.path.string() + " has schema version " + std::to_string(version) +
                           ", older than " + std::to_string(store_schema_version) +
                           "; an operator never migrates: open it once with a writer");
    // Every migration from `version` in this one transaction; version 0 is a new store.
    lmdb::txn t(s.env.get(), false);
    if (version == 1)
        migrate_runs_to_v2(s, t.get());
    if (version >= 1 && version < 3)
        seal_every_record(s, t.get());
    lmdb::put(t.get(), s.meta, "schema_version", std::to_string(store_schema_version));
    t.commit();
    return {};
}

result<void> take_owner_lock(lmdb_engine& s) {
    s.owner_fd = ::open((s.path / "owners.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (s.owner_fd < 0)
        return store_error("cannot open " + (s.path / "owners.lock").string() + ": " + std::strerror(errno));
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = ::getpid();
    lock.l_len = 1;
    if (::fcntl(s.owner_fd, F_OFD_SETLK, &lock) != 0)
        return store_error("cannot lock " + (s.path / "owners.lock").string() + ": " + std::strerror(errno));
    return {};
}

} // namespace

result<void> lmdb_engine::backup(std::filesystem::path const& destination) const {
    try {
        refuse_in_forked_child();
    } catch (exception const& e) {
        return e.error();
    }
    std::error_code ec;
    if (fs::exists(destination / "data.mdb", ec))
        return store_error("backup destination " + destination.string() +
                           " already holds a store; choose a new directory");
    if (fs::exists(destination, ec) && !fs::is_empty(destination, ec))
        return store_error("backup destination " + destination.string() + " is not empty; choose a new directory");
    if (::mkdir(destination.c_str(), 0700) != 0 && errno != EEXIST)
        return store_error("cannot create backup directory " + destination.string() + ": " + std::strerror(errno));
    if (::chmod(destination.c_str(), 0700) != 0)
        return store_error("cannot make backup directory " + destination.string() +
                           " owner-only: " + std::strerror(errno));
    fs::path file = destination / "data.mdb";
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return store_error("cannot create " + file.string() + ": " + std::strerror(errno));
    int rc = MDB_SUCCESS;
    for (;;) {
        {
            std::shared_lock lock(grow);
            rc = mdb_env_copyfd2(env.get(), fd, MDB_CP_COMPACT);
        }
        if (rc != MDB_MAP_RESIZED)
            break;
        try {
            adopt_grown_map(*this); // another process grew the map: begin the copy again
        } catch (exception const& e) {
            ::close(fd);
            fs::remove(file, ec);
            return e.error();
        }
        if (::ftruncate(fd, 0) != 0 || ::lseek(fd, 0, SEEK_SET) != 0) {
            rc = errno;
            break;
        }
    }
    if (rc == MDB_SUCCESS && ::fsync(fd) != 0)
        rc = errno;
    ::close(fd);
    if (rc != MDB_SUCCESS) {
        fs::remove(file, ec);
        if (rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND)
            return damaged_store("store " + path.string() + " is damaged: its backup to " + destination.string() +
                                 " failed (" + mdb_strerror(rc) + "); nothing was written" + restore_advice);
        return store_error("backup of " + path.string() + " to " + destination.string() +
                           " failed: " + mdb_strerror(rc));
    }
    return {};
}

bool lmdb_engine::holder_alive(lease_record const& lease) const {
    refuse_in_forked_child();
    if (lease.owner.empty())
        return false;
    if (lease.host != host())
        return true; // another host's process cannot be seen from here: only expiry frees it
    if (lease.pid == ::getpid())
        return true; // which of this process's sessions live is the runtime's to say
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = static_cast<off_t>(lease.pid);
    lock.l_len = 1;
    if (::fcntl(owner_fd, F_OFD_GETLK, &lock) != 0)
        return true; // cannot tell: treat as alive, the lease expiry still applies
    return lock.l_type != F_UNLCK;
}

} // namespace agentrt::lmdb_detail

namespace agentrt::engines {

using namespace lmdb_detail;

result<std::shared_ptr<engine>> open_lmdb(std::filesystem::path const& path, store_options const& options) {
    auto s = std::make_shared<lmdb_engine>();
    s->where = "lmdb:" + path.string();
    s->path = path;
    s->options = options;
    std::error_code ec;
    bool exists = fs::exists(path / "data.mdb", ec);
    if (!exists && options.access == store_access::operator_only)
        return store_error("no store at " + path.string() + " (an operator never creates one)");
    if (!exists) {
        fs::create_directories(path, ec);
        if (ec)
            return store_error("cannot create store directory " + path.string() + ": " + ec.message());
        fs::permissions(path, fs::perms::owner_all, ec);
    }
    if (auto ok = check_permissions(path, true); !ok)
        return ok.error();
    for (char const* file : {"data.mdb", "lock.mdb", "owners.lock"})
        if (auto ok = check_permissions(path / file, false); !ok)
            return ok.error();
    {
        std::lock_guard lock(open_paths_mutex);
        std::string key = fs::weakly_canonical(path, ec).string();
        if (!open_paths.insert({::getpid(), key}).second)
            return err(errc::refused,
                       "store " + path.string() + " is already open in this process: share that store object");
        s->registered = key;
    }
    try {
        MDB_env* env = s->env.get();
        lmdb::check(mdb_env_set_maxdbs(env, 16), "mdb_env_set_maxdbs");
        lmdb::check(mdb_env_set_mapsize(env, options.lmdb.initial_map_bytes), "mdb_env_set_mapsize");
        lmdb::check(mdb_env_set_maxreaders(env, 256), "mdb_env_set_maxreaders");
        // LMDB starts a new environment in an empty data file: one shorter than its two meta pages is a
        // store cut short, and must not be silently made a new, empty one.
        auto const page = static_cast<std::uintmax_t>(::sysconf(_SC_PAGESIZE));
        if (auto size = fs::file_size(path / "data.mdb", ec); !ec && size < 2 * page)
            return damaged_store("store " + path.string() + " is damaged: " + (path / "data.mdb").string() + " is " +
                                 std::to_string(size) +
                                 " bytes, shorter than its two meta pages (the file was cut short)" + restore_advice);
        if (auto ok = check_lock_file(path); !ok)
            return ok.error();
        unsigned flags = MDB_NOTLS | durability_flags(options.durability);
        int rc = mdb_env_open(env, path.c_str(), flags, 0600);
        if (rc == MDB_INVALID || rc == MDB_CORRUPTED || rc == MDB_VERSION_MISMATCH)
            return damaged_store("store " + path.string() + " is damaged: " + (path / "data.mdb").string() +
                                 " is not a store LMDB can read (" + mdb_strerror(rc) + ")" + restore_advice);
        if (rc != MDB_SUCCESS)
            return store_error("cannot open store " + path.string() + ": " + mdb_strerror(rc));
        int dead = 0;
        lmdb::check(mdb_reader_check(env, &dead), "mdb_reader_check");
        MDB_envinfo info{};
        mdb_env_info(env, &info);
        // A file shorter than the pages its metadata counts would be read past its end through the map,
        // which is SIGBUS, not an error: refuse it here.
        MDB_stat stat{};
        mdb_env_stat(env, &stat);
        auto needed = (static_cast<std::uintmax_t>(info.me_last_pgno) + 1) * stat.ms_psize;
        if (auto size = fs::file_size(path / "data.mdb", ec); !ec && size < needed)
            return damaged_store("store " + path.string() + " is damaged: " + (path / "data.mdb").string() + " is " +
                                 std::to_string(size) + " bytes, but its metadata counts " + std::to_string(needed) +
                                 " (the file was cut short)" + restore_advice);
        s->map_bytes = info.me_mapsize;
        for (;;) {
            try {
                open_databases(*s, options.access == store_access::writer);
                if (auto ok = check_version(*s); !ok)
                    return ok.error();
                break;
            } catch (lmdb::map_resized const&) {
                adopt_grown_map(*s); // nothing else of this store is open yet
            } catch (lmdb::map_full const&) {
                s->grow_map(); // a migration rewrites every record; storage_full at the maximum
            }
        }
        if (auto ok = take_owner_lock(*s); !ok)
            return ok.error();
    } catch (lmdb::damaged_page const& e) {
        return damaged_page_error(*s, e);
    } catch (exception const& e) {
        return e.error();
    }
    return std::shared_ptr<engine>(std::move(s));
}

} // namespace agentrt::engines
