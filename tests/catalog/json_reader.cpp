#include <agentrt/catalog/json_reader.hpp>

#include <agentrt/catalog/canonical_json.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using agentrt::read_json;

namespace {

// The one violation of a refused text, as "pointer: keyword detail".
std::string refusal(std::string_view text) {
    auto v = read_json(text);
    REQUIRE_FALSE(v.has_value());
    CHECK(v.error().code == agentrt::errc::invalid_json);
    REQUIRE(v.error().violations.size() == 1);
    return v.error().violations[0].to_string();
}

std::string read_back(std::string_view text) {
    auto v = read_json(text);
    REQUIRE_MESSAGE(v.has_value(), v.error());
    return agentrt::canonical_json(*v);
}

} // namespace

TEST_CASE("the boundary reads exactly one value") {
    CHECK(read_back(R"( {"a": [1, true, null, "x"]} )") == R"({"a":[1,true,null,"x"]})");
    CHECK(refusal("") == "(root): empty no JSON value");
    CHECK(refusal("  \n") == "(root): empty no JSON value");
    CHECK(refusal("1 2") == "(root): trailingContent more than one JSON value");
    CHECK(refusal("{} []") == "(root): trailingContent more than one JSON value");
    CHECK(refusal(R"({"a": [1, 2)") == "/a/2: truncated the text ends inside a value");
}

TEST_CASE("the boundary refuses a duplicate key and says where") {
    CHECK(refusal(R"({"a": 1, "a": 2})") == R"(/a: duplicateKey key "a" appears twice)");
    CHECK(refusal(R"({"x": [{"k": 1}, {"k": 1, "k": 1}]})") == R"(/x/1/k: duplicateKey key "k" appears twice)");
    CHECK(read_back(R"([{"k": 1}, {"k": 2}])") == R"([{"k":1},{"k":2}])");
}

TEST_CASE("an object with a hundred thousand distinct keys is read, and a late duplicate is still found") {
    std::string many = "{";
    for (int i = 0; i < 100'000; ++i)
        many += (i ? ",\"a" : "\"a") + std::to_string(i) + "\":0";
    auto read = read_json(many + "}");
    REQUIRE(read.has_value());
    CHECK(read->as_object().size() == 100'000);

    std::string duplicated = many + ",\"a7\":1}";
    auto v = read_json(duplicated);
    REQUIRE_FALSE(v.has_value());
    REQUIRE(v.error().violations.size() == 1);
    CHECK(v.error().violations[0].to_string() == R"(/a7: duplicateKey key "a7" appears twice)");
    CHECK(v.error().message ==
          "invalid JSON at byte " + std::to_string(duplicated.rfind("\"a7\"") + 3) + R"(: key "a7" appears twice)");
    // Keys are unique per object: the same key in sibling and nested objects is no duplicate.
    CHECK(read_back(R"({"k": {"k": 1}, "j": {"k": 2, "j": 3}})") == R"({"j":{"j":3,"k":2},"k":{"k":1}})");
}

TEST_CASE("a duplicate is found in objects of any size at any depth, and only within its object") {
    auto keys = [](int from, int to) {
        std::string out;
        for (int i = from; i < to; ++i)
            out += (i > from ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
        return out;
    };
    for (int size : {3, 16, 17, 40}) {
        CAPTURE(size);
        std::string const inner = "{" + keys(0, size) + "}";
        CHECK(read_json(R"({"big": )" + inner + R"(, "k0": )" + inner + R"(, "k1": [)" + inner + "]}"));
        CHECK(refusal(R"({"big": {)" + keys(0, size) + R"(, "k2": 0}})") ==
              R"(/big/k2: duplicateKey key "k2" appears twice)");
        CHECK(refusal(R"({"big": )" + inner + R"(, "k0": 1, "big": 2})") ==
              R"(/big: duplicateKey key "big" appears twice)");
        CHECK(refusal(R"({"a": [)" + inner + "," + inner + R"(, {"x\"y": 1, "x\u0022y": 2}]})") ==
              R"(/a/2/x"y: duplicateKey key "x\"y" appears twice)");
    }
}

TEST_CASE("a duplicate key is found whatever the values it repeats hold") {
    CHECK(refusal(R"({"a": {"b": {"c": []}}, "d": {}, "a": 2})") == R"(/a: duplicateKey key "a" appears twice)");
    CHECK(refusal(R"({"a": 1, "d": {"e": 1}, "a": {"e": 1}})") == R"(/a: duplicateKey key "a" appears twice)");
    CHECK(refusal(R"([[{}], {"a\u0062": {}, "ab": {}}])") == R"(/1/ab: duplicateKey key "ab" appears twice)");
    CHECK(read_back(R"([{"a": {}}, {"a": {"a": {}}}])") == R"([{"a":{}},{"a":{"a":{}}}])");
}

TEST_CASE("the boundary refuses nesting deeper than 256") {
    std::string ok = std::string(256, '[') + std::string(256, ']');
    CHECK(read_json(ok).has_value());
    std::string deep = std::string(257, '[') + std::string(257, ']');
    auto v = read_json(deep);
    REQUIRE_FALSE(v.has_value());
    CHECK(v.error().violations[0].keyword == "maxDepth");
    CHECK(v.error().message == "invalid JSON at byte 256: nesting deeper than 256");
    agentrt::read_limits shallow;
    shallow.max_depth = 2;
    CHECK(read_json("[[1]]", shallow).has_value());
    CHECK_FALSE(read_json("[[[1]]]", shallow).has_value());
}

TEST_CASE("the boundary refuses invalid UTF-8 anywhere with its own message") {
    CHECK(refusal("\"a\xff\"") == "(root): utf8 invalid UTF-8 byte sequence");
    CHECK(refusal("\"\xc0\xaf\"") == "(root): utf8 invalid UTF-8 byte sequence");         // overlong '/'
    CHECK(refusal("\"\xed\xa0\x80\"") == "(root): utf8 invalid UTF-8 byte sequence");     // encoded surrogate
    CHECK(refusal("\"\xf4\x90\x80\x80\"") == "(root): utf8 invalid UTF-8 byte sequence"); // above U+10FFFF
    CHECK(read_back("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"") == "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    auto v = read_json("[1, \"ok\", \"\xe2\x82\"]");
    REQUIRE_FALSE(v.has_value());
    CHECK(v.error().message == "invalid JSON at byte 11: invalid UTF-8 byte sequence");
    // Whatever else is wrong before it.
    CHECK(refusal("{\"a\": 1, \"a\": 2, \"b\": \"\xff\"}") == "(root): utf8 invalid UTF-8 byte sequence");
    CHECK(refusal("[1,, \"\xff\"]") == "(root): utf8 invalid UTF-8 byte sequence");
    CHECK(refusal("{} \"\xff\"") == "(root): utf8 invalid UTF-8 byte sequence");
}

namespace {

// Well-formed UTF-8 as the Unicode Standard's table 3-7 has it.
bool well_formed_utf8(std::string_view s) {
    auto in = [](unsigned char c, unsigned lo, unsigned hi) { return c >= lo && c <= hi; };
    for (std::size_t i = 0; i < s.size();) {
        auto b = [&](std::size_t k) { return i + k < s.size() ? (unsigned char)s[i + k] : 0u; };
        std::size_t n = 0;
        if (b(0) <= 0x7f)
            n = 1;
        else if (in(b(0), 0xc2, 0xdf) && in(b(1), 0x80, 0xbf))
            n = 2;
        else if ((b(0) == 0xe0 && in(b(1), 0xa0, 0xbf)) || (in(b(0), 0xe1, 0xec) && in(b(1), 0x80, 0xbf)) ||
                 (b(0) == 0xed && in(b(1), 0x80, 0x9f)) || (in(b(0), 0xee, 0xef) && in(b(1), 0x80, 0xbf)))
            n = in(b(2), 0x80, 0xbf) ? 3 : 0;
        else if ((b(0) == 0xf0 && in(b(1), 0x90, 0xbf)) || (in(b(0), 0xf1, 0xf3) && in(b(1), 0x80, 0xbf)) ||
                 (b(0) == 0xf4 && in(b(1), 0x80, 0x8f)))
            n = in(b(2), 0x80, 0xbf) && in(b(3), 0x80, 0xbf) ? 4 : 0;
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

} // namespace

TEST_CASE("a string is refused by the UTF-8 rule exactly when its bytes are not well-formed UTF-8") {
    // Every sequence of one and two bytes, and three and four bytes over each lead byte with
    // continuation bytes at the edges of every range of table 3-7.
    std::vector<std::string> cases;
    for (unsigned a = 0; a < 256; ++a) {
        cases.push_back(std::string(1, char(a)));
        for (unsigned b = 0; b < 256; ++b)
            cases.push_back({char(a), char(b)});
    }
    unsigned char const edges[] = {0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0};
    for (unsigned lead = 0xc0; lead < 256; ++lead)
        for (auto x : edges)
            for (auto y : edges) {
                cases.push_back({char(lead), char(x), char(y)});
                for (auto z : edges)
                    cases.push_back({char(lead), char(x), char(y), char(z)});
            }
    std::size_t refused_as_utf8 = 0;
    for (auto const& bytes : cases) {
        auto v = read_json("\"" + bytes + "\"");
        bool const by_utf8_rule = !v && v.error().violations.at(0).keyword == agentrt::boundary_rule::utf8;
        refused_as_utf8 += by_utf8_rule;
        if (by_utf8_rule == well_formed_utf8(bytes))
            FAIL_CHECK("bytes " << agentrt::canonical_json(boost::json::string(bytes)) << " are "
                                << (well_formed_utf8(bytes) ? "" : "not ") << "well-formed, yet "
                                << (v ? "accepted" : v.error().message));
    }
    CHECK(refused_as_utf8 > cases.size() / 2);
}

TEST_CASE("the boundary refuses a \\u escape of an unpaired surrogate") {
    std::string const rule = "unpairedSurrogate \\u escape of an unpaired UTF-16 surrogate";
    CHECK(refusal(R"("\ud800")") == "(root): " + rule);
    CHECK(refusal(R"("\ud800x")") == "(root): " + rule);
    CHECK(refusal(R"("\udc00")") == "(root): " + rule);
    CHECK(refusal(R"("\ud800\u0041")") == "(root): " + rule);
    CHECK(refusal(R"({"k": ["\uDBFF"]})") == "/k/0: " + rule);
    CHECK(read_back(R"("\ud83d\ude00")") == "\"\xf0\x9f\x98\x80\"");
}

TEST_CASE("the boundary refuses number literals too long or with exponents too large") {
    std::string long_literal = "1" + std::string(10'000, '0');
    CHECK(refusal(long_literal).starts_with("(root): numberLength number literal longer than 10000"));
    CHECK(refusal("1e10001") == "(root): exponent exponent of 1e10001 is beyond ±10000");
    CHECK(refusal("[1E-99999]") == "/0: exponent exponent of 1E-99999 is beyond ±10000");
    CHECK(refusal("1e400") == "(root): numberRange 1e400 is outside the range of a double");
    CHECK(refusal("-1e400") == "(root): numberRange -1e400 is outside the range of a double");
    CHECK(refusal("1e-400") == "(root): numberRange 1e-400 is outside the range of a double");
    std::string just_fits = "1" + std::string(9'999, '0');
    CHECK_FALSE(read_json(just_fits).has_value()); // a 10,000-digit integer is beyond a double
    CHECK(read_json("1" + std::string(300, '0')).has_value());
}

TEST_CASE("a number with a zero fractional part is read as an integer") {
    CHECK(read_json("1.0").value().is_int64());
    CHECK(read_back("1.0") == "1");
    CHECK(read_back("1e2") == "100");
    CHECK(read_back("-0.0") == "0");
    CHECK(read_back("2.50e1") == "25");
    CHECK(read_back("9223372036854775807") == "9223372036854775807");
    CHECK(read_back("-9223372036854775808") == "-9223372036854775808");
    CHECK(read_json("18446744073709551615").value().is_uint64());
    CHECK(read_json("1.5").value().is_double());
    CHECK(read_json("18446744073709551616").value().is_double()); // beyond 64 bits
}

TEST_CASE("a non-integral number is the double nearest its literal") {
    // Boost.JSON 1.81's own conversion is one ulp off for about 10% of doubles: ours is exact.
    CHECK(read_json("0.1").value().get_double() == 0.1);
    CHECK(read_json("2.2250738585072014e-308").value().get_double() == 2.2250738585072014e-308);
    CHECK(read_json("0.30000000000000004").value().get_double() == 0.30000000000000004);
    CHECK(read_json("1.7976931348623157e308").value().get_double() == 1.7976931348623157e308);
}

TEST_CASE("a number literal that is not mathematically an integer is refused when the nearest double is one") {
    // Read as a double it would be an integer: 1 for an integer member, and "1" in canonical form.
    CHECK(refusal("0.99999999999999999999") ==
          "(root): numberPrecision 0.99999999999999999999 is not an integer, but the double nearest it is");
    CHECK(refusal("[2.0000000000000001]") ==
          "/0: numberPrecision 2.0000000000000001 is not an integer, but the double nearest it is");
    CHECK(refusal(R"({"n": -2000000000000000.01e-3})") ==
          "/n: numberPrecision -2000000000000000.01e-3 is not an integer, but the double nearest it is");
    CHECK(refusal("9007199254740993.5") ==
          "(root): numberPrecision 9007199254740993.5 is not an integer, but the double nearest it is");
    CHECK(refusal("1" + std::string(30, '0') + ".5") ==
          "(root): numberPrecision 1" + std::string(30, '0') + ".5 is not an integer, but the double nearest it is");

    // Integers however written, and fractions a double keeps, are read as before.
    CHECK(read_back("1.5e1") == "15");
    CHECK(read_back("100000000000000000000.0e-1") == "10000000000000000000");
    CHECK(read_json("2.000000000000001").value().get_double() == 2.000000000000001);
    CHECK(read_json("0.9999999999999999").value().get_double() == 0.9999999999999999);
    CHECK(read_json("1e300").value().get_double() == 1e300);
    CHECK(read_json("123.456e78").value().get_double() == 123.456e78);
}

TEST_CASE("the boundary refuses syntax errors with the parser's reason") {
    auto v = read_json("[1,]");
    REQUIRE_FALSE(v.has_value());
    CHECK(v.error().violations[0].keyword == "syntax");
    CHECK(refusal("{\"a\" 1}").starts_with("/a: syntax"));
    CHECK(refusal("// comment\n1").starts_with("(root): syntax"));
}
