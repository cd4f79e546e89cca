#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>

#include "text/json_writer.hpp"

namespace traceprism::text {
namespace {

TEST(JsonWriter, StableLayoutAndPythonFloats) {
  JsonWriter w;
  w.begin_object();
  w.key("a").value(1.89);
  w.key("b").value(2.0);
  w.key("c").begin_array().value("x\"y\n").value(std::int64_t{3}).end_array();
  w.key("d").begin_object().end_object();
  w.key("e").value(std::nan(""));
  w.end_object();
  EXPECT_EQ(w.str(),
            "{\n  \"a\": 1.89,\n  \"b\": 2.0,\n  \"c\": [\n    \"x\\\"y\\n\",\n    3\n  ],\n"
            "  \"d\": {},\n  \"e\": null\n}\n");
  auto parsed = boost::json::parse(w.str()).as_object();
  EXPECT_EQ(parsed.at("c").as_array()[0].as_string(), "x\"y\n");
}

TEST(JsonWriter, ControlCharactersAreEscaped) {
  EXPECT_EQ(json_quote(std::string("a\x01") + "b"), "\"a\\u0001b\"");
}

TEST(JsonWriter, InvalidUtf8IsReplacedSoTheDocumentStaysValid) {
  JsonWriter w;
  w.begin_object();
  w.key("path\xE9").value("trace\xFF.json");
  w.end_object();
  boost::system::error_code ec;
  const auto parsed = boost::json::parse(w.str(), ec);  // Boost.JSON rejects invalid UTF-8
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(parsed.as_object().at("path\xEF\xBF\xBD").as_string(), "trace\xEF\xBF\xBD.json");
}

}  // namespace
}  // namespace traceprism::text
