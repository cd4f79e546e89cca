// The perf report's typed sheets and their one CSV writer (report/sheet_csv.hpp): cells print
// as pandas' to_csv prints the reference's DataFrame.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "perf_report/sheet_table.hpp"
#include "report/sheet_csv.hpp"
#include "support/temp_dir.hpp"

namespace {

using traceprism::perf_report::Cell;
using traceprism::perf_report::PerfSheet;
using traceprism::perf_report::SheetTable;
using traceprism::report::sheet_csv;

TEST(Cell, KeepsTheKindAndPrintsAsPandas) {
  EXPECT_EQ(Cell::real(100).kind(), Cell::Kind::kReal);
  EXPECT_EQ(Cell::real(100).display(), "100.0");
  EXPECT_EQ(Cell::real(7.2192e-05).display(), "7.2192e-05");
  EXPECT_EQ(Cell::real(0.19759814453125).display(), "0.19759814453125");
  EXPECT_EQ(Cell::real(1e16).display(), "1e+16");
  EXPECT_TRUE(Cell::real(std::numeric_limits<double>::quiet_NaN()).empty());
  EXPECT_EQ(Cell::integer(-42).kind(), Cell::Kind::kInteger);
  EXPECT_EQ(Cell::integer(-42).display(), "-42");
  EXPECT_EQ(Cell("((512,), (141, 512))").as_text(), "((512,), (141, 512))");
  EXPECT_EQ(Cell().display(), "");
  EXPECT_EQ(traceprism::perf_report::float_cell(std::optional<double>()), Cell());
  EXPECT_EQ(traceprism::perf_report::text_cell(std::optional<std::string>("x")), Cell("x"));
}

TEST(SheetCsv, PandasLayout) {
  EXPECT_EQ(sheet_csv(SheetTable{}), "\n");  // a frame without columns: pandas' 1-byte file
  EXPECT_EQ(sheet_csv(SheetTable{{"bin_start", "bin_end", "count"}, {}}),
            "bin_start,bin_end,count\n");
  const SheetTable sheet{{"a", "b", "c"},
                         {{"x,y", Cell::real(0.5), Cell::integer(3)},
                          {Cell(), Cell::real(std::nan("")), "say \"hi\""}}};
  EXPECT_EQ(sheet_csv(sheet), "a,b,c\n\"x,y\",0.5,3\n,,\"say \"\"hi\"\"\"\n");
  EXPECT_EQ(sheet.column_index("b"), 1u);
  EXPECT_EQ(sheet.column_index("z"), 3u);
}

TEST(SheetCsv, WritesEverySheetIntoTheFolder) {
  traceprism::testing::TempDir dir;
  const auto folder = dir.path() / "nested" / "csvs";
  traceprism::report::write_perf_sheets(
      folder, {PerfSheet{"one", {{"a"}, {{Cell::integer(1)}}}}, PerfSheet{"two", {}}});
  EXPECT_EQ(traceprism::testing::read_file((folder / "one.csv").string()), "a\n1\n");
  EXPECT_EQ(traceprism::testing::read_file((folder / "two.csv").string()), "\n");
  EXPECT_THROW(traceprism::report::write_perf_sheets(folder / "one.csv", {}), std::runtime_error);
}

}  // namespace
