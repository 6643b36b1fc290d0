#include "run_bundles.hpp"

#include "connections.hpp"

#include <agentrt/catalog/canonical_json.hpp>

#include <algorithm>
#include <iterator>

namespace agentrt::pg_detail {

std::optional<std::string> run_bundle::step(std::uint64_t index) const {
    for (auto const& [i, text] : steps)
        if (i == index)
            return text;
    return std::nullopt;
}

void run_bundle::put_step(std::uint64_t index, std::string text) {
    auto at = std::lower_bound(steps.begin(), steps.end(), index, [](auto const& s, auto i) { return s.first < i; });
    if (at != steps.end() && at->first == index)
        at->second = std::move(text);
    else
        steps.emplace(at, index, std::move(text));
    if (steps.size() > steps_kept)
        steps.erase(steps.begin(), steps.end() - steps_kept);
}

void run_bundle::put_approval(std::uint64_t step, std::uint64_t seq, std::string text) {
    auto at = std::lower_bound(approvals.begin(), approvals.end(), std::pair(step, seq),
                               [](approval const& a, auto key) { return std::pair(a.step, a.seq) < key; });
    if (at != approvals.end() && at->step == step && at->seq == seq)
        at->text = std::move(text);
    else
        approvals.insert(at, {step, seq, std::move(text)});
    if (approvals.size() > approvals_kept + 1)
        approvals.resize(approvals_kept + 1);
}

std::string run_bundle::digest() const {
    std::string out;
    auto line = [&](int kind, std::uint64_t a, std::uint64_t b, std::string const& text) {
        if (!out.empty())
            out += ',';
        out += std::to_string(kind) + ' ' + std::to_string(a) + ' ' + std::to_string(b) + ' ' + sha256_hex(text);
    };
    if (run)
        line(0, 0, 0, *run);
    for (auto const& [index, text] : steps)
        line(1, index, 0, text);
    for (auto const& a : approvals)
        line(2, a.step, a.seq, a.text);
    return out;
}

std::string expect_run_bundle_function(std::string const& bundle_sql) {
    return "CREATE OR REPLACE FUNCTION agentrt_2_expect_run_bundle(run bytea, expected text) RETURNS void\n"
           "LANGUAGE plpgsql AS $body$\n"
           "BEGIN\n"
           "  IF (SELECT coalesce(string_agg(concat_ws(' ', kind, a, b, encode(sha256(record), 'hex')), ',' "
           "ORDER BY kind, a, b), '')\n"
           "      FROM (" +
           bundle_sql +
           ") AS bundle (kind, a, b, record)) IS DISTINCT FROM expected THEN\n"
           "    RAISE EXCEPTION 'run % changed since this worker last read it', encode(run, 'escape')\n"
           "      USING ERRCODE = 'serialization_failure';\n"
           "  END IF;\n"
           "END $body$;\n";
}

namespace seen_bundles {
namespace {

struct entry {
    std::uint64_t pool; // its identity: a pool made later at the same address is another
    std::string run_id;
    run_bundle bundle;
};
constexpr std::size_t kept = 16;         // a thread drives a few runs at once, seldom more
thread_local std::vector<entry> entries; // the newest last

auto position(connection_pool const& pool, std::string_view run_id) {
    return std::find_if(entries.begin(), entries.end(),
                        [&](entry const& e) { return e.pool == pool.identity() && e.run_id == run_id; });
}

} // namespace

run_bundle const* find(connection_pool const& pool, std::string_view run_id) {
    auto at = position(pool, run_id);
    return at == entries.end() ? nullptr : &at->bundle;
}

void remember(connection_pool const& pool, std::string_view run_id, run_bundle bundle) {
    forget(pool, run_id);
    if (entries.size() == kept)
        entries.erase(entries.begin());
    entries.push_back({pool.identity(), std::string(run_id), std::move(bundle)});
}

void forget(connection_pool const& pool, std::string_view run_id) {
    if (auto at = position(pool, run_id); at != entries.end())
        entries.erase(at);
}

void forget_all(connection_pool const& pool) {
    std::erase_if(entries, [&](entry const& e) { return e.pool == pool.identity(); });
}

} // namespace seen_bundles
} // namespace agentrt::pg_detail
