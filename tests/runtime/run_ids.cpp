// Run ids: time-ordered by default, so the records of the runs live at one time sit together in every
// tree keyed by run id.
#include <doctest/doctest.h>

#include <agentrt/runtime.hpp>

#include "fixture.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace runtime_test;

namespace {

bool is_lowercase_hex(std::string const& s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

} // namespace

TEST_CASE("run ids: an id made in a later millisecond sorts after every id made earlier") {
    std::vector<std::int64_t> times = {
        0, 1, 15, 16, 0xfff, 0x1000, 1'700'000'000'000, 1'700'000'000'001, 0xffff'ffff'fffe};
    for (std::size_t i = 0; i + 1 < times.size(); ++i)
        for (int repeat = 0; repeat < 50; ++repeat) {
            auto earlier = agentrt::time_ordered_id(times[i]);
            auto later = agentrt::time_ordered_id(times[i + 1]);
            CAPTURE(earlier);
            CAPTURE(later);
            CHECK(earlier < later);
        }
}

TEST_CASE("run ids: an id is 32 lowercase hex digits, the first 12 its millisecond") {
    auto id = agentrt::time_ordered_id(1'700'000'000'000);
    CHECK(id.size() == 32);
    CHECK(is_lowercase_hex(id));
    CHECK(id.substr(0, 12) == "018bcfe56800");
}

TEST_CASE("run ids: ids made in the same millisecond differ") {
    std::set<std::string> ids;
    for (int i = 0; i < 10'000; ++i)
        ids.insert(agentrt::time_ordered_id(1'700'000'000'000));
    CHECK(ids.size() == 10'000);
}

TEST_CASE("run ids: by default a run's id starts with the millisecond it began in, so runs begun later sort later") {
    world w;
    auto s = w.open();
    auto options = w.options();
    options.ids = agentrt::gate_options{}.ids;
    agentrt::gate g(s, w.table, w.policy, options);
    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i) {
        auto before = agentrt::time_ordered_id(agentrt::system_clock_ms()).substr(0, 12);
        auto session = g.begin("run " + std::to_string(i)).value();
        auto after = agentrt::time_ordered_id(agentrt::system_clock_ms()).substr(0, 12);
        auto began = session.run_id().substr(0, 12);
        CHECK(before <= began);
        CHECK(began <= after);
        ids.push_back(session.run_id());
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    CHECK(std::is_sorted(ids.begin(), ids.end()));
    CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == ids.size());
}
