#include "migrations.hpp"

#include "errors.hpp"
#include "record_text.hpp"

#include <agentrt/runtime/records.hpp>

namespace agentrt::migrations {

std::string run_text_v1_to_v2(std::string_view text) {
    boost::json::value v;
    try {
        v = parse_record_text(text);
    } catch (std::exception const& e) {
        throw exception(err(errc::store_failed, std::string("a stored run is not JSON (") + e.what() +
                                                    "): the store is damaged; restore it from a backup"));
    }
    auto* run = v.if_object();
    auto* lease = run ? run->if_contains("lease") : nullptr;
    if (!lease || !lease->is_object())
        throw exception(err(errc::store_failed, "a stored run has no lease object: it is not a run of schema "
                                                "version 1; restore the store from a backup"));
    lease->as_object().emplace("epoch", 0);
    return record_text::of(run_from_json(v));
}

} // namespace agentrt::migrations
