#include "perf_report/device_copy_model.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include <traceprism/op_model.hpp>
#include <traceprism/python_literal.hpp>

namespace traceprism::perf_report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Host <-> device (and runtime device-to-device) copies and fills are GPU events of their own,
// judged by the memcpy analysis against the link that carries them.
bool is_memcpy_or_memset(std::string_view kernel) {
  return kernel.starts_with("Memcpy") || kernel.starts_with("Memset") ||
         kernel.starts_with("MEMORY_COPY_") || kernel.starts_with("__amd_rocclr_copyBuffer") ||
         kernel.starts_with("__amd_rocclr_fillBuffer");
}

std::optional<double> numel(const PyValue& shape) {
  if (!shape.is_sequence()) return std::nullopt;
  double n = 1;
  for (const PyValue& d : shape.items) {
    if (!d.is_number()) return std::nullopt;
    n *= d.number;
  }
  return n;
}

// Element size of a c10::ScalarType code as Concrete Inputs prints it ("15": BFloat16).
std::optional<double> scalar_type_bytes(std::string_view code) {
  int value = -1;
  if (std::from_chars(code.data(), code.data() + code.size(), value).ec != std::errc())
    return std::nullopt;
  switch (value) {
    case 0:   // Byte
    case 1:   // Char
    case 11:  // Bool
    case 23:  // Float8_e5m2
    case 24:  // Float8_e4m3fn
    case 25:  // Float8_e5m2fnuz
    case 26:  // Float8_e4m3fnuz
      return 1.0;
    case 2:   // Short
    case 5:   // Half
    case 15:  // BFloat16
      return 2.0;
    case 3:  // Int
    case 6:  // Float
      return 4.0;
    case 4:  // Long
    case 7:  // Double
      return 8.0;
    default:
      return std::nullopt;
  }
}

// "OpaqueType<2u>" in a cat kernel's template arguments: the element size in bytes.
std::optional<double> opaque_type_bytes(std::string_view kernel) {
  constexpr std::string_view kTag = "OpaqueType<";
  const std::size_t at = kernel.find(kTag);
  if (at == std::string_view::npos) return std::nullopt;
  int bytes = 0;
  const char* first = kernel.data() + at + kTag.size();
  if (std::from_chars(first, kernel.data() + kernel.size(), bytes).ec != std::errc() || bytes <= 0)
    return std::nullopt;
  return static_cast<double>(bytes);
}

const PyValue* item(const std::optional<PyValue>& seq, std::size_t i) {
  if (!seq || !seq->is_sequence() || i >= seq->items.size()) return nullptr;
  return &seq->items[i];
}

// cat(tensors, dim): every input read once and the output (their sum) written once.
std::optional<double> cat_bytes(const std::optional<PyValue>& dims,
                                const std::vector<KernelSummaryEntry>& kernels) {
  const PyValue* tensors = item(dims, 0);
  if (!tensors || !tensors->is_sequence() || tensors->items.empty()) return std::nullopt;
  std::optional<double> bpe;
  for (const KernelSummaryEntry& k : kernels) {
    const std::optional<double> b = opaque_type_bytes(k.name);
    if (!b || (bpe && *bpe != *b)) return std::nullopt;  // no kernel, or kernels disagree
    bpe = b;
  }
  double elements = 0;
  for (const PyValue& t : tensors->items) {
    const std::optional<double> n = numel(t);
    if (!n) return std::nullopt;
    elements += *n;
  }
  if (!bpe || elements <= 0) return std::nullopt;
  return 2 * elements * *bpe;
}

// _to_copy(self, dtype, ...) / clone(self, ...) / contiguous(self, ...): self read at its dtype,
// the copy written at `dtype` (Concrete Inputs[1] of _to_copy; the input's when unset).
std::optional<double> unary_copy_bytes(std::string_view op_name, const std::optional<PyValue>& dims,
                                       const std::optional<PyValue>& types,
                                       const std::optional<PyValue>& concrete) {
  const PyValue* self = item(dims, 0);
  const PyValue* self_type = item(types, 0);
  if (!self || !self_type || !self_type->is_string()) return std::nullopt;
  const std::optional<double> n = numel(*self);
  const std::optional<double> bpe_in = bytes_per_element(self_type->text);
  if (!n || !bpe_in || *n <= 0) return std::nullopt;
  std::optional<double> bpe_out = bpe_in;
  const PyValue* dtype = op_name == "aten::_to_copy" ? item(concrete, 1) : nullptr;
  if (dtype && dtype->is_string() && !dtype->text.empty()) bpe_out = scalar_type_bytes(dtype->text);
  if (!bpe_out) return std::nullopt;
  return *n * (*bpe_in + *bpe_out);
}

SeriesStats rate_stats(double amount, const SeriesStats& kernel_time) {
  auto per = [&](double t) { return t > 0 ? amount / t : kNaN; };
  // amount / t falls as t grows: the fastest instance has the highest rate.
  return {per(kernel_time.mean), per(kernel_time.median), kNaN, per(kernel_time.max),
          per(kernel_time.min)};
}

void apply_model(UnifiedGroup& g, double bytes, double hbm_gbps) {
  const double roofline_us = bytes / (hbm_gbps * 1e9) * 1e6;
  g.has_perf_model = true;
  g.gflops = 0;
  g.flops_per_byte = 0;
  g.data_moved_mb = bytes / (1024.0 * 1024.0);
  g.roofline_bound = "MEMORY_BOUND";
  g.roofline_time_us = roofline_us;
  // TB/s = bytes / 1e12 / (µs / 1e6); % of roofline = roofline µs / µs · 100.
  g.tb_per_s = rate_stats(bytes / 1e6, g.kernel_time);
  g.pct_roofline = rate_stats(roofline_us * 100, g.kernel_time);
  g.tflops_per_s = {0, 0, kNaN, 0, 0};
  g.perf_params = "{'bytes_moved': " + std::to_string(static_cast<long long>(bytes)) +
                  ", 'model': 'device copy: inputs read + output written at HBM bandwidth'}";
}

}  // namespace

std::optional<double> device_copy_bytes(std::string_view op_name, std::string_view input_dims,
                                        std::string_view input_type,
                                        std::string_view concrete_inputs,
                                        const std::vector<KernelSummaryEntry>& kernels) {
  const bool cat = op_name == "aten::cat";
  const bool unary =
      op_name == "aten::_to_copy" || op_name == "aten::clone" || op_name == "aten::contiguous";
  if (!cat && !unary) return std::nullopt;
  if (kernels.empty()) return std::nullopt;
  for (const KernelSummaryEntry& k : kernels)
    if (is_memcpy_or_memset(k.name)) return std::nullopt;
  const std::optional<PyValue> dims = parse_python_literal(input_dims);
  if (cat) return cat_bytes(dims, kernels);
  return unary_copy_bytes(op_name, dims, parse_python_literal(input_type),
                          parse_python_literal(concrete_inputs));
}

void add_device_copy_models(UnifiedPerfTable& table, const platform::PlatformInfo* platform) {
  const std::optional<double> hbm = platform ? platform->roofline_bandwidth_gbps() : std::nullopt;
  if (!hbm || !(*hbm > 0)) return;
  for (UnifiedGroup& g : table.groups) {
    if (g.has_perf_model) continue;
    const std::optional<double> bytes =
        device_copy_bytes(g.name, g.input_dims, g.input_type, g.concrete_inputs, g.kernel_summary);
    if (!bytes || !(*bytes > 0)) continue;
    apply_model(g, *bytes, *hbm);
    table.has_model_columns = true;
    table.has_roofline_columns = true;
  }
}

}  // namespace traceprism::perf_report
