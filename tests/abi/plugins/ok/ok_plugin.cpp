// A well-formed plugin: two analyzers and one op model, written against sdk.hpp.
#include <traceprism/sdk.hpp>

namespace {

// Reports the number of kernels as a figure.
class OkAlpha : public traceprism::Analyzer {
 public:
  traceprism::Status run(traceprism::Context& ctx) override {
    ctx.record("kernels", static_cast<double>(ctx.rows(traceprism::Kind::kKernel).size()));
    return traceprism::Status::kOk;
  }
};

// Emits one finding when the trace has GPU work, skips otherwise.
class OkBeta : public traceprism::Analyzer {
 public:
  traceprism::Status run(traceprism::Context& ctx) override {
    if (!ctx.timeline()) return traceprism::Status::kSkipped;
    ctx.report(traceprism::Tier::kSystem, "abi-test", "ok-beta saw GPU work").key("gpu").emit();
    return traceprism::Status::kOk;
  }
};

// Claims aten::mm and describes it with fixed numbers.
void model_mm(const traceprism::OpCall&, traceprism::OpModelResult& out) {
  out.category = "GEMM";
  out.compute_spec = "matrix_bf16";
  out.flops = 2.0;
  out.bytes = 6.0;
  out.param("M", 1);
  out.param("N", 1);
  out.param("K", 1);
}

constexpr const char* kMmOps[] = {"aten::mm", nullptr};

TRACEPRISM_ANALYZERS(traceprism::analyzer<OkAlpha>("ok-alpha", "Counts kernels."),
                     traceprism::analyzer<OkBeta>("ok-beta", "Reports GPU work."));
TRACEPRISM_OP_MODELS(traceprism::op_model<&model_mm>("ok-matmul", "Models aten::mm.", kMmOps));

}  // namespace

TRACEPRISM_PLUGIN_WITH_OP_MODELS("ok", "1.2.3");
