// The Inductor Triton kernel model (plugins/triton) against the perf-model spec (§9.7) and the
// Triton rows of the reference's unified perf tables (the reference makes no Triton sheet: its
// Triton rows only show in unified_perf_summary.csv, with GFLOPS, Data Moved and perf_params).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "sheet_rows.hpp"
#include "triton/triton_models.hpp"

namespace {

using traceprism::OpCall;
using traceprism::OpModelResult;
using traceprism::OpStatus;
namespace triton = traceprism::plugins::triton;

using Ops = std::vector<std::string>;

OpStatus run(const OpCall& call, OpModelResult& r) {
  return traceprism::run_op_model_guarded(triton::model_triton_kernel, call, r);
}

std::string param(const OpModelResult& r, const std::string& key) {
  for (const auto& p : r.params)
    if (p.key == key) return p.repr;
  return "<missing " + key + ">";
}

// ---- the kernel-name split (hand-made names) ----------------------------------------------

TEST(TritonModels, SplitsFusedOpsFromKernelNames) {
  EXPECT_EQ(triton::fused_ops_of("triton_poi_fused__unsafe_view_mul_silu_2"),
            (Ops{"_unsafe_view", "mul", "silu"}));
  EXPECT_EQ(triton::fused_ops_of("triton_red_fused_add_mean_mul_pow_rsqrt_0"),
            (Ops{"add", "mean", "mul", "pow", "rsqrt"}));
  EXPECT_EQ(triton::fused_ops_of("triton_per_fused__log_softmax_gather_12"),
            (Ops{"_log_softmax", "gather"}));
  EXPECT_EQ(triton::fused_ops_of("triton_poi_fused__to_copy_1"), (Ops{"_to_copy"}));
  // "native" alone is no op: the only split is the whole name.
  EXPECT_EQ(triton::fused_ops_of("triton_red_fused_native_layer_norm_3"),
            (Ops{"native_layer_norm"}));
  EXPECT_EQ(triton::fused_ops_of("triton_poi_fused_add_clone_relu_threshold_backward_7"),
            (Ops{"add", "clone", "relu", "threshold_backward"}));
  // A double underscore: "add" then "_to_copy" ("add_" would leave "to_copy", no op).
  EXPECT_EQ(triton::fused_ops_of("triton_poi_fused_add__to_copy_0"), (Ops{"add", "_to_copy"}));
  // An op name ending in digits is not the kernel index.
  EXPECT_EQ(triton::fused_ops_of("triton_poi_fused_log2_mul_4"), (Ops{"log2", "mul"}));
}

TEST(TritonModels, SplitPrefersTheLongestOpWalkingBack) {
  // Both "clamp_min" and "clamp" + "min" are valid splits; the longest op wins.
  EXPECT_EQ(triton::fused_ops_of("triton_poi_fused_clamp_min_0"), (Ops{"clamp_min"}));
  // Likewise var_mean (an aten op of its own), which the FLOPs table does not list: 0 FLOPs.
  EXPECT_EQ(triton::fused_ops_of("triton_red_fused_var_mean_5"), (Ops{"var_mean"}));
  EXPECT_EQ(triton::flops_per_element("var_mean"), 0);
  EXPECT_EQ(triton::fused_ops_of("triton_poi_fused_log_sigmoid_forward_0"),
            (Ops{"log_sigmoid_forward"}));
}

TEST(TritonModels, NoSplitGivesNoOps) {
  // An unknown token anywhere: no split, no ops (the reference's fused_ops '' for
  // triton_poi_fused_constant_pad_nd_moe_forward_0, whose "moe_forward" is a vLLM op).
  EXPECT_EQ(triton::fused_ops_of("triton_poi_fused_constant_pad_nd_moe_forward_0"), Ops{});
  EXPECT_EQ(triton::fused_ops_of("triton_poi_fused_add_frobnicate_mul_0"), Ops{});
  EXPECT_EQ(triton::fused_ops_of("triton_poi_fused_0"), Ops{});
  EXPECT_EQ(triton::fused_ops_of("triton_red_fused_3"), Ops{});
}

TEST(TritonModels, FlopsTableAndKnownList) {
  for (const char* op :
       {"add", "sub", "mul", "div", "relu", "abs", "neg", "mean", "sum", "ne", "eq", "lt", "gt"})
    EXPECT_EQ(triton::flops_per_element(op), 1) << op;
  for (const char* op : {"pow", "sqrt", "rsqrt", "var", "reciprocal"})
    EXPECT_EQ(triton::flops_per_element(op), 2) << op;
  for (const char* op : {"exp", "log", "sigmoid", "tanh", "silu"})
    EXPECT_EQ(triton::flops_per_element(op), 4) << op;
  EXPECT_EQ(triton::flops_per_element("gelu"), 8);
  for (const char* op : {"_to_copy", "copy_", "clone", "embedding", "where", "not_an_op"})
    EXPECT_EQ(triton::flops_per_element(op), 0) << op;
  // Every op of the FLOPs table must be splittable out of a kernel name.
  for (const char* op :
       {"add",     "sub",  "mul",  "div",  "relu",     "abs",   "neg",   "mean",       "sum", "ne",
        "eq",      "lt",   "gt",   "pow",  "sqrt",     "rsqrt", "var",   "reciprocal", "exp", "log",
        "sigmoid", "tanh", "silu", "gelu", "_to_copy", "copy_", "clone", "embedding"})
    EXPECT_TRUE(triton::is_known_aten_op(op)) << op;
  EXPECT_FALSE(triton::is_known_aten_op("moe_forward"));
}

// ---- the model (hand-computed from §9.7) --------------------------------------------------

TEST(TritonModels, PointwiseKernel) {
  // add + mul over 1024 c10::Half elements, 2 inputs + 1 output tensor arg: FLOPs (1+1)·1024;
  // bytes 3·1024·2 (tensor args) + 1024·2 (the write of the first pointer).
  const OpCall call("triton_poi_fused_add_mul_0", "[[1024],[1024],[1024],[]]",
                    R"(["c10::Half","c10::Half","c10::Half","Scalar"])", "[[1],[1],[1],[]]",
                    R"(["","","","1024"])");
  OpModelResult r;
  ASSERT_EQ(run(call, r), OpStatus::kOk);
  EXPECT_EQ(r.category, "triton");
  EXPECT_EQ(r.sheet, "");
  EXPECT_EQ(r.bwd_category, "");
  EXPECT_EQ(r.flops, 2048.0);
  EXPECT_EQ(r.bytes, 8192.0);
  EXPECT_EQ(r.compute_spec, "vector_half");
  ASSERT_EQ(r.params.size(), 3u);
  EXPECT_EQ(r.params[0].key, "fused_ops");
  EXPECT_EQ(param(r, "fused_ops"), "'aten.add, aten.mul'");
  EXPECT_EQ(param(r, "xnumel"), "1024");
  EXPECT_EQ(param(r, "rnumel"), "1");
  EXPECT_EQ(r.bwd_status, OpStatus::kNotModelled);
}

TEST(TritonModels, ReductionKernel) {
  // sum over (xnumel 8, rnumel 512): FLOPs 1·8·512; bytes = the tensor args only,
  // 8·512·2 + 8·2 (no output write term for reductions).
  const OpCall call("triton_red_fused_sum_0", "[[8,512],[8],[],[]]",
                    R"(["c10::BFloat16","c10::BFloat16","Scalar","Scalar"])", std::nullopt,
                    R"(["","","8","512"])");
  OpModelResult r;
  ASSERT_EQ(run(call, r), OpStatus::kOk);
  EXPECT_EQ(r.flops, 4096.0);
  EXPECT_EQ(r.bytes, 8208.0);
  EXPECT_EQ(param(r, "xnumel"), "8");
  EXPECT_EQ(param(r, "rnumel"), "512");
  EXPECT_EQ(r.compute_spec, "vector_bfloat16");
}

TEST(TritonModels, CSpelledDtypesCountZeroBytes) {
  // The reference's dtype table is keyed by c10 names: Kineto's "float" is unknown, so the fp32
  // input counts 0 bytes and the write (first pointer: float) 0; the precision comes from the
  // bf16 tensor. (The golden triton_poi_fused__to_copy_1 row.)
  const OpCall call("triton_poi_fused__to_copy_1", "[[4,8],[4,8],[]]",
                    R"(["float","c10::BFloat16","Scalar"])", std::nullopt, R"(["","","32"])");
  OpModelResult r;
  ASSERT_EQ(run(call, r), OpStatus::kOk);
  EXPECT_EQ(r.flops, 0.0);
  EXPECT_EQ(r.bytes, 64.0);
  EXPECT_EQ(r.compute_spec, "vector_bfloat16");
  // Only unknown dtypes: no precision, no compute spec.
  const OpCall fp32("triton_poi_fused_relu_0", "[[16],[16],[]]", R"(["float","float","Scalar"])",
                    std::nullopt, R"(["","","16"])");
  OpModelResult r32;
  ASSERT_EQ(run(fp32, r32), OpStatus::kOk);
  EXPECT_EQ(r32.flops, 16.0);
  EXPECT_EQ(r32.bytes, 0.0);
  EXPECT_EQ(r32.compute_spec, "");
}

TEST(TritonModels, WithoutNumelArgsItHasNoModel) {
  // No integer Concrete Inputs (the golden triton_poi_fused_0 rows, has_perf_model False), or no
  // shape args at all: the reference's can_model is false, so the op is category only (the
  // unified table keeps it as a leaf with its kernel time). The category stays.
  const OpCall no_ints("triton_poi_fused_0", "[[32],[201088,2880]]", R"(["int","c10::BFloat16"])",
                       std::nullopt, R"(["",""])");
  OpModelResult r;
  EXPECT_EQ(run(no_ints, r), OpStatus::kOk);
  EXPECT_FALSE(r.has_model);
  EXPECT_EQ(r.category, "triton");
  const OpCall one_int_reduction("triton_red_fused_sum_0", "[[8],[]]", R"(["c10::Half","Scalar"])",
                                 std::nullopt, R"(["","8"])");
  OpModelResult r1;
  EXPECT_EQ(run(one_int_reduction, r1), OpStatus::kOk);
  EXPECT_FALSE(r1.has_model);
  const OpCall no_args("triton_per_fused_sum_0", std::nullopt, std::nullopt, std::nullopt,
                       std::nullopt);
  OpModelResult r2;
  EXPECT_EQ(run(no_args, r2), OpStatus::kOk);
  EXPECT_FALSE(r2.has_model);
  EXPECT_EQ(r2.category, "triton");
}

TEST(TritonModels, ClaimsTheThreePrefixes) {
  std::vector<std::string> names;
  for (const char* const* name = triton::kTritonKernelNames; *name; ++name) names.push_back(*name);
  EXPECT_EQ(names, (std::vector<std::string>{"triton_poi_*", "triton_red_*", "triton_per_*"}));
}

// ---- the Triton rows of the reference's unified perf tables ---------------------------------

// The perf_params cell: Python's repr of the param dict.
std::string params_dict_repr(const OpModelResult& r) {
  std::string out = "{";
  for (std::size_t i = 0; i < r.params.size(); ++i) {
    if (i) out += ", ";
    out += traceprism::py::str_repr(r.params[i].key) + ": " + r.params[i].repr;
  }
  return out + "}";
}

bool is_triton_kernel_name(const std::string& name) {
  for (const char* prefix : {"triton_poi_", "triton_red_", "triton_per_"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

void expect_relative(double actual, const std::string& cell, const std::string& what) {
  const double expected = std::stod(cell);
  EXPECT_LE(std::fabs(actual - expected), 1e-9 * std::fabs(expected))
      << what << ": " << actual << " vs " << cell;
}

std::size_t check_unified_table(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  const traceprism::testing::Csv csv = traceprism::testing::parse_csv(buf.str());
  auto cell = [&](const std::vector<std::string>& row, const char* column) {
    const std::size_t c = csv.column(column);
    return c < row.size() ? row[c] : std::string();
  };
  auto args = [&](const std::vector<std::string>& row, const char* column) {
    return traceprism::testing::python_literal_to_json(cell(row, column));
  };
  std::size_t checked = 0;
  for (const auto& row : csv.rows) {
    const std::string name = cell(row, "name");
    if (!is_triton_kernel_name(name)) continue;
    SCOPED_TRACE(path.string() + " " + name);
    const std::string dims = args(row, "Input Dims"), types = args(row, "Input type"),
                      strides = args(row, "Input Strides"), concrete = args(row, "Concrete Inputs");
    const OpCall call(name, dims, types, strides, concrete);
    OpModelResult r;
    const OpStatus status = run(call, r);
    EXPECT_EQ(r.category, cell(row, "op category"));
    ++checked;
    if (cell(row, "has_perf_model") != "True") {
      EXPECT_FALSE(status == OpStatus::kOk && r.has_model);
      continue;
    }
    EXPECT_EQ(status, OpStatus::kOk);
    if (status != OpStatus::kOk) continue;
    expect_relative(r.flops / 1e9, cell(row, "GFLOPS"), "GFLOPS");
    expect_relative(r.bytes / 1048576.0, cell(row, "Data Moved (MB)"), "Data Moved (MB)");
    EXPECT_EQ(r.compute_spec, cell(row, "Compute Spec"));
    EXPECT_EQ(params_dict_repr(r), cell(row, "perf_params"));
  }
  return checked;
}

TEST(TritonModels, EveryGoldenUnifiedTritonRow) {
  const auto root = traceprism::testing::shared_traces() / "tracelens";
  if (!std::filesystem::is_directory(root))
    GTEST_SKIP() << "no golden traces (is ../shared/traces present?)";
  std::vector<std::filesystem::path> tables;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().filename() == "unified_perf_summary.csv")
      tables.push_back(e.path());
  std::sort(tables.begin(), tables.end());
  std::size_t checked = 0;
  for (const auto& path : tables) {
    const std::size_t rows = check_unified_table(path);
    if (rows) std::cout << "[ golden   ] " << rows << " triton rows: " << path.string() << "\n";
    checked += rows;
  }
  if (checked == 0) GTEST_SKIP() << "no Triton rows in the golden unified tables";
  std::cout << "[ golden   ] triton rows checked: " << checked << "\n";
}

}  // namespace
