#include "perf_lookup.hpp"

#include <traceprism/python_literal.hpp>

namespace traceprism::plugins::fusion {

Shape first_shape(std::optional<std::string_view> input_dims) {
  if (!input_dims) return std::nullopt;
  const std::optional<PyValue> parsed = parse_python_literal(*input_dims);
  if (!parsed || !parsed->is_sequence() || parsed->items.empty()) return std::nullopt;
  const PyValue& first = parsed->items.front();
  if (!first.is_sequence()) return std::nullopt;
  std::vector<std::string> shape;
  for (const PyValue& d : first.items) shape.push_back(d.str());
  return shape;
}

namespace {

// A dict entry that Python treats as true (present, and a non-zero number).
std::optional<double> truthy_number(const PyValue& params, std::string_view key) {
  const PyValue* v = params.get(key);
  if (!v || !v->is_number() || v->number == 0) return std::nullopt;
  return v->number;
}

}  // namespace

DataInOut split_data_moved(std::string_view op_category, std::string_view perf_params,
                           std::optional<double> data_moved_mb) {
  // `half` is (None, None) when Data Moved is absent or zero (the reference tests truthiness).
  DataInOut half;
  if (data_moved_mb && *data_moved_mb != 0) half = {*data_moved_mb / 2, *data_moved_mb / 2};
  PyValue params;
  params.type = PyValue::Type::kDict;
  if (!perf_params.empty()) {
    const std::optional<PyValue> parsed = parse_python_literal(perf_params);
    if (!parsed) return half;
    // (A non-dict literal would raise in the reference; none occurs in real reports.)
    if (parsed->type == PyValue::Type::kDict) params = *parsed;
  }
  if (!data_moved_mb) return half;
  const double dm = *data_moved_mb;
  if (op_category == "GEMM") {
    const auto m = truthy_number(params, "M"), n = truthy_number(params, "N"),
               k = truthy_number(params, "K");
    if (m && n && k) {
      const double total = *m * *k + *k * *n + *m * *n;
      return {dm * (*m * *k + *k * *n) / total, dm * (*m * *n) / total};
    }
  } else if (op_category == "reduce") {
    return {dm, 0.0};
  } else if (op_category == "elementwise" && params.get("shape_in1")) {
    return {dm * 2 / 3, dm / 3};
  }
  return half;
}

KernelPerfLookup::KernelPerfLookup(const std::vector<PerfRow>& unified) {
  for (const PerfRow& row : unified) {
    if (!row.kernel_names) continue;
    PerfEntry entry{row.op_category, row.data_moved_mb, row.gflops, row.compute_spec,
                    split_data_moved(row.op_category, row.perf_params, row.data_moved_mb)};
    const Shape shape = first_shape(
        row.input_dims.empty() ? std::nullopt : std::optional<std::string_view>(row.input_dims));
    for (std::string kernel : *row.kernel_names) {
      auto it = by_name_.find(kernel);
      if (it == by_name_.end()) {
        order_.push_back(kernel);
        it = by_name_.emplace(std::move(kernel), ShapeEntries{}).first;
      }
      bool known = false;
      for (const auto& [s, e] : it->second) known = known || s == shape;
      if (!known) it->second.emplace_back(shape, entry);
    }
  }
}

const KernelPerfLookup::ShapeEntries* KernelPerfLookup::entries(std::string_view name) const {
  if (auto it = by_name_.find(name); it != by_name_.end()) return &it->second;
  for (const std::string& key : order_) {
    const bool prefix =
        name.substr(0, key.size()) == key || std::string_view(key).substr(0, name.size()) == name;
    if (prefix) return &by_name_.find(key)->second;
  }
  return nullptr;
}

const PerfEntry* KernelPerfLookup::find(std::string_view name,
                                        std::optional<std::string_view> input_dims) const {
  const ShapeEntries* shapes = entries(name);
  if (!shapes || shapes->empty()) return nullptr;
  const Shape wanted = first_shape(input_dims);
  for (const auto& [shape, entry] : *shapes)
    if (shape == wanted) return &entry;
  return &shapes->front().second;
}

}  // namespace traceprism::plugins::fusion
