#include "display.hpp"

#include <doctest/doctest.h>

#include <string>

using agentrt::display::sanitize;

TEST_CASE("plain text, including non-ASCII letters, is shown as it is") {
    CHECK(sanitize("refund order 7") == "refund order 7");
    CHECK(sanitize("h\xC3\xA9llo \xE2\x9C\x93") == "h\xC3\xA9llo \xE2\x9C\x93");
}

TEST_CASE("control characters are shown escaped") {
    CHECK(sanitize("a\x1b[31mb\n") == "a\\u001b[31mb\\n");
    CHECK(sanitize("tab\there\rnul" + std::string(1, '\0') + "del\x7f") == "tab\\there\\rnul\\u0000del\\u007f");
    CHECK(sanitize("next\xC2\x85line") == "next\\u0085line"); // C1 control NEL
}

TEST_CASE("bidirectional overrides and isolates are shown escaped") {
    CHECK(sanitize("txt.\xE2\x80\xAE"
                   "exe") == "txt.\\u202eexe");
    CHECK(sanitize("\xE2\x80\xAA\xE2\x80\xAB\xE2\x80\xAC\xE2\x80\xAD") == "\\u202a\\u202b\\u202c\\u202d");
    CHECK(sanitize("\xE2\x81\xA6\xE2\x81\xA7\xE2\x81\xA8\xE2\x81\xA9") == "\\u2066\\u2067\\u2068\\u2069");
}

TEST_CASE("zero-width characters are shown escaped") {
    CHECK(sanitize("a\xE2\x80\x8B"
                   "b\xE2\x80\x8C"
                   "c\xE2\x80\x8D"
                   "d\xE2\x81\xA0"
                   "e\xEF\xBB\xBF") == "a\\u200bb\\u200cc\\u200dd\\u2060e\\ufeff");
}

TEST_CASE("line and paragraph separators are shown escaped") {
    CHECK(sanitize("one\xE2\x80\xA8two\xE2\x80\xA9three") == "one\\u2028two\\u2029three");
}

TEST_CASE("invisible tag characters are shown escaped") {
    CHECK(sanitize("ok\xF3\xA0\x80\x81") == "ok\\U000e0001");
}

TEST_CASE("bytes that are not UTF-8 are shown as bytes") {
    CHECK(sanitize("bad\xFF") == "bad\\xff");
    CHECK(sanitize("overlong\xC0\xAF") == "overlong\\xc0\\xaf");
    CHECK(sanitize("surrogate\xED\xA0\x80") == "surrogate\\xed\\xa0\\x80");
    CHECK(sanitize("cut\xE2\x80") == "cut\\xe2\\x80");
}

TEST_CASE("a long string is shown head and tail with its length") {
    std::string text = std::string(50, 'a') + std::string(50, 'b');
    CHECK(sanitize(text, 30) == std::string(20, 'a') + " \xE2\x80\xA6 " + std::string(10, 'b') + " (100 bytes)");
    CHECK(sanitize(text, 100) == text);
    CHECK(sanitize(text) == text);
}

TEST_CASE("a cut never splits an escape or a character") {
    std::string overrides;
    for (int i = 0; i < 10; ++i)
        overrides += "\xE2\x80\xAE";
    CHECK(sanitize(overrides, 20) == "\\u202e\\u202e \xE2\x80\xA6 \\u202e (30 bytes)");
    std::string accents;
    for (int i = 0; i < 10; ++i)
        accents += "\xC3\xA9";
    CHECK(sanitize(accents, 9) == "\xC3\xA9\xC3\xA9\xC3\xA9 \xE2\x80\xA6 \xC3\xA9 (20 bytes)");
}
