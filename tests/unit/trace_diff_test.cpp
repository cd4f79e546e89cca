// comparison/trace_diff + diff_stats (trace-format spec §14.2): the merged call trees of two small
// traces, the diff_stats rows under each divergence point, and the LCA columns they give trace
// 1's unified_perf_summary rows. Expected values are worked out by hand from the events below
// and the reference's rules (pairing by position, edit distance over normalized names, wrapper
// collapse, the lowest common ancestor of a divergence).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <regex>

#include "comparison/diff_stats.hpp"
#include "comparison/trace_diff.hpp"
#include "ingest/trace_reader.hpp"
#include "model/call_tree.hpp"
#include "model/launch_links.hpp"
#include "support/csv.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

namespace cmp = traceprism::comparison;
using traceprism::index::Row;

namespace {

struct Trace {
  traceprism::index::EventIndex index;
  traceprism::model::CallTree tree;
  traceprism::model::LaunchLinks links;
  explicit Trace(const std::string& text)
      : index(read(text)),
        tree(traceprism::model::CallTree::build(index)),
        links(traceprism::model::LaunchLinks::build(index)) {}
  cmp::DiffSide side() const { return {index, tree, links}; }
  Row row(const std::string& name) const {
    for (std::size_t r = 0; r < index.size(); ++r)
      if (index.name(static_cast<Row>(r)) == name) return static_cast<Row>(r);
    ADD_FAILURE() << "no event " << name;
    return 0;
  }
  static traceprism::index::EventIndex read(const std::string& text) {
    traceprism::testing::TempDir dir;
    return traceprism::ingest::read_trace(dir.write("t.json", text)).index;
  }
};

struct Diff {
  cmp::MergedTree merged;
  cmp::DiffStats stats;
  std::vector<cmp::DiffStatsRow> rows;
  std::string lca_name(std::size_t row) const { return stats.lca_of(rows[row])->name; }
  std::uint32_t lca_id(std::size_t row) const { return stats.lca_of(rows[row])->id; }
  bool has_lca(std::size_t row) const { return stats.lca_of(rows[row]) != nullptr; }
};

Diff diff(const Trace& a, const Trace& b) {
  Diff d;
  d.merged = cmp::merge_trees(a.side(), b.side());
  d.stats = cmp::diff_stats(d.merged, a.side(), b.side());
  d.rows = d.stats.rows;
  return d;
}

// Two ops, each one kernel, the same in both traces except for the second kernel's time.
std::string two_ops(double second_kernel_us) {
  traceprism::testing::TraceText t;
  t.launch("aten::mm", 0, 20, "gemm", 50, 100, 7, 1);
  t.launch("aten::add", 30, 10, "add", 160, second_kernel_us, 7, 2);
  return t.str();
}

TEST(TraceDiffNames, NormalizesAddressesLineNumbersAndDriverLaunches) {
  EXPECT_EQ(cmp::normalized_name("fn at 0x7f3a12"), "fn at 0xXXXX");
  EXPECT_EQ(cmp::normalized_name("model.py(123): forward"), "model.py: forward");
  EXPECT_EQ(cmp::normalized_name("cuLaunchKernel"), cmp::normalized_name("hipModuleLaunchKernel"));
  EXPECT_NE(cmp::normalized_name("cudaLaunchKernel"), cmp::normalized_name("hipLaunchKernel"));
  EXPECT_EQ(cmp::normalized_name("a/b/model.py: forward", true), "model.py");
  EXPECT_EQ(cmp::normalized_name("/x/y/model.py", true), "model.py");
}

// The reference's rewrites as regexes, the oracle for the hand-written ones (which replaced
// them because libstdc++'s regex recursion overflowed the stack on long names).
std::string regex_normalized(const std::string& name, bool strip_details) {
  static const std::regex kHex("0x[0-9a-fA-F]+"), kPyLine("\\.py\\(\\d+\\):"),
      kDetail(":\\s+\\S+$"), kPyDirs("^.*/([^/]+\\.py)$");
  std::string s = std::regex_replace(name, kHex, "0xXXXX");
  s = std::regex_replace(s, kPyLine, ".py:");
  if (strip_details) {
    s = std::regex_replace(s, kDetail, "");
    s = std::regex_replace(s, kPyDirs, "$1");
  }
  if (s == "hipModuleLaunchKernel" || s == "cuLaunchKernel") return "__kernel_launch__";
  return s;
}

TEST(TraceDiffNames, AgreeWithTheRegexRewritesOnRandomNames) {
  const std::vector<std::string> pieces = {"0x", "a", "F",  "g",  "1", ".py(", "12", "):", ")",
                                           ":",  " ", "\t", "\n", "/", ".py",  "x",  "0"};
  std::mt19937 random(19);
  for (int i = 0; i < 10000; ++i) {
    std::string name;
    const std::size_t n = random() % 9;
    for (std::size_t k = 0; k < n; ++k) name += pieces[random() % pieces.size()];
    for (bool strip : {false, true})
      ASSERT_EQ(cmp::normalized_name(name, strip), regex_normalized(name, strip))
          << "name \"" << name << "\" strip " << strip;
  }
}

TEST(TraceDiffNames, LongNamesAreRewrittenWithoutRecursion) {
  const std::string hex(1'000'000, 'f'), path(1'000'000, 'd');
  EXPECT_EQ(cmp::normalized_name("at 0x" + hex), "at 0xXXXX");
  EXPECT_EQ(cmp::normalized_name("/" + path + "/m.py:  " + hex, true), "m.py");
  EXPECT_EQ(cmp::normalized_name("m.py(" + std::string(500'000, '9') + "): f"), "m.py: f");
}

TEST(TraceDiff, MatchingTracesPairEveryKernelAsItsOwnDivergencePoint) {
  const Trace a(two_ops(10)), b(two_ops(30));
  const Diff d = diff(a, b);
  // Roots by position: (mm, mm), (add, add); each op -> launch -> kernel, all combined.
  ASSERT_EQ(d.merged.roots.size(), 2u);
  for (const cmp::MergedNode& n : d.merged.nodes) EXPECT_TRUE(n.combined());
  // A combined kernel pair is a divergence point of its own: one row per side and kernel.
  ASSERT_EQ(d.rows.size(), 4u);
  EXPECT_EQ(d.rows[0].source, 1);
  EXPECT_EQ(d.rows[0].gpu_event, a.row("gemm"));
  EXPECT_EQ(d.rows[0].cpu_op, a.row("aten::mm"));
  EXPECT_EQ(d.lca_name(0), "gemm");
  EXPECT_EQ(d.rows[1].source, 2);
  EXPECT_EQ(d.lca_id(1), d.lca_id(0));
  EXPECT_DOUBLE_EQ(d.rows[2].busy_time_us, 10);  // trace 1's add
  EXPECT_DOUBLE_EQ(d.rows[3].busy_time_us, 30);  // trace 2's add
  EXPECT_EQ(d.lca_name(3), "add");
}

TEST(TraceDiff, DifferentLoweringMeetsAtTheOpAndNamesBothKernels) {
  traceprism::testing::TraceText t1, t2;
  t1.x("cpu_op", "aten::convolution", "0", "40");
  t1.launch("aten::miopen_convolution", 5, 30, "miopenConv", 60, 200, 7, 1);
  t2.x("cpu_op", "aten::convolution", "0", "40");
  t2.launch("aten::cudnn_convolution", 5, 30, "cudnnConv", 60, 50, 7, 1);
  const Trace a(t1.str()), b(t2.str());
  const Diff d = diff(a, b);
  // (convolution, convolution) -> (miopen, cudnn) by position -> launches by name -> the two
  // kernels by position: a kernel pair whose names differ.
  ASSERT_EQ(d.rows.size(), 2u);
  EXPECT_EQ(d.lca_name(0), "miopenConv | cudnnConv");
  EXPECT_EQ(d.rows[0].cpu_op, a.row("aten::miopen_convolution"));
  EXPECT_EQ(d.rows[1].cpu_op, b.row("aten::cudnn_convolution"));
  EXPECT_DOUBLE_EQ(d.rows[0].kernel_time_us, 200);
  EXPECT_DOUBLE_EQ(d.rows[1].kernel_time_us, 50);
}

TEST(TraceDiff, AWrapperOnOneSideIsCollapsedToItsBranchPoint) {
  // Trace 1: outer -> (mm, add); trace 2: outer -> wrap -> (mm, add).
  traceprism::testing::TraceText t1, t2;
  t1.x("cpu_op", "outer", "0", "60");
  t1.launch("aten::mm", 2, 20, "gemm", 70, 100, 7, 1);
  t1.launch("aten::add", 30, 10, "add", 180, 10, 7, 2);
  t2.x("cpu_op", "outer", "0", "60");
  t2.x("cpu_op", "wrap", "1", "50");
  t2.launch("aten::mm", 2, 20, "gemm", 70, 80, 7, 1);
  t2.launch("aten::add", 30, 10, "add", 160, 10, 7, 2);
  const Trace a(t1.str()), b(t2.str());
  const Diff d = diff(a, b);
  // Every op meets its counterpart under the wrapper: no one-sided node at all.
  for (const cmp::MergedNode& n : d.merged.nodes) EXPECT_TRUE(n.combined());
  ASSERT_EQ(d.rows.size(), 4u);
  EXPECT_EQ(d.lca_name(0), "gemm");
  EXPECT_EQ(d.rows[1].gpu_event, b.row("gemm"));
  EXPECT_DOUBLE_EQ(d.rows[1].kernel_time_us, 80);
}

TEST(TraceDiff, AnOpOfTraceOneOnlyIsARowWithoutAncestor) {
  traceprism::testing::TraceText t2;
  t2.launch("aten::mm", 0, 20, "gemm", 50, 100, 7, 1);
  const Trace a(two_ops(10)), b(t2.str());
  const Diff d = diff(a, b);
  // Roots (counts differ, so aligned by name): (mm, mm), then trace 1's add alone, with no
  // combined parent.
  ASSERT_EQ(d.rows.size(), 3u);
  EXPECT_EQ(d.rows[2].gpu_event, a.row("add"));
  EXPECT_FALSE(d.has_lca(2));
  // pandas then holds the id column as floats and leaves the missing one empty.
  const auto csv = traceprism::testing::parse_csv(cmp::diff_stats_csv(d.stats, a.index, b.index));
  const std::size_t id = csv.column("lowest_common_ancestor_id");
  EXPECT_EQ(csv.rows[0][id], "2.0");  // (mm, mm) 0, launches 1, kernels 2
  EXPECT_EQ(csv.rows[2][id], "");
  EXPECT_EQ(csv.rows[2][csv.column("source")], "trace1");
  EXPECT_EQ(csv.rows[2][csv.column("nn_module_stack")], "root");
}

TEST(TraceDiffColumns, TraceOneRowsGetTheirAncestorsTimes) {
  const Trace a(two_ops(10)), b(two_ops(30));
  const Diff d = diff(a, b);
  traceprism::perf_report::UnifiedPerfTable table;
  table.groups.resize(3);
  table.groups[0].gpu_events = {a.row("gemm")};
  table.groups[0].kernel_time_sum_us = 100;
  table.groups[1].gpu_events = {a.row("add")};
  table.groups[1].kernel_time_sum_us = 10;
  cmp::add_lca_columns(table, d.stats);
  ASSERT_TRUE(table.has_lca_columns);
  ASSERT_TRUE(table.groups[1].lca.has_value());
  const auto& add = *table.groups[1].lca;
  EXPECT_EQ(add.names, "add");
  EXPECT_DOUBLE_EQ(add.trace1_us, 10);
  EXPECT_DOUBLE_EQ(add.trace2_us, 30);
  EXPECT_DOUBLE_EQ(add.count_trace2, 1);
  EXPECT_DOUBLE_EQ(add.speedup(), 3.0);
  EXPECT_DOUBLE_EQ(table.groups[0].lca->speedup(), 1.0);
  EXPECT_FALSE(table.groups[2].lca.has_value());  // no GPU event of trace 1's rows
}

}  // namespace
