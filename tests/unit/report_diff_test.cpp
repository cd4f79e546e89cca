// The report-level diff (trace-format spec §14.1) on small hand-made sheets: how cells are typed
// (as the reference's read_excel sees them), the pandas outer merge, and the diff / pct / split
// sheets, each expected value worked out by hand from the spec.
#include <gtest/gtest.h>

#include <map>

#include "comparison/frame_ops.hpp"
#include "comparison/report_diff.hpp"
#include "text/csv_parse.hpp"

namespace traceprism::comparison {
namespace {

using Kind = FrameValue::Kind;

SheetFrame frame(const std::string& csv) {
  return read_sheet_frame(text::parse_csv_sheet(csv));
}

std::string csv(const SheetFrame& f) {
  return write_sheet_frame(f).to_csv();
}

TEST(SheetFrame, TypesCellsAsTheReferenceReadsItsWorkbook) {
  EXPECT_EQ(parse_frame_value("").kind, Kind::kMissing);
  EXPECT_EQ(parse_frame_value("None").kind, Kind::kMissing);  // pandas 2 NA word
  EXPECT_EQ(parse_frame_value("nan").kind, Kind::kMissing);
  EXPECT_EQ(parse_frame_value("7").kind, Kind::kInteger);
  EXPECT_EQ(parse_frame_value("7.0").kind, Kind::kInteger);  // openpyxl + pandas: integral -> int
  EXPECT_EQ(parse_frame_value("-0.25").kind, Kind::kReal);
  EXPECT_EQ(parse_frame_value("1e-05").kind, Kind::kReal);
  EXPECT_EQ(parse_frame_value("True").kind, Kind::kBoolean);
  EXPECT_EQ(parse_frame_value("(1, 2)").kind, Kind::kText);
  EXPECT_EQ(parse_frame_value("aten::mm").kind, Kind::kText);
  EXPECT_EQ(parse_frame_value("e").kind, Kind::kText);
}

TEST(SheetFrame, InfersPandasDtypesAndPrintsThem) {
  const SheetFrame f = frame("i,r,m,b,bm,o,none\n1,1.5,7.0,True,True,x,\n2,2.0,,False,,3,\n");
  ASSERT_EQ(f.columns.size(), 7u);
  EXPECT_EQ(f.columns[0].type, ColumnType::kInteger);
  EXPECT_EQ(f.columns[1].type, ColumnType::kReal);
  EXPECT_EQ(f.columns[2].type, ColumnType::kReal);  // an int column with NaN is float64
  EXPECT_EQ(f.columns[3].type, ColumnType::kBoolean);
  EXPECT_EQ(f.columns[4].type, ColumnType::kObject);  // bool with NaN is object
  EXPECT_EQ(f.columns[5].type, ColumnType::kObject);
  EXPECT_EQ(f.columns[6].type, ColumnType::kReal);  // all NaN
  EXPECT_EQ(csv(f), "i,r,m,b,bm,o,none\n1,1.5,7.0,True,True,x,\n2,2.0,,False,,3,\n");
}

TEST(FrameOps, OuterMergeSortsKeysAndPairsDuplicatesLeftMajor) {
  const SheetFrame left = frame("k,l\nb,0\na,1\na,2\n");
  const SheetFrame right = frame("k,r\na,10\nc,11\na,12\n");
  const SheetFrame m = outer_merge(left, right, {"k"});
  EXPECT_EQ(csv(m),
            "k,l,r\n"
            "a,1.0,10.0\na,1.0,12.0\na,2.0,10.0\na,2.0,12.0\n"  // every pair, left-major
            "b,0.0,\n"
            "c,,11.0\n");  // both value columns gained NaN: float64
}

TEST(FrameOps, MergeKeysMatchAcrossIntAndFloatAndNaNMatchesNaN) {
  const SheetFrame left = frame("k,l\n1,a\n,b\n");
  const SheetFrame right = frame("k,r\n1.5,c\n1.0,d\n,e\n");
  EXPECT_EQ(csv(outer_merge(left, right, {"k"})), "k,l,r\n1.0,a,d\n1.5,,c\n,b,e\n");
}

TEST(FrameOps, SortsDescendingStableWithNaNLast) {
  SheetFrame f = frame("n,v\na,1\nb,\nc,3\nd,1\ne,x\n");
  sort_rows_descending(f, "v");
  EXPECT_EQ(csv(f), "n,v\nc,3\na,1\nd,1\nb,\ne,x\n");
}

TEST(FrameOps, DroppingAllNaNColumnsOfAnEmptyFrameLeavesNone) {
  SheetFrame f = frame("a,b\n");
  drop_all_missing_columns(f);
  EXPECT_EQ(csv(f), "\n");  // pandas' 1-byte CSV
}

SheetSource sheets(std::map<std::string, std::string> by_name) {
  return [by_name](const std::string& name) -> std::optional<SheetFrame> {
    auto it = by_name.find(name);
    if (it == by_name.end()) return std::nullopt;
    return frame(it->second);
  };
}

const DiffSheet* find(const ReportDiff& d, const std::string& name) {
  for (const DiffSheet& s : d.sheets)
    if (s.name == name) return &s;
  return nullptr;
}

TEST(ReportDiff, OpsSummaryDiffsPctAndBaselineOrder) {
  const std::string base =
      "name,total_direct_kernel_time_sum,total_direct_kernel_time_ms,Count,Cumulative Percentage "
      "(%)\naten::mm,2000.0,2.0,4,50.0\naten::add,0.0,0.0,3,100.0\n";
  const std::string variant =
      "name,total_direct_kernel_time_sum,total_direct_kernel_time_ms,Count,Cumulative Percentage "
      "(%)\naten::add,500.0,0.5,3,20.0\naten::mm,3000.0,3.0,4,100.0\naten::gelu,1.0,0.001,1,9\n";
  const ReportDiff d = diff_perf_reports(
      {{"a", sheets({{"ops_summary", base}})}, {"b", sheets({{"ops_summary", variant}})}},
      {SheetGroup::kOpsSummary});
  const DiffSheet* s = find(d, "ops_summary");
  ASSERT_NE(s, nullptr);
  // mm: 3 - 2 = 1 ms, +50 %; add: base 0 -> pct NaN; gelu only in b: sorted last (NaN base).
  // a::Count gained NaN (gelu) so prints as float; b's cumulative % is dropped.
  EXPECT_EQ(csv(s->frame),
            "name,total_direct_kernel_time_ms__b_diff,total_direct_kernel_time_ms__b_pct,"
            "Count__b_diff,Count__b_pct,a::total_direct_kernel_time_ms,a::Count,"
            "a::Cumulative Percentage (%),b::total_direct_kernel_time_ms,b::Count\n"
            "aten::mm,1.0,50.0,0.0,0.0,2.0,4.0,50.0,3.0,4\n"
            "aten::add,0.5,,0.0,0.0,0.0,3.0,100.0,0.5,3\n"
            "aten::gelu,,,,,,,,0.001,1\n");
  EXPECT_TRUE(d.skipped.empty());
}

TEST(ReportDiff, SplitsOpsIntoIntersectAndOnlySheets) {
  const std::string header =
      "name,Input type,Input Dims,Input Strides,Concrete Inputs,total_direct_kernel_time_sum,"
      "total_direct_kernel_time_mean,operation_count\n";
  const std::string base =
      header + "aten::mm,\"('float',)\",\"((2, 2),)\",\"((2, 1),)\",\"('',)\",10,5,2\n" +
      "aten::relu,(),(),(),(),4,4,1\n";
  const std::string variant =
      header + "aten::mm,\"('float',)\",\"((2, 2),)\",\"((2, 1),)\",\"('',)\",16,8,2\n";
  const ReportDiff d = diff_perf_reports({{"base", sheets({{"ops_unique_args", base}})},
                                          {"v", sheets({{"ops_unique_args", variant}})}},
                                         {SheetGroup::kOpsAll});
  const DiffSheet* both = find(d, "ops_unique_args_intersect_v");
  const DiffSheet* base_only = find(d, "ops_unique_args_only_baseline_v");
  const DiffSheet* variant_only = find(d, "ops_unique_args_only_variant_v");
  ASSERT_TRUE(both && base_only && variant_only);
  // Integer columns on both sides of the matched row stay integers (16 - 10 = 6, +60 %).
  EXPECT_EQ(csv(both->frame),
            "name,Input type,Input Dims,Input Strides,Concrete Inputs,"
            "total_direct_kernel_time_sum__v_diff,total_direct_kernel_time_sum__v_pct,"
            "total_direct_kernel_time_mean__v_diff,total_direct_kernel_time_mean__v_pct,"
            "operation_count__v_diff,operation_count__v_pct,base::total_direct_kernel_time_sum,"
            "base::total_direct_kernel_time_mean,base::operation_count,"
            "v::total_direct_kernel_time_sum,v::total_direct_kernel_time_mean,v::operation_count\n"
            "aten::mm,\"('float',)\",\"((2, 2),)\",\"((2, 1),)\",\"('',)\",6.0,60.0,3.0,60.0,0.0,"
            "0.0,10,5,2,16.0,8.0,2.0\n");
  // The baseline-only row keeps the baseline's columns; no diff column (all NaN) survives.
  EXPECT_EQ(csv(base_only->frame),
            "name,Input type,Input Dims,Input Strides,Concrete Inputs,"
            "base::total_direct_kernel_time_sum,base::total_direct_kernel_time_mean,"
            "base::operation_count\naten::relu,(),(),(),(),4,4,1\n");
  EXPECT_EQ(csv(variant_only->frame), "\n");
}

TEST(ReportDiff, MissingSheetsAreNotedAndDuplicateTagsRefused) {
  const std::string timeline = "type,time ms,percent\nbusy_time,1.0,100.0\n";
  const ReportDiff d = diff_perf_reports(
      {{"a", sheets({{"gpu_timeline", timeline}})}, {"b", sheets({})}}, {SheetGroup::kGpuTimeline});
  EXPECT_TRUE(d.sheets.empty());
  ASSERT_EQ(d.skipped.size(), 1u);
  EXPECT_EQ(d.skipped[0], "gpu_timeline: not compared, as report 'b' has no such sheet.");
  EXPECT_THROW(diff_perf_reports({{"a", sheets({})}, {"a", sheets({})}}, {}),
               std::invalid_argument);
}

TEST(ReportDiff, RooflineKeysAreTheSortedParamsEveryReportHas) {
  const std::string base =
      "name,param: N,param: M,Kernel Time (µs)_sum,GFLOPS_first\naten::mm,4,2,10.0,1.5\n";
  const std::string variant =
      "name,param: N,param: M,param: transpose,Kernel Time (µs)_sum,"
      "GFLOPS_first\naten::mm,4,2,\"(True, False)\",12.5,1.5\n";
  const ReportDiff d =
      diff_perf_reports({{"a", sheets({{"GEMM", base}})}, {"b", sheets({{"GEMM", variant}})}},
                        {SheetGroup::kRoofline});
  const DiffSheet* both = find(d, "GEMM_intersect_b");
  ASSERT_NE(both, nullptr);
  // b's GFLOPS_first is dropped (the baseline's stands for both); transpose is b's alone.
  EXPECT_EQ(csv(both->frame),
            "name,param: M,param: N,Kernel Time (µs)_sum__b_diff,Kernel Time (µs)_sum__b_pct,"
            "a::Kernel Time (µs)_sum,a::GFLOPS_first,b::param: transpose,b::Kernel Time (µs)_sum\n"
            "aten::mm,2,4,2.5,25.0,10,1.5,\"(True, False)\",12.5\n");
}

}  // namespace
}  // namespace traceprism::comparison
