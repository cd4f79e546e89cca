// The reduce plugin's op model: the spec's worked example (perf-model §15, Reduce_fwd, quirk Q1),
// examples computed by hand from §8.4, the backward formulas, error behaviour, and every row of
// the reference's Reduce_fwd sheets.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "golden_rows.hpp"
#include "reduce/reduce_models.hpp"

namespace traceprism::plugins::reduce {
namespace {

using traceprism::testing::all_golden_sheets;
using traceprism::testing::expect_close;
using traceprism::testing::param;
using traceprism::testing::SheetRow;

struct ModelRun {
  OpModelResult r;
  OpStatus status;
};

ModelRun run(const OpCall& call) {
  ModelRun out;
  out.status = run_op_model_guarded(model_reduce, call, out.r);
  return out;
}

OpCall call_of(const std::string& name, const char* dims, const char* types, const char* concrete) {
  auto opt = [](const char* s) -> std::optional<std::string_view> {
    if (!s) return std::nullopt;
    return std::string_view(s);
  };
  return OpCall(name, opt(dims), opt(types), std::nullopt, opt(concrete));
}

void expect_row(const SheetRow& row) {
  SCOPED_TRACE(row.sheet.string() + " row " + std::to_string(row.line) + " " + row.name);
  const ModelRun got = run(row.call);
  ASSERT_EQ(got.status, OpStatus::kOk);
  traceprism::testing::expect_matches_sheet_row(row, got.r);
}

bool have_shared_traces() {
  return std::filesystem::is_directory(traceprism::testing::shared_traces() / "tracelens");
}

bool claims(const std::string& name) {
  for (const char* const* n = kReduceOpNames; *n; ++n)
    if (name == *n) return true;
  return false;
}

TEST(Reduce, MeanProducesOneElementQ1Spec15) {
  // mean(x[16,559,1024] float, [-1], True): n_out = 1, not 8,944 (dim/keepdim are never parsed).
  const ModelRun got =
      run(call_of("aten::mean", "[[16,559,1024],[],[],[]]", R"(["float","ScalarList","Scalar",""])",
                  R"(["","[-1]","True",""])"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.category, "reduce");
  EXPECT_EQ(got.r.sheet, "Reduce");
  EXPECT_EQ(got.r.bwd_category, "");
  EXPECT_EQ(got.r.flops, 9158656.0);
  EXPECT_EQ(got.r.bytes, 36634628.0);  // 9,158,656·4 + 1·4 = 34.9375038 MB
  EXPECT_EQ(got.r.compute_spec, "vector_fp32");
  EXPECT_EQ(param(got.r, "num_output_elems"), "1");
  EXPECT_EQ(param(got.r, "dtype_in_out"), "('float', None)");
  EXPECT_EQ(param(got.r, "reduce_type"), "'mean'");
}

TEST(Reduce, ScansKeepTheInputSize) {
  // cumsum(int[32]): 32 in, 32 out at 4 bytes; int has no compute precision.
  const ModelRun got =
      run(call_of("aten::cumsum", "[[32],[],[]]", R"(["int","Scalar",""])", R"(["","0",""])"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.flops, 32.0);
  EXPECT_EQ(got.r.bytes, 256.0);
  EXPECT_EQ(got.r.compute_spec, "");
  EXPECT_EQ(param(got.r, "reduce_type"), "'sum'");
  EXPECT_EQ(run(call_of("aten::cumprod", "[[4,8]]", R"(["float"])", R"([""])")).r.bytes,
            2 * 32 * 4.0);
}

TEST(Reduce, ReduceTypeFollowsTheName) {
  const char* dims = "[[4,8]]";
  const char* types = R"(["c10::BFloat16"])";
  EXPECT_EQ(param(run(call_of("aten::amax", dims, types, nullptr)).r, "reduce_type"), "'max'");
  EXPECT_EQ(param(run(call_of("aten::amin", dims, types, nullptr)).r, "reduce_type"), "'min'");
  EXPECT_EQ(param(run(call_of("aten::linalg_norm", dims, types, nullptr)).r, "reduce_type"),
            "'norm'");
  EXPECT_EQ(param(run(call_of("aten::logsumexp", dims, types, nullptr)).r, "reduce_type"), "'sum'");
  EXPECT_EQ(param(run(call_of("aten::var", dims, types, nullptr)).r, "reduce_type"), "'sum'");
}

TEST(Reduce, BackwardBroadcastsGradOutBack) {
  // sum(x[64, 1024] bf16): bwd FLOPs n_in, bytes n_out·2 + n_in·2.
  const ModelRun got =
      run(call_of("aten::sum", "[[64,1024],[],[],[]]",
                  R"(["c10::BFloat16","ScalarList","Scalar",""])", R"(["","[0]","False",""])"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.bwd_status, OpStatus::kOk);
  EXPECT_EQ(got.r.flops_bwd, 65536.0);
  EXPECT_EQ(got.r.bytes_bwd, 2 + 65536.0 * 2);
}

TEST(Reduce, UnsizedDtypeHasNoBytes) {
  const ModelRun got = run(call_of("aten::sum", "[[16]]", R"(["bool"])", R"([""])"));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.flops, 16.0);
  EXPECT_LT(got.r.bytes, 0);
  EXPECT_EQ(got.r.bwd_status, OpStatus::kOk);
  EXPECT_LT(got.r.bytes_bwd, 0);
}

TEST(Reduce, WithoutShapesTheReferenceReportsZeroFlops) {
  // No Input Dims (profiling without record_shapes): 0 FLOPs, bytes None, no reduce_type.
  const ModelRun got = run(call_of("aten::sum", nullptr, nullptr, nullptr));
  ASSERT_EQ(got.status, OpStatus::kOk);
  EXPECT_EQ(got.r.category, "reduce");
  EXPECT_EQ(got.r.flops, 0.0);
  EXPECT_LT(got.r.bytes, 0);
  EXPECT_EQ(param(got.r, "dtype_in_out"), "(None, None)");
  EXPECT_EQ(param(got.r, "reduce_type"), "<absent>");
  EXPECT_EQ(got.r.compute_spec, "");
}

TEST(Reduce, NestedInputFails) {
  const ModelRun got = run(call_of("aten::sum", "[[[2,3],[4]]]", R"(["float"])", R"([""])"));
  EXPECT_EQ(got.status, OpStatus::kFailed);
  EXPECT_EQ(got.r.category, "reduce");
}

TEST(ReduceGolden, ReduceFwdSheets) {
  if (!have_shared_traces()) GTEST_SKIP() << "no reference traces under ../shared/traces";
  int rows = 0;
  for (const auto& sheet : all_golden_sheets("Reduce_fwd.csv")) {
    for (const auto& row : traceprism::testing::read_sheet_rows(sheet)) {
      ASSERT_TRUE(claims(row.name)) << row.name;
      expect_row(row);
      ++rows;
    }
  }
  std::cout << "[golden] Reduce_fwd.csv: " << rows << " rows checked\n";
  EXPECT_GT(rows, 0);
}

TEST(ReduceGolden, ReduceBwdSheets) {
  if (!have_shared_traces()) GTEST_SKIP() << "no reference traces under ../shared/traces";
  // The Reduce_bwd sheet holds the backward metrics of the linked forward op.
  int rows = 0;
  for (const auto& sheet : all_golden_sheets("Reduce_bwd.csv")) {
    for (const auto& row : traceprism::testing::read_sheet_rows(sheet)) {
      SCOPED_TRACE(sheet.string() + " row " + std::to_string(row.line));
      const ModelRun got = run(row.call);
      ASSERT_EQ(got.status, OpStatus::kOk);
      ASSERT_EQ(got.r.bwd_status, OpStatus::kOk);
      expect_close(got.r.flops_bwd / 1e9, std::stod(row.gflops), "GFLOPS");
      if (!row.data_moved_mb.empty())
        expect_close(got.r.bytes_bwd / 1048576.0, std::stod(row.data_moved_mb), "Data Moved");
      ++rows;
    }
  }
  std::cout << "[golden] Reduce_bwd.csv: " << rows << " rows checked\n";
  if (rows == 0) GTEST_SKIP() << "no Reduce_bwd sheet among the stored reference reports";
}

}  // namespace
}  // namespace traceprism::plugins::reduce
