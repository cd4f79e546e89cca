#pragma once

#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace traceprism::testing {

// A CSV as pandas writes it: header row, minimal quoting ("" escapes a quote), \n line ends.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  std::size_t column(const std::string& name) const {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
    return header.size();
  }
};

inline Csv parse_csv(const std::string& text) {
  Csv csv;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, any = false;
  auto end_record = [&] {
    record.push_back(field);
    field.clear();
    if (csv.header.empty())
      csv.header = record;
    else
      csv.rows.push_back(record);
    record.clear();
    any = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
      any = true;
    } else if (c == '\n') {
      end_record();
    } else if (c != '\r') {
      field += c;
      any = true;
    }
  }
  if (any || !field.empty()) end_record();
  return csv;
}

// A CSV cell read as a number: the whole cell, nullopt when it is empty or not a number.
inline std::optional<double> cell_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

}  // namespace traceprism::testing
