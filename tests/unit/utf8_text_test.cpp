// Expected values are Python's bytes.decode("utf-8", errors="replace") of the same bytes.
#include "io/utf8_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace traceprism::io {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

std::string r(int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += kReplacement;
  return out;
}

TEST(Utf8Text, WellFormedTextIsKept) {
  const std::string text = "aten::mm \xE2\x82\xAC \xF0\x9F\x98\x80 \xC3\xA9";
  EXPECT_TRUE(is_valid_utf8(text));
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_EQ(valid_utf8(text), text);
}

TEST(Utf8Text, EachMaximalIllFormedSubsequenceBecomesOneReplacement) {
  EXPECT_EQ(valid_utf8("amp\xE9re"), "amp" + r(1) + "re");  // a lone lead byte
  EXPECT_EQ(valid_utf8("\xF0\x9F\x98"), r(1));              // truncated at the end
  EXPECT_EQ(valid_utf8("\xF0\x9F\x98"
                       "A"),
            r(1) + "A");                           // truncated before ASCII
  EXPECT_EQ(valid_utf8("\x80\xBF"), r(2));         // stray continuations
  EXPECT_EQ(valid_utf8("\xC0\x80x"), r(2) + "x");  // overlong NUL
  EXPECT_EQ(valid_utf8("a\xE0\x9F\x80"
                       "b"),
            "a" + r(3) + "b");                      // overlong 3-byte form
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), r(3));      // a surrogate
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), r(4));  // above U+10FFFF
  EXPECT_EQ(valid_utf8("\xFF"), r(1));
  for (const char* bad : {"amp\xE9re", "\xF0\x9F\x98", "\xC0\x80", "\xED\xA0\x80", "\xFF"})
    EXPECT_FALSE(is_valid_utf8(bad)) << bad;
}

}  // namespace
}  // namespace traceprism::io
