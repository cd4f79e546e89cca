#include "io/json_text.hpp"

#include <gtest/gtest.h>

#include <string>

using traceprism::io::append_json_string;

namespace {

std::string quoted(std::string_view s) {
  std::string out = "prefix:";
  append_json_string(out, s);
  return out;
}

TEST(JsonText, PlainTextIsQuotedByteForByte) {
  EXPECT_EQ(quoted(""), "prefix:\"\"");
  EXPECT_EQ(quoted("float"), "prefix:\"float\"");
  EXPECT_EQ(quoted("caf\xC3\xA9 \xFF"), "prefix:\"caf\xC3\xA9 \xFF\"");  // bytes >= 0x80 kept
}

TEST(JsonText, QuotesBackslashesAndControlCharactersAreEscapedWhereverTheyAre) {
  EXPECT_EQ(quoted("\"a\""), R"(prefix:"\"a\"")");
  EXPECT_EQ(quoted("a\\b"), R"(prefix:"a\\b")");
  EXPECT_EQ(quoted("line\nnext\tcol\r"), R"(prefix:"line\nnext\tcol\r")");
  EXPECT_EQ(quoted(std::string_view("\x01x\x1f\0", 4)), R"(prefix:"\u0001x\u001f\u0000")");
  EXPECT_EQ(quoted("\\\\"), R"(prefix:"\\\\")");  // escapes back to back
}

}  // namespace
