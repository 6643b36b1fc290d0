// Issue 3, item 9: an independent judge. Generated valid values and near misses of the test
// catalogue are written out with their derived schemas, and python3-jsonschema must agree on every one.
#include <agentrt/fuzz/near_miss.hpp>

#include <agentrt/catalog/schema.hpp>
#include <agentrt/fuzz/generate.hpp>

#include "support/test_tools.hpp"

#include <boost/json/serialize.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace {

using namespace test_tools;
namespace json = boost::json;
namespace fuzz = agentrt::fuzz;

template <class T>
std::size_t write_cases(std::ofstream& out, std::size_t count, std::uint64_t seed) {
    auto const& info = agentrt::type_info_of<T>();
    json::value schema = agentrt::schema(info);
    std::size_t written = 0;
    for (auto const& valid : fuzz::sample(fuzz::valid_json(info), count, seed)) {
        out << json::serialize(json::object{{"schema", schema}, {"text", json::serialize(valid)}, {"valid", true}})
            << '\n';
        ++written;
        for (auto const& m : fuzz::near_misses(info, valid)) {
            out << json::serialize(json::object{{"schema", schema},
                                                {"text", m.text},
                                                {"valid", false},
                                                {"rule", m.rule},
                                                {"pointer", m.pointer}})
                << '\n';
            ++written;
        }
    }
    return written;
}

} // namespace

TEST_CASE("python3_jsonschema_agrees_with_every_generated_value_and_near_miss") {
    if (!std::filesystem::exists("/usr/bin/python3") ||
        std::system("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null") != 0) {
        MESSAGE("python3-jsonschema is not installed: the oracle is skipped");
        return;
    }
    std::string path = AGENTRT_FUZZ_ORACLE_DIR "/oracle_cases.jsonl";
    std::size_t written = 0;
    {
        std::ofstream out(path);
        written += write_cases<every_scalar>(out, 150, 1);
        written += write_cases<bounded_numbers>(out, 300, 2);
        written += write_cases<text_rules>(out, 200, 3);
        written += write_cases<send_args>(out, 200, 4);
        written += write_cases<lookup_args>(out, 100, 5);
        written += write_cases<wipe_args>(out, 100, 6);
        written += write_cases<lists>(out, 150, 7);
    }
    CHECK(written > 2000);
    std::string command = "/usr/bin/python3 " AGENTRT_FUZZ_ORACLE_SCRIPT " " + path;
    CHECK(std::system(command.c_str()) == 0);
}
