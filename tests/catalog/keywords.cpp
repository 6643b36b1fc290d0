// Keywords as types: exact decimals, the pattern subset, and what lands in the type's constraints.
#include <agentrt/catalog/keywords.hpp>

#include <agentrt/catalog/decode.hpp>
#include <agentrt/catalog/reflect.hpp>

#include "support/test_tools.hpp"

#include <doctest/doctest.h>

using agentrt::compare;
using agentrt::decimal;
using agentrt::pattern_problem;

TEST_SUITE("keywords") {

    TEST_CASE("a decimal literal is exact and normalised") {
        static_assert(decimal("0.01").magnitude == 1 && decimal("0.01").exponent == -2);
        static_assert(decimal("1.50").magnitude == 15 && decimal("1.50").exponent == -1);
        static_assert(decimal("-2.5e3") == decimal(-2500));
        static_assert(decimal("1e2") == decimal(100));
        static_assert(decimal("-0.0") == decimal(0));
        static_assert(decimal(INT64_MIN).negative && decimal(INT64_MIN).magnitude == 9223372036854775808ull);
        CHECK(decimal("12.30").magnitude == 123);
    }

    TEST_CASE("decimals compare exactly, across signs and magnitudes") {
        static_assert(compare(decimal("0.1"), decimal("0.10")) == 0);
        static_assert(compare(decimal("-2.5"), decimal("2.5")) < 0);
        static_assert(compare(decimal("0.011"), decimal("0.01")) > 0);
        static_assert(compare(decimal("-0.011"), decimal("-0.01")) < 0);
        static_assert(compare(decimal(UINT64_MAX), decimal("1.8446744073709551e19")) > 0);
        static_assert(compare(decimal(UINT64_MAX - 615), decimal("1.8446744073709551e19")) == 0);
        static_assert(compare(decimal("1e-9"), decimal(0)) > 0);
        CHECK(compare(decimal("99.9"), decimal(100)) < 0);
    }

    TEST_CASE("patterns inside the subset have no problem") {
        for (std::string_view p : {"^[a-z][a-z0-9_]*$", "^\\d{3}-\\d{4}$", "a|b|(?:cd)+?", "^[^@ ]+@[^@ ]+$",
                                   "\\+[0-9]{6,15}", "x{2,}", "[\\w.-]+", "\\.\\*\\\\", ""})
            CHECK_MESSAGE(pattern_problem(p).empty(), p << ": " << pattern_problem(p));
    }

    TEST_CASE("patterns outside the subset are refused, each saying why") {
        for (std::string_view p : {"(a)\\1", "(?=a)", "(?!a)", "(?<=a)", "(?<n>a)", "\\bword", "\\p{L}", "\\u0041",
                                   "\\x41", "a]", "a}", "*a", "a**", "(ab", "ab)", "[a-", "a{1001}", "a{3,2}", "(?i)a"})
            CHECK_MESSAGE(!pattern_problem(p).empty(), p);
    }

    TEST_CASE("nested repetition counts whose product passes 1000 are refused, as RE2 refuses them") {
        for (std::string_view p : {"^([a-z]{1,64}\\.){1,20}$", "((a{10}){10}){11}", "(a{2,}){501}",
                                   "(?:a{1000}b{2}){2}", "(x|(a{100}){11})"})
            CHECK_MESSAGE(pattern_problem(p) == "nested repetition counts whose product is above 1000", p);
        for (std::string_view p : {"((a{10}){10}){10}", "(a*){1000}", "(a{1000}|b){1}", "(?:a{1000}b{2})+",
                                   "(a{0}){1000}", "a{1000}b{1000}"})
            CHECK_MESSAGE(pattern_problem(p).empty(), p << ": " << pattern_problem(p));

        // At exactly 1000, RE2 compiles the pattern: decoding matches instead of throwing.
        using domain = agentrt::field<std::string, agentrt::pattern<"^([a-z]{1,50}\\.){1,20}$">>;
        CHECK(agentrt::decode<domain>(R"("example.org.")"));
        CHECK_FALSE(agentrt::decode<domain>(R"("example.org")"));
    }

    TEST_CASE("a field reads as its plain value and carries its keywords into the type's constraints") {
        using bounded =
            agentrt::field<int, agentrt::minimum<1>, agentrt::maximum<10>, agentrt::description<"How many">>;
        bounded n = 5;
        int plain = n;
        CHECK(plain == 5);
        auto const& info = agentrt::type_info_of<bounded>();
        CHECK(info.kind == agentrt::type_kind::integer);
        REQUIRE(info.keywords.minimum);
        CHECK(*info.keywords.minimum == decimal(1));
        CHECK(*info.keywords.maximum == decimal(10));
        CHECK(info.keywords.description == "How many");
    }

    TEST_CASE("a float member's bounds reach at most FLT_MAX, and a value at the bound decodes as FLT_MAX") {
        // A bound beyond FLT_MAX (maximum<"1e39">) does not compile: tests/compile_fail.
        using widest = agentrt::field<float, agentrt::minimum<"-3.4028234663852886e38">,
                                      agentrt::maximum<"3.4028234663852886e38">>;
        auto at_bound = agentrt::decode<widest>("3.4028234663852886e38");
        REQUIRE(at_bound);
        CHECK(float(*at_bound) == std::numeric_limits<float>::max());
        auto below = agentrt::decode<widest>("-3.4028234663852886e38");
        REQUIRE(below);
        CHECK(float(*below) == std::numeric_limits<float>::lowest());
        auto beyond = agentrt::decode<widest>("3.5e38");
        REQUIRE_FALSE(beyond);
        CHECK(beyond.error().violations[0].keyword == "maximum");
    }

    TEST_CASE("an integer member without bounds gets the bounds of its C++ type, narrowed ones keep theirs") {
        auto const& wide = agentrt::type_info_of<std::int16_t>();
        CHECK(*wide.keywords.minimum == decimal(-32768));
        CHECK(*wide.keywords.maximum == decimal(32767));
        auto const& narrowed = agentrt::type_info_of<agentrt::field<std::uint8_t, agentrt::maximum<9>>>();
        CHECK(*narrowed.keywords.minimum == decimal(0));
        CHECK(*narrowed.keywords.maximum == decimal(9));
    }
}
