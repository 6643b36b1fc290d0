#include <agentrt/runtime/store.hpp>

#include "engines/lmdb/lmdb_engine.hpp"
#include "engines/postgresql/postgresql_engine.hpp"
#include "errors.hpp"

#include <mutex>

namespace agentrt {

std::vector<run_record> store_reader::runs(std::string_view before, std::size_t limit) const {
    if (before.empty())
        return runs_before(0, limit);
    auto b = run(before);
    if (!b)
        return {};
    return runs_before(b->order, limit);
}

void store_writer::put(run_record& run) {
    if (run.id.empty() || run.id.find('\0') != std::string::npos)
        throw exception(err(errc::refused, "a run id must be non-empty and hold no NUL byte"));
    records_.put(run);
}

event_record const& store_writer::append(run_record& run, event_type type, boost::json::object data,
                                         std::int64_t at_ms) {
    event_record e;
    e.run_id = run.id;
    e.seq = run.event_count;
    e.type = to_string(type);
    e.at_ms = at_ms;
    e.prev = run.head;
    e.data = std::move(data);
    bool first = type == event_type::run_created;
    if (first) // every run's first event links to the previous run's: deleting a whole run breaks the chain
        e.data["prev_run"] = meta("run_chain_head").value_or("");
    e.hash = event_hash(e);
    if (first)
        put_meta("run_chain_head", e.hash);
    records_.put(e);
    run.head = e.hash;
    ++run.event_count;
    appended_.push_back(std::move(e));
    return appended_.back();
}

namespace {
result<store> open_engine(result<std::shared_ptr<engine>> opened) {
    if (!opened)
        return opened.error();
    return store(std::move(*opened));
}
} // namespace

struct store::observers {
    std::mutex mutex;
    std::vector<event_observer> list;
};

result<store> store::open(store_location const& where, store_options const& options) {
    std::string_view text = where.text();
    std::string_view path = text;
    if (text.starts_with("postgresql://") || text.starts_with("postgres://"))
        return open_engine(engines::open_postgresql(std::string(text), options));
    if (auto colon = text.find(':'); colon != std::string_view::npos && text.substr(0, colon) != "lmdb") {
        auto scheme = text.substr(0, colon);
        bool named =
            !scheme.empty() && scheme.find('/') == std::string_view::npos && text.substr(colon).starts_with("://");
        if (named)
            return err(errc::store_failed, "store location " + std::string(text) + " names the engine '" +
                                               std::string(scheme) +
                                               "', which this agentrt does not have (it has: lmdb, postgresql)");
    } else if (colon != std::string_view::npos) {
        path = text.substr(colon + 1);
    }
    return open_engine(engines::open_lmdb(std::filesystem::path(path), options));
}

store::store(std::shared_ptr<agentrt::engine> engine)
    : engine_(std::move(engine)), observers_(std::make_unique<observers>()) {}
store::store(store&&) noexcept = default;
store& store::operator=(store&&) noexcept = default;
store::~store() = default;

void store::observe(event_observer observer) {
    std::lock_guard lock(observers_->mutex);
    observers_->list.push_back(std::move(observer));
}

void store::write_erased(std::function<void(store_writer&)> const& work, bool flush) {
    std::vector<event_record> committed;
    engine_->write(
        [&](engine_writer& records) {
            store_writer w(records);
            work(w);
            committed = std::move(w.appended()); // the last attempt's, should the engine retry
        },
        flush);
    if (committed.empty())
        return;
    std::vector<event_observer> observers;
    {
        std::lock_guard lock(observers_->mutex);
        observers = observers_->list;
    }
    for (auto const& e : committed)
        for (auto const& o : observers)
            o(e);
}

} // namespace agentrt
