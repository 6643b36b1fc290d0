// Prints, as JSON lines, the schema of every test type and agentrt's verdict on every corpus
// document, for the independent validator (oracle.py) to compare with its own.
#include <agentrt/catalog.hpp>

#include "support/test_tools.hpp"

#include <fstream>
#include <iostream>
#include <map>
#include <string>

namespace {

std::map<std::string, agentrt::type_info const*> const& test_types() {
    using namespace test_tools;
    static std::map<std::string, agentrt::type_info const*> const types{
        {"flags", &agentrt::type_info_of<flags>()},
        {"every_scalar", &agentrt::type_info_of<every_scalar>()},
        {"bounded_numbers", &agentrt::type_info_of<bounded_numbers>()},
        {"text_rules", &agentrt::type_info_of<text_rules>()},
        {"send_args", &agentrt::type_info_of<send_args>()},
        {"lookup_args", &agentrt::type_info_of<lookup_args>()},
        {"wipe_args", &agentrt::type_info_of<wipe_args>()},
        {"lists", &agentrt::type_info_of<lists>()},
        {"adapted_point", &agentrt::type_info_of<adapted_point>()},
    };
    return types;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: agentrt_oracle_judge CORPUS\n";
        return 2;
    }
    for (auto const& [name, type] : test_types())
        std::cout << agentrt::ordered_json(boost::json::object{{"schema_of", name}, {"schema", agentrt::schema(*type)}})
                  << '\n';

    std::ifstream corpus(argv[1]);
    std::string line;
    for (int number = 1; std::getline(corpus, line); ++number) {
        if (line.empty() || line[0] == '#')
            continue;
        auto first = line.find(' '), second = line.find(' ', first + 1);
        auto type = test_types().find(line.substr(0, first));
        if (first == std::string::npos || second == std::string::npos || type == test_types().end()) {
            std::cerr << argv[1] << ":" << number << ": expected <type> <divergence> <document>\n";
            return 2;
        }
        std::string document = line.substr(second + 1);
        boost::json::array violations;
        auto read = agentrt::read_json(document);
        if (!read) {
            std::cerr << argv[1] << ":" << number << ": not for the oracle (the boundary refuses it): " << read.error()
                      << '\n';
            return 2;
        }
        for (auto const& v : agentrt::decode_into(*type->second, *read, nullptr))
            violations.push_back(boost::json::value(v.to_string()));
        std::cout << agentrt::ordered_json(
                         boost::json::object{{"line", number},
                                             {"type", type->first},
                                             {"divergence", line.substr(first + 1, second - first - 1)},
                                             {"document", document},
                                             {"accepted", violations.empty()},
                                             {"violations", std::move(violations)}})
                  << '\n';
    }
}
