#include "text/csv_parse.hpp"

namespace traceprism::text {

CsvSheet parse_csv_sheet(std::string_view text) {
  CsvSheet sheet;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  bool header_done = false;
  auto end_record = [&] {
    record.push_back(std::move(field));
    field.clear();
    if (!header_done) {
      sheet.columns = std::move(record);
      header_done = true;
    } else {
      sheet.rows.push_back(std::move(record));
    }
    record.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      end_record();
    } else if (c != '\r') {
      field += c;
    }
  }
  if (!field.empty() || !record.empty()) end_record();
  // pandas writes a frame without columns as a lone newline: no columns, no rows.
  if (sheet.columns.size() == 1 && sheet.columns[0].empty()) sheet.columns.clear();
  return sheet;
}

}  // namespace traceprism::text
