#include "findings/layer_structure.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "index/event_index.hpp"

namespace traceprism::findings {
namespace {

using index::EventIndex;
using index::EventKind;
using index::Row;

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// Nested dispatch repeats a layer (aten::conv2d → aten::convolution → aten::_convolution): each
// role counts the first of its names, in this order, that the trace has.
constexpr std::string_view kConvNames[] = {"aten::convolution", "aten::conv2d", "aten::conv1d",
                                           "aten::conv3d"};
constexpr std::string_view kAttentionNames[] = {
    "aten::scaled_dot_product_attention",
    "aten::_scaled_dot_product_flash_attention",
    "aten::_scaled_dot_product_efficient_attention",
    "aten::_scaled_dot_product_cudnn_attention",
    "aten::_flash_attention_forward",
    "FlashAttnFunc",
    "flash_attn::_flash_attn_forward",
    "vllm::unified_attention_with_output",
    "vllm::unified_attention",
};
constexpr std::string_view kSoftmaxNames[] = {"aten::softmax", "aten::_softmax"};
constexpr std::string_view kMatmulNames[] = {"aten::bmm", "aten::matmul"};
constexpr std::string_view kLinearNames[] = {"aten::linear", "aten::addmm", "aten::mm"};

bool is_backward(std::string_view name) {
  return contains(name, "backward") || contains(name, "Backward");
}

// A norm op, or the rsqrt of an eager one (HF's Qwen2/Llama RMSNorm: pow, mean, rsqrt, mul).
bool is_norm(std::string_view name) {
  return name == "aten::layer_norm" || contains(name, "rms_norm") || contains(name, "rmsnorm") ||
         name == "aten::rsqrt";
}

bool is_activation(std::string_view name) {
  return contains(name, "gelu") || contains(name, "silu") || contains(name, "swiglu") ||
         name == "aten::relu" || name == "aten::relu_" || contains(name, "_and_mul");
}

// The kernel size class of a convolution from its weight (argument 1: [Cout, Cin/g, k...]).
Layer conv_layer(const EventIndex& index, Row r) {
  const index::InputShapes* shapes = index.input_shapes(r);
  if (!shapes || shapes->arg_count() < 2) return Layer::kConvOther;
  const index::InputShapes::Arg& weight = shapes->arg(1);
  if (weight.is_list || weight.tensor_count != 1) return Layer::kConvOther;
  const std::span<const std::int64_t> dims = shapes->dims(weight.first_tensor);
  if (dims.size() < 3) return Layer::kConvOther;
  const auto kernel = dims.subspan(2);
  auto all = [&](std::int64_t k) {
    return std::all_of(kernel.begin(), kernel.end(), [&](std::int64_t d) { return d == k; });
  };
  return all(1) ? Layer::kConv1x1 : all(3) ? Layer::kConv3x3 : Layer::kConvOther;
}

// add(x, y) of two single tensors of one shape, at least 4-D (N, C, H, W): a skip connection.
bool is_residual_add(const EventIndex& index, Row r) {
  const index::InputShapes* shapes = index.input_shapes(r);
  if (!shapes || shapes->arg_count() < 2) return false;
  const auto& a = shapes->arg(0);
  const auto& b = shapes->arg(1);
  if (a.is_list || b.is_list || a.tensor_count != 1 || b.tensor_count != 1) return false;
  const auto da = shapes->dims(a.first_tensor), db = shapes->dims(b.first_tensor);
  return da.size() >= 4 && std::equal(da.begin(), da.end(), db.begin(), db.end());
}

// The first name of `names` that some cpu_op has.
std::string_view first_present(const std::vector<std::string_view>& present,
                               std::span<const std::string_view> names) {
  for (std::string_view n : names)
    if (std::find(present.begin(), present.end(), n) != present.end()) return n;
  return {};
}

struct Roles {
  std::string_view conv, attention, softmax, matmul, linear;
};

Roles roles_of(const EventIndex& index) {
  std::vector<std::string_view> present;
  std::vector<index::StringId> seen;
  for (Row r : index.rows_of_kind(EventKind::kCpuOp)) {
    if (std::find(seen.begin(), seen.end(), index.name_id(r)) != seen.end()) continue;
    seen.push_back(index.name_id(r));
    present.push_back(index.name(r));
  }
  return {first_present(present, kConvNames), first_present(present, kAttentionNames),
          first_present(present, kSoftmaxNames), first_present(present, kMatmulNames),
          first_present(present, kLinearNames)};
}

// What a cpu_op's name alone says about its layer; conv and add still need the op's shapes.
struct NameLayer {
  enum class Kind : std::uint8_t { kUnset, kNone, kLayer, kConv, kAdd };
  Kind kind = Kind::kUnset;
  Layer layer = Layer::kNorm;  // for kLayer
};

NameLayer name_layer(const Roles& roles, std::string_view name) {
  using Kind = NameLayer::Kind;
  if (name.empty() || is_backward(name)) return {Kind::kNone};
  if (name == roles.conv) return {Kind::kConv};
  if (name == roles.attention) return {Kind::kLayer, Layer::kAttention};
  if (name == roles.softmax) return {Kind::kLayer, Layer::kSoftmax};
  if (name == roles.matmul) return {Kind::kLayer, Layer::kMatmul};
  if (name == roles.linear) return {Kind::kLayer, Layer::kLinear};
  if (name.starts_with("aten::max_pool")) return {Kind::kLayer, Layer::kMaxPool};
  if (name == "aten::add" || name == "aten::add_") return {Kind::kAdd};
  if (is_norm(name)) return {Kind::kLayer, Layer::kNorm};
  if (is_activation(name)) return {Kind::kLayer, Layer::kActivation};
  return {Kind::kNone};
}

// Layers of cpu_ops, each name's part decided once: a trace has millions of ops and a few
// hundred names.
class LayerOf {
 public:
  LayerOf(const EventIndex& index, const Roles& roles)
      : index_(index), roles_(roles), by_name_(index.strings().size()) {}

  std::optional<Layer> operator()(Row r) {
    const index::StringId id = index_.name_id(r);
    if (id == index::kNoString) return std::nullopt;
    NameLayer& n = by_name_[id];
    if (n.kind == NameLayer::Kind::kUnset) n = name_layer(roles_, index_.name(r));
    switch (n.kind) {
      case NameLayer::Kind::kLayer:
        return n.layer;
      case NameLayer::Kind::kConv:
        return conv_layer(index_, r);
      case NameLayer::Kind::kAdd:
        if (is_residual_add(index_, r)) return Layer::kResidualAdd;
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }

 private:
  const EventIndex& index_;
  const Roles& roles_;
  std::vector<NameLayer> by_name_;
};

struct Timed {
  std::int64_t ts_ns;
  Row row;
  Layer layer;
};

// [start, end) of the first ProfilerStep span holding one of `layers`; nullopt without steps.
std::optional<std::pair<std::int64_t, std::int64_t>> first_step(const EventIndex& index,
                                                                const std::vector<Timed>& layers) {
  std::vector<std::pair<std::int64_t, std::int64_t>> steps;
  for (Row r : index.rows_of_kind(EventKind::kUserAnnotation))
    if (index.name(r).starts_with("ProfilerStep#"))
      steps.emplace_back(index.ts_ns(r), index.end_ns(r));
  std::sort(steps.begin(), steps.end());
  for (const auto& step : steps)
    for (const Timed& t : layers)
      if (t.ts_ns >= step.first && t.ts_ns < step.second) return step;
  return std::nullopt;
}

}  // namespace

std::vector<Layer> forward_layers(const EventIndex& index) {
  const Roles roles = roles_of(index);
  LayerOf layer_of(index, roles);
  std::map<std::pair<index::IdRef, index::IdRef>, std::vector<Timed>> by_thread;
  for (Row r : index.rows_of_kind(EventKind::kCpuOp))
    if (const std::optional<Layer> layer = layer_of(r))
      by_thread[{index.pid(r), index.tid(r)}].push_back({index.ts_ns(r), r, *layer});
  std::vector<Timed>* busiest = nullptr;
  for (auto& [thread, layers] : by_thread)
    if (!busiest || layers.size() > busiest->size()) busiest = &layers;
  if (!busiest) return {};
  std::vector<Timed>& layers = *busiest;
  std::sort(layers.begin(), layers.end(), [](const Timed& a, const Timed& b) {
    return a.ts_ns != b.ts_ns ? a.ts_ns < b.ts_ns : a.row < b.row;
  });
  const auto step = first_step(index, layers);
  std::vector<Layer> out;
  for (const Timed& t : layers)
    if (!step || (t.ts_ns >= step->first && t.ts_ns < step->second)) out.push_back(t.layer);
  return out;
}

namespace {

bool is_conv(Layer l) {
  return l == Layer::kConv1x1 || l == Layer::kConv3x3 || l == Layer::kConvOther;
}

// Residual units over the conv / add subsequence: `shape` convs, an optional 1x1 downsample conv,
// then a residual add.
std::size_t count_units(const std::vector<Layer>& convs_and_adds, std::vector<Layer> shape) {
  std::size_t units = 0, i = 0;
  const auto& s = convs_and_adds;
  while (i + shape.size() < s.size()) {
    if (!std::equal(shape.begin(), shape.end(), s.begin() + static_cast<std::ptrdiff_t>(i))) {
      ++i;
      continue;
    }
    std::size_t j = i + shape.size();
    if (j < s.size() && s[j] == Layer::kConv1x1) ++j;  // the downsample projection
    if (j < s.size() && s[j] == Layer::kResidualAdd) {
      ++units;
      i = j + 1;
    } else {
      ++i;
    }
  }
  return units;
}

// Positions of the attention layers: fused ops, else each softmax with a matmul since the
// previous softmax and another before the next one (bmm → softmax → bmm).
std::vector<std::size_t> attention_positions(const std::vector<Layer>& layers) {
  std::vector<std::size_t> fused, eager;
  for (std::size_t i = 0; i < layers.size(); ++i)
    if (layers[i] == Layer::kAttention) fused.push_back(i);
  if (!fused.empty()) return fused;
  bool matmul_before = false;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i] == Layer::kMatmul) matmul_before = true;
    if (layers[i] != Layer::kSoftmax) continue;
    bool matmul_after = false;
    for (std::size_t j = i + 1; j < layers.size() && layers[j] != Layer::kSoftmax; ++j)
      if (layers[j] == Layer::kMatmul) matmul_after = true;
    if (matmul_before && matmul_after) eager.push_back(i);
    matmul_before = false;
  }
  return eager;
}

}  // namespace

LayerPatterns find_layer_patterns(const std::vector<Layer>& layers) {
  LayerPatterns p;
  std::vector<Layer> convs_and_adds;
  for (Layer l : layers) {
    if (is_conv(l) || l == Layer::kResidualAdd) convs_and_adds.push_back(l);
    p.conv3x3 += l == Layer::kConv3x3;
    p.other_convs += l == Layer::kConvOther || l == Layer::kConv1x1;
    p.max_pools += l == Layer::kMaxPool;
    p.residual_adds += l == Layer::kResidualAdd;
    p.norms += l == Layer::kNorm;
    p.linears += l == Layer::kLinear;
  }
  p.bottleneck_blocks =
      count_units(convs_and_adds, {Layer::kConv1x1, Layer::kConv3x3, Layer::kConv1x1});
  p.basic_blocks = count_units(convs_and_adds, {Layer::kConv3x3, Layer::kConv3x3});
  const std::vector<std::size_t> attention = attention_positions(layers);
  p.attention_layers = attention.size();
  for (std::size_t k = 0; k < attention.size(); ++k) {
    const std::size_t end = k + 1 < attention.size() ? attention[k + 1] : layers.size();
    const auto first = layers.begin() + static_cast<std::ptrdiff_t>(attention[k]);
    if (std::find(first, layers.begin() + static_cast<std::ptrdiff_t>(end), Layer::kActivation) !=
        layers.begin() + static_cast<std::ptrdiff_t>(end))
      ++p.transformer_blocks;
  }
  return p;
}

}  // namespace traceprism::findings
