#pragma once

#include <string_view>

#include "text/csv_sheet.hpp"

namespace traceprism::text {

// Reads CSV text as pandas writes it (header line, minimal quoting with "" for a quote, \n
// line ends) back into a sheet; the inverse of CsvSheet::to_csv().
CsvSheet parse_csv_sheet(std::string_view text);

}  // namespace traceprism::text
