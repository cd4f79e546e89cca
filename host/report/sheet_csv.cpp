#include "report/sheet_csv.hpp"

#include "io/output_file.hpp"
#include "text/python_format.hpp"

namespace traceprism::report {

namespace fs = std::filesystem;

std::string sheet_csv(const perf_report::SheetTable& sheet) {
  if (sheet.columns.empty()) return "\n";
  std::string out;
  for (std::size_t i = 0; i < sheet.columns.size(); ++i) {
    if (i) out += ',';
    out += text::csv_field(sheet.columns[i]);
  }
  out += '\n';
  for (const std::vector<perf_report::Cell>& row : sheet.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) out += ',';
      out += text::csv_field(row[i].display());
    }
    out += '\n';
  }
  return out;
}

void write_perf_sheets(const fs::path& dir, const std::vector<perf_report::PerfSheet>& sheets) {
  io::create_output_folder(dir);
  for (const perf_report::PerfSheet& sheet : sheets)
    io::write_text_file_atomically((dir / (sheet.name + ".csv")).string(), sheet_csv(sheet.table));
}

}  // namespace traceprism::report
