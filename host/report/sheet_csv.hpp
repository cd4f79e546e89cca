// The perf report's CSV writer: the one place a typed sheet becomes CSV text.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "perf_report/perf_report.hpp"
#include "perf_report/sheet_table.hpp"

namespace traceprism::report {

// pandas DataFrame.to_csv(index=False): a header line, one line per row, minimal quoting, "\n" line
// ends. A sheet without columns is a lone "\n" (pandas' 1-byte file).
std::string sheet_csv(const perf_report::SheetTable& sheet);

// Creates `dir` and writes each sheet to `dir/<name>.csv`, atomically. Throws
// std::runtime_error with one sentence when the folder cannot be made or a file written.
void write_perf_sheets(const std::filesystem::path& dir,
                       const std::vector<perf_report::PerfSheet>& sheets);

}  // namespace traceprism::report
