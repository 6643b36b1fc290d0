// An independent judge: for every schema of the test catalogue, and for schemas given at run time,
// generated valid values, their near misses, random JSON and valid values with a random part are
// written out with agentrt's verdict,
// and python3-jsonschema must agree on every document.
#include <agentrt/fuzz/near_miss.hpp>

#include <agentrt/catalog/decode.hpp>
#include <agentrt/catalog/schema.hpp>
#include <agentrt/fuzz/generate.hpp>

#include "support/run_time_schemas.hpp"
#include "support/test_tools.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

namespace {

using namespace test_tools;
namespace json = boost::json;
namespace fuzz = agentrt::fuzz;

// Member names and enum strings of a schema: random documents use them so that they reach past
// the first keyword.
void collect_words(json::value const& schema, std::set<std::string>& words) {
    if (schema.is_array())
        for (auto const& v : schema.get_array())
            collect_words(v, words);
    if (schema.is_string())
        words.insert(std::string(schema.get_string()));
    if (!schema.is_object())
        return;
    for (auto const& kv : schema.get_object()) {
        if (kv.key() == "properties" && kv.value().is_object())
            for (auto const& p : kv.value().get_object())
                words.insert(std::string(p.key()));
        if (kv.key() != "pattern" && kv.key() != "description")
            collect_words(kv.value(), words);
    }
}

// Random JSON of any shape. Strings hold no newline and no non-ASCII digit: python-jsonschema's
// `$` also matches before a final newline and its `\d` any Unicode digit, two differences
// docs/catalogue.md states and tests/catalog pins, which would otherwise be all this reports.
class random_json {
public:
    random_json(std::uint64_t seed, json::value const& schema) : rng_(seed) {
        collect_words(schema, word_set_);
        words_.assign(word_set_.begin(), word_set_.end());
        if (words_.empty())
            words_.push_back("a");
    }

    json::value next(int depth = 0) {
        switch (below(depth < 3 ? 9 : 6)) {
        case 0:
            return nullptr;
        case 1:
            return below(2) == 1;
        case 2:
            return std::int64_t(below(70)) - 5;
        case 3: {
            static constexpr double doubles[] = {0.5, -1.25, 2.5, 0.01, 1e300, -0.0, 3.0, 999.99, 1000.0, 0.07};
            return doubles[below(std::size(doubles))];
        }
        case 4:
        case 5:
            return below(2) ? json::value(json::string(word())) : json::value(json::string(text()));
        case 6:
        case 7: {
            json::object o;
            for (std::size_t i = below(5); i > 0; --i)
                o[below(4) ? word() : text()] = next(depth + 1);
            return o;
        }
        default: {
            json::array a;
            for (std::size_t i = below(5); i > 0; --i)
                a.push_back(next(depth + 1));
            return a;
        }
        }
    }

    // A copy of `valid` with one value at a random depth replaced by random JSON.
    json::value mutated(json::value valid) {
        json::value* at = &valid;
        while (below(3) != 0) {
            if (at->is_object() && !at->get_object().empty()) {
                auto& o = at->get_object();
                at = &(o.begin() + std::ptrdiff_t(below(o.size())))->value();
            } else if (at->is_array() && !at->get_array().empty()) {
                at = &at->get_array()[below(at->get_array().size())];
            } else {
                break;
            }
        }
        *at = next(1);
        return valid;
    }

private:
    std::size_t below(std::size_t n) { return std::size_t(rng_() % n); }
    std::string const& word() { return words_[below(words_.size())]; }
    std::string text() {
        static constexpr char const* pieces[] = {"a",
                                                 "z",
                                                 "0",
                                                 "9",
                                                 "-",
                                                 "_",
                                                 " ",
                                                 "@",
                                                 ".",
                                                 "+",
                                                 "\"",
                                                 "\\",
                                                 "\xc3\xa9",
                                                 "\xe4\xb8\xad",
                                                 "\xf0\x9f\x99\x82"};
        std::string out;
        for (std::size_t i = below(12); i > 0; --i)
            out += pieces[below(std::size(pieces))];
        return out;
    }

    std::mt19937_64 rng_;
    std::set<std::string> word_set_;
    std::vector<std::string> words_;
};

struct written {
    std::size_t valid = 0, near_misses = 0, random = 0;
    std::size_t total() const { return valid + near_misses + random; }
};

void write_cases(std::ofstream& out, std::string const& source, agentrt::compiled_schema const& schema,
                 json::value const& schema_json, std::size_t count, std::uint64_t seed, written& w) {
    auto line = [&](json::object o) {
        o["source"] = source;
        o["schema"] = schema_json;
        out << json::serialize(o) << '\n';
    };
    auto judge = fuzz::judge_of(schema);
    random_json random(seed, schema_json);
    auto random_line = [&](json::value const& document) {
        line({{"text", json::serialize(document)}, {"valid", judge(document).empty()}, {"kind", "random"}});
        ++w.random;
    };
    for (auto const& valid : fuzz::sample(fuzz::valid_json(schema), count, seed)) {
        random_line(random.mutated(valid));
        line({{"text", json::serialize(valid)}, {"valid", true}, {"kind", "valid"}});
        ++w.valid;
        for (auto const& m : fuzz::near_misses(schema, valid, judge)) {
            line({{"text", m.text}, {"valid", false}, {"kind", "near miss"}, {"rule", m.rule}, {"pointer", m.pointer}});
            ++w.near_misses;
        }
    }
    for (std::size_t i = 0; i < count; ++i)
        random_line(random.next());
}

template <class T>
void write_typed(std::ofstream& out, char const* name, std::size_t count, std::uint64_t seed, written& w) {
    auto const& info = agentrt::type_info_of<T>();
    write_cases(out, name, agentrt::lowered(info), agentrt::schema(info), count, seed, w);
}

void write_run_time(std::ofstream& out, char const* name, char const* text, std::size_t count, std::uint64_t seed,
                    written& w) {
    json::value schema_json = json::parse(text);
    auto schema = agentrt::compile_schema(schema_json);
    REQUIRE(schema);
    write_cases(out, name, *schema, schema_json, count, seed, w);
}

std::uint64_t oracle_seed() {
    char const* given = std::getenv("AGENTRT_ORACLE_SEED");
    return given ? std::strtoull(given, nullptr, 10) : 20261202;
}

} // namespace

TEST_CASE("python3_jsonschema_agrees_with_every_generated_value_near_miss_and_random_document") {
    if (!std::filesystem::exists("/usr/bin/python3") ||
        std::system("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null") != 0) {
        MESSAGE("python3-jsonschema is not installed: the oracle is skipped");
        return;
    }
    std::uint64_t seed = oracle_seed();
    std::string path = AGENTRT_FUZZ_ORACLE_DIR "/oracle_cases.jsonl";
    written w;
    {
        std::ofstream out(path);
        write_typed<every_scalar>(out, "every_scalar", 150, seed + 1, w);
        write_typed<bounded_numbers>(out, "bounded_numbers", 300, seed + 2, w);
        write_typed<text_rules>(out, "text_rules", 200, seed + 3, w);
        write_typed<send_args>(out, "send_args", 200, seed + 4, w);
        write_typed<lookup_args>(out, "lookup_args", 100, seed + 5, w);
        write_typed<wipe_args>(out, "wipe_args", 100, seed + 6, w);
        write_typed<lists>(out, "lists", 150, seed + 7, w);
        write_run_time(out, "run-time everything", run_time_schemas::everything, 300, seed + 8, w);
        write_run_time(out, "run-time shapes", run_time_schemas::shapes, 200, seed + 9, w);
        write_run_time(out, "run-time search", run_time_schemas::search, 200, seed + 10, w);
    }
    MESSAGE("oracle seed " << seed << " (AGENTRT_ORACLE_SEED=" << seed << " repeats it): " << w.valid << " valid, "
                           << w.near_misses << " near misses, " << w.random << " random documents");
    CHECK(w.total() >= 10'000);
    CHECK(w.random >= 1'000);
    std::string command = "/usr/bin/python3 " AGENTRT_FUZZ_ORACLE_SCRIPT " " + path;
    CHECK(std::system(command.c_str()) == 0);
}
