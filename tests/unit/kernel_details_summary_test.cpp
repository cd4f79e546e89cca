// The positional kernel-details summary (trace-format spec §9) and its printed forms.
#include "perf_report/kernel_details_summary.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

using traceprism::perf_report::kernel_summary_repr;
using traceprism::perf_report::KernelDetail;
using traceprism::perf_report::KernelDetails;
using traceprism::perf_report::summarize_kernel_details;
using traceprism::perf_report::trunc_kernel_details_repr;

namespace {

// Names are views (of the trace's string pool in the host): these point at literals.
KernelDetail kernel(std::string_view name, double dur, std::optional<std::int64_t> stream = 7) {
  return {name, dur, stream, {}};
}

}  // namespace

TEST(KernelDetailsSummary, StatisticsArePositional) {
  const KernelDetails a = {kernel("gemm", 1.0), kernel("add", 5.0)};
  const KernelDetails b = {kernel("gemm", 3.0), kernel("other_name", 5.0)};
  const KernelDetails short_row = {kernel("gemm", 100.0)};  // other length: skipped
  const KernelDetails empty;
  const std::vector<const KernelDetails*> rows = {&empty, &a, &short_row, nullptr, &b};
  const auto summary = summarize_kernel_details(rows);
  ASSERT_EQ(summary.size(), 2u);
  // Sorted by total: gemm (1 + 3 = 4) before add (5 + 5 = 10). Position 1 keeps the template's
  // name "add" although row b has another name there.
  EXPECT_EQ(summary[0].name, "gemm");
  EXPECT_EQ(summary[0].count, 2u);
  EXPECT_EQ(summary[0].total_duration_us, 4.0);
  EXPECT_EQ(summary[0].mean_duration_us, 2.0);
  EXPECT_EQ(summary[0].median_duration_us, 2.0);
  EXPECT_EQ(summary[0].std_dev_duration_us, 1.0);  // population std of {1, 3}
  EXPECT_EQ(summary[0].min_duration_us, 1.0);
  EXPECT_EQ(summary[0].max_duration_us, 3.0);
  EXPECT_EQ(summary[1].name, "add");
  EXPECT_EQ(summary[1].total_duration_us, 10.0);
  EXPECT_EQ(summary[1].std_dev_duration_us, 0.0);

  EXPECT_EQ(kernel_summary_repr(summary),
            "[{'name': 'gemm', 'stream': 7, 'count': 2, 'total_duration_us': 4.0, "
            "'mean_duration_us': 2.0, 'median_duration_us': 2.0, 'std_dev_duration_us': 1.0, "
            "'min_duration_us': 1.0, 'max_duration_us': 3.0}, "
            "{'name': 'add', 'stream': 7, 'count': 2, 'total_duration_us': 10.0, "
            "'mean_duration_us': 5.0, 'median_duration_us': 5.0, 'std_dev_duration_us': 0.0, "
            "'min_duration_us': 5.0, 'max_duration_us': 5.0}]");
}

TEST(KernelDetailsSummary, TiesSortByName) {
  const KernelDetails a = {kernel("b", 2.0), kernel("a", 2.0)};
  const std::vector<const KernelDetails*> rows = {&a};
  const auto summary = summarize_kernel_details(rows);
  ASSERT_EQ(summary.size(), 2u);
  EXPECT_EQ(summary[0].name, "a");
  EXPECT_EQ(summary[1].name, "b");
}

TEST(KernelDetailsSummary, NoKernelsGiveAnEmptyList) {
  const KernelDetails empty;
  const std::vector<const KernelDetails*> rows = {&empty, nullptr};
  const auto summary = summarize_kernel_details(rows);
  EXPECT_TRUE(summary.empty());
  EXPECT_EQ(kernel_summary_repr(summary), "[]");
  EXPECT_EQ(trunc_kernel_details_repr(summary), "");  // None: an empty cell
}

TEST(KernelDetailsSummary, MissingStreamAndExtraKeys) {
  KernelDetail k = kernel("it's", 1.5, std::nullopt);
  k.extra_keys = {{"call_stack", "['nn.Module: Linear', 'aten::linear']"}, {"gpu_op_uid", "12"}};
  const KernelDetails a = {k};
  const std::vector<const KernelDetails*> rows = {&a};
  EXPECT_EQ(kernel_summary_repr(summarize_kernel_details(rows)),
            "[{'name': \"it's\", 'stream': None, "
            "'call_stack': ['nn.Module: Linear', 'aten::linear'], 'count': 1, "
            "'total_duration_us': 1.5, 'mean_duration_us': 1.5, 'median_duration_us': 1.5, "
            "'std_dev_duration_us': 0.0, 'min_duration_us': 1.5, 'max_duration_us': 1.5}]");
}

TEST(KernelDetailsSummary, TruncatedDetails) {
  // The bert golden: 17 instances with mean 5.8069411764705885 print as 5.81; the name is cut
  // after 64 characters.
  const std::string name =
      "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_"
      "align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)";
  traceprism::perf_report::KernelSummaryEntry e;
  e.name = name;
  e.stream = 7;
  e.mean_duration_us = 5.8069411764705885;
  EXPECT_EQ(trunc_kernel_details_repr({e}),
            "[{'name': 'void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_...', "
            "'stream': 7, 'mean_duration_us': 5.81}]");
  // numpy rounds half to even on the scaled value: 0.125 * 100 = 12.5 -> 12.
  e.name = "short";
  e.mean_duration_us = 0.125;
  EXPECT_EQ(trunc_kernel_details_repr({e}),
            "[{'name': 'short', 'stream': 7, 'mean_duration_us': 0.12}]");
  // Exactly 64 characters: kept whole, no "...".
  e.name = std::string(64, 'k');
  EXPECT_EQ(trunc_kernel_details_repr({e}),
            "[{'name': '" + std::string(64, 'k') + "', 'stream': 7, 'mean_duration_us': 0.12}]");
}
