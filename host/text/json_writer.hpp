#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::text {

// A small streaming JSON writer with stable formatting: two-space indentation, keys in the order
// written, doubles in Python's repr form (the reference's numbers print the same way). Used for
// findings.json so that the same findings give byte-identical files.
class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view v);
  JsonWriter& value(const char* v) { return value(std::string_view(v)); }
  JsonWriter& value(const std::string& v) { return value(std::string_view(v)); }
  JsonWriter& value(double v);  // NaN and infinities become null
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(std::uint64_t v);
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(bool v);
  JsonWriter& null();

  const std::string& str() const { return out_; }

 private:
  void before_value();
  void newline();
  struct Level {
    bool array;
    bool empty = true;
  };
  std::vector<Level> stack_;
  bool after_key_ = false;
  std::string out_;
};

// JSON string escaping (quotes included).
std::string json_quote(std::string_view s);

}  // namespace traceprism::text
