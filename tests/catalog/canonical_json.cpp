// The one spelling of a JSON value that is hashed, pinned.
#include <agentrt/catalog/canonical_json.hpp>

#include <agentrt/catalog/json_reader.hpp>

#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

namespace {
std::string canonical(std::string_view text) {
    auto v = agentrt::read_json(text);
    REQUIRE_MESSAGE(v, text);
    return agentrt::canonical_json(*v);
}
} // namespace

TEST_SUITE("canonical_json") {

    TEST_CASE("object keys are sorted bytewise at every depth, whitespace dropped") {
        CHECK(canonical(R"({ "b" : 1, "a" : [ true, null ], "B": {"z":1,"y":2} })") ==
              R"({"B":{"y":2,"z":1},"a":[true,null],"b":1})");
        CHECK(canonical(R"({"é":1,"z":2,"a":3})") == R"({"a":3,"z":2,"é":1})");
    }

    TEST_CASE("numbers equal under JSON Schema spell the same") {
        CHECK(canonical("1.0") == "1");
        CHECK(canonical("1e2") == "100");
        CHECK(canonical("-0") == "0");
        CHECK(canonical("-0.0") == "0");
        CHECK(canonical("0.1") == "0.1");
        CHECK(canonical("1.5e300") == "1.5e+300");
        CHECK(canonical("18446744073709551615") == "18446744073709551615");
        CHECK(canonical("-9223372036854775808") == "-9223372036854775808");
    }

    TEST_CASE("strings are escaped one fixed way") {
        CHECK(canonical(R"("a\"b\\c\/d")") == R"("a\"b\\c/d")");
        CHECK(canonical(R"("\n\t\r\b\f\u0001\u001f")") == R"("\n\t\r\b\f\u0001\u001f")");
        CHECK(canonical(R"("\u00e9\ud83d\ude00")") == "\"\xc3\xa9\xf0\x9f\x98\x80\"");
        CHECK(canonical("\"\\u007f\"") == "\"\x7f\"");
        CHECK(agentrt::json_string_literal("line\nbreak \"q\"") == R"("line\nbreak \"q\"")");
    }

    TEST_CASE("ordered_json keeps the stored key order") {
        auto v = agentrt::read_json(R"({"b":1,"a":2})");
        REQUIRE(v);
        CHECK(agentrt::ordered_json(*v) == R"({"b":1,"a":2})");
        CHECK(agentrt::canonical_json(*v) == R"({"a":2,"b":1})");
    }

    TEST_CASE("sha256 of known vectors, and the canonical hash ignores spelling") {
        CHECK(agentrt::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        CHECK(agentrt::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        auto a = agentrt::read_json(R"({"x": 1.0, "y": [1, 2]})");
        auto b = agentrt::read_json(R"({"y":[1,2],"x":1})");
        REQUIRE(a);
        REQUIRE(b);
        CHECK(agentrt::canonical_hash(*a) == agentrt::canonical_hash(*b));
        CHECK(agentrt::canonical_hash(*a) == agentrt::sha256_hex(R"({"x":1,"y":[1,2]})"));
    }

    TEST_CASE("a string is escaped the same wherever its escapes fall in the 32-byte blocks checked at once") {
        // Every byte value at every offset of strings of 0 to 40 bytes and around two and three
        // 32-byte blocks, against Boost.JSON's own escaping, which canonical JSON shares.
        std::vector<int> lengths;
        for (int length = 0; length <= 40; ++length)
            lengths.push_back(length);
        for (int length : {63, 64, 65, 95, 96, 97})
            lengths.push_back(length);
        for (int length : lengths)
            for (int at = 0; at < std::max(length, 1); ++at)
                for (int byte = 0; byte < 256; ++byte) {
                    std::string text(static_cast<std::size_t>(length), 'a');
                    if (length > 0)
                        text[static_cast<std::size_t>(at)] = static_cast<char>(byte);
                    auto expected = boost::json::serialize(boost::json::string(text));
                    if (agentrt::json_string_literal(text) != expected) {
                        CAPTURE(length);
                        CAPTURE(at);
                        CAPTURE(byte);
                        CHECK(agentrt::json_string_literal(text) == expected);
                    }
                    std::string appended = "x";
                    agentrt::append_json_string(appended, text);
                    if (appended != "x" + expected)
                        CHECK(appended == "x" + expected);
                }
    }
}
