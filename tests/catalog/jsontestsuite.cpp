// The JSONTestSuite parsing corpus (tests/data/jsontestsuite, MIT licence) against the boundary.
#include <agentrt/catalog/json_reader.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

std::map<std::string, std::string> corpus() {
    std::map<std::string, std::string> files;
    for (auto const& entry : fs::directory_iterator(AGENTRT_JSONTESTSUITE_DIR)) {
        std::ifstream in(entry.path(), std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        files[entry.path().filename().string()] = text.str();
    }
    return files;
}

// y_ files our boundary refuses on purpose, with the rule that refuses them.
std::map<std::string, std::string> const refused_by_design = {
    {"y_object_duplicated_key.json", "duplicateKey"},
    {"y_object_duplicated_key_and_value.json", "duplicateKey"},
};

// The implementation-defined i_ files: our answer to each, pinned so a change shows in review.
// "accept" or the rule of the refusal.
std::map<std::string, std::string> const implementation_defined = {
#include "jsontestsuite_answers.inc"
};

std::string answer(std::string const& text) {
    auto v = agentrt::read_json(text);
    return v ? "accept" : v.error().violations.at(0).keyword;
}

} // namespace

TEST_CASE("the boundary accepts every y_ file of JSONTestSuite but those refused by design") {
    int checked = 0;
    for (auto const& [name, text] : corpus()) {
        if (!name.starts_with("y_"))
            continue;
        ++checked;
        CAPTURE(name);
        auto by_design = refused_by_design.find(name);
        CHECK(answer(text) == (by_design == refused_by_design.end() ? "accept" : by_design->second));
    }
    CHECK(checked == 95);
}

TEST_CASE("the boundary refuses every n_ file of JSONTestSuite") {
    int checked = 0;
    for (auto const& [name, text] : corpus()) {
        if (!name.starts_with("n_"))
            continue;
        ++checked;
        CAPTURE(name);
        CHECK(answer(text) != "accept");
    }
    CHECK(checked == 188);
}

TEST_CASE("the boundary gives its pinned answer to every i_ file of JSONTestSuite") {
    int checked = 0;
    for (auto const& [name, text] : corpus()) {
        if (!name.starts_with("i_"))
            continue;
        ++checked;
        CAPTURE(name);
        auto pinned = implementation_defined.find(name);
        REQUIRE(pinned != implementation_defined.end());
        CHECK(answer(text) == pinned->second);
    }
    CHECK(checked == int(implementation_defined.size()));
}
