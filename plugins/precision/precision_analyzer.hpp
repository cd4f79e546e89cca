// The "matrix-precision" analyzer (diagnosis.md §6.1): GEMM and convolution kernels by the
// precision they run at (kernel name, else the launching op's `Input type`). When FP32 or TF32
// matrix time is at least 5 % of computation on a GPU whose BF16/FP16 tensor cores are faster,
// one compute-tier finding (category and cause "precision") with the time, its share of
// computation and of E2E, the kernels, and autocast (or TF32, where the trace shows it is not on
// yet) as the action. Impact: that time x (1 - peak_fp32 / peak_low) x 0.5 / 0.7 / 0.9, in % of
// E2E; "not quantifiable" without platform peaks. Page:
// docs/analyzers/precision/matrix-precision.md.
#pragma once

#include <traceprism/sdk.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "matrix_precision.hpp"

namespace traceprism::plugins::precision {

// One kernel name's calls among the matrix kernels.
struct KernelGroup {
  std::string name;
  Precision precision = Precision::kUnknown;
  std::uint64_t calls = 0;
  double time_us = 0;
  std::map<std::string, double> ops;  // launching op chain -> its time in this kernel
};

// The matrix kernels of the GPU timeline's event set, by precision.
struct MatrixTime {
  double e2e_us = 0, computation_us = 0;  // gpu_timeline's window and computation
  std::map<Precision, double> busy_us;    // union of each precision's kernels
  double fp32_family_us = 0;              // union of the FP32, FP32-input, TF32 kernels
  std::vector<KernelGroup> kernels;       // every matrix kernel name, most time first
  std::vector<Row> fp32_rows;             // the FP32-family kernels, file order
  double busy(Precision p) const;
};
MatrixTime measure_matrix_time(const Context& ctx);

// The platform's peaks for the comparison; a peak the platform lacks is nullopt.
struct Peaks {
  std::optional<double> low;                     // max(matrix_bf16, matrix_fp16)
  std::optional<double> fp32, fp32_input, tf32;  // what each FP32-family class runs at
  bool has_tf32 = false;                         // the platform gives matrix_tf32
  // The FP32-family time weighted gain (1 - peak_fp32 / peak_low, at least 0); nullopt when a
  // needed peak is missing.
  std::optional<double> gain(const MatrixTime& t) const;
};
Peaks platform_peaks(const Context& ctx);

class MatrixPrecisionAnalyzer : public Analyzer {
 public:
  explicit MatrixPrecisionAnalyzer(Context& ctx);
  Status run(Context& ctx) override;

 private:
  void report(Context& ctx, const MatrixTime& t, const Peaks& peaks,
              std::optional<double> gain) const;
  static std::string action(const MatrixTime& t, const Peaks& peaks, bool platform_known);
  std::string insight(const MatrixTime& t, const Peaks& peaks, std::optional<double> gain) const;
  Table kernels_table(const MatrixTime& t) const;
  static Table precisions_table(const MatrixTime& t);

  double share_percent_;
  std::int64_t table_rows_;
  std::int64_t max_evidence_rows_;
};

// The analyzer's options with their defaults (the one place each default is written).
inline constexpr traceprism_option_v1 kPrecisionOptions[] = {
    {"Fp32SharePercent", "5",
     "Report FP32/TF32 matrix kernels when their time is at least this % of computation."},
    {"TableRows", "10", "Rows in the finding's kernel table."},
    {"MaxEvidenceRows", "200", "Evidence rows kept (longest kernels first)."},
};

}  // namespace traceprism::plugins::precision
