// The JSON boundary against random texts whose objects often repeat a key, spelled plainly or
// escaped: it reads an accepted text once and finds a duplicate by counting, so this pins that the
// count misses none and invents none.
#include <agentrt/catalog/json_reader.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/fuzz/doctest.hpp>

#include <boost/json/parse.hpp>

#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace {

struct key_spelling {
    std::string_view text; // as it appears between the quotes
    std::string_view key;  // the key it means
};

constexpr key_spelling spellings[] = {
    {"a", "a"}, {"b", "b"}, {"ab", "ab"}, {"a\\u0062", "ab"}, {"\\u0061", "a"}, {"a\\\"", "a\""},
};

// A random JSON text of at most `depth` levels; `duplicate` is set when an object in it repeats a key.
std::string random_value(int depth, bool& duplicate) {
    int const kind = *rc::gen::inRange(0, depth > 0 ? 4 : 2);
    if (kind == 0)
        return std::to_string(*rc::gen::inRange(-3, 4));
    if (kind == 1)
        return *rc::gen::element<std::string>("true", "null", R"("x")", "[]", "{}");
    int const size = *rc::gen::inRange(0, 5);
    std::string out = kind == 2 ? "[" : "{";
    std::set<std::string_view> keys;
    for (int i = 0; i < size; ++i) {
        if (i > 0)
            out += ", ";
        if (kind == 3) {
            auto const& k = spellings[*rc::gen::inRange<std::size_t>(0, std::size(spellings))];
            duplicate |= !keys.insert(k.key).second;
            out += "\"" + std::string(k.text) + "\": ";
        }
        out += random_value(depth - 1, duplicate);
    }
    return out + (kind == 2 ? "]" : "}");
}

} // namespace

TEST_CASE("the boundary refuses a text exactly when one of its objects repeats a key, and reads the rest as "
          "Boost.JSON does") {
    AGENTRT_CHECK_PROPERTY("duplicate keys", [] {
        bool duplicate = false;
        std::string const text = random_value(3, duplicate);
        RC_CLASSIFY(duplicate);
        auto read = agentrt::read_json(text);
        RC_ASSERT(read.has_value() == !duplicate);
        if (read)
            RC_ASSERT(agentrt::canonical_json(*read) == agentrt::canonical_json(boost::json::parse(text)));
        else
            RC_ASSERT(read.error().violations.at(0).keyword == "duplicateKey");
    });
}
