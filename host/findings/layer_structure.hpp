// The layer structure of one forward pass, read from the host ops when nn.Module annotations
// are absent (model identification, docs/report-format.md "Model identification"): the ordered
// sequence of the layers that name an architecture, and the patterns found in it (ResNet
// bottleneck and basic blocks, VGG conv stacks, transformer blocks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace traceprism::index {
class EventIndex;
}

namespace traceprism::findings {

enum class Layer : std::uint8_t {
  kConv1x1,      // aten::convolution with a 1x1(x1) kernel
  kConv3x3,      // 3x3(x3) kernel
  kConvOther,    // any other kernel size (a 7x7 stem, a 16x16 patch embedding)
  kMaxPool,      // aten::max_pool*
  kResidualAdd,  // aten::add / add_ of two equal-shape 4-D+ tensors (a skip connection)
  kNorm,         // layer_norm / rms_norm, or aten::rsqrt (an eager RMSNorm)
  kAttention,    // a fused attention op (SDPA, flash)
  kSoftmax,      // softmax (with matmuls around it: eager attention)
  kMatmul,       // bmm / matmul
  kLinear,       // linear (addmm / mm without linear ops)
  kActivation,   // gelu / silu / relu and the gated activations: an MLP
};

// What the pattern matcher found in one forward pass.
struct LayerPatterns {
  std::size_t bottleneck_blocks = 0;  // 1x1 → 3x3 → 1x1 convs [+ 1x1 downsample] → residual add
  std::size_t basic_blocks = 0;       // 3x3 → 3x3 convs [+ 1x1 downsample] → residual add
  std::size_t conv3x3 = 0, other_convs = 0;  // other: every kernel size but 3x3
  std::size_t max_pools = 0, residual_adds = 0;
  std::size_t attention_layers = 0;    // fused attention ops, or softmax between matmuls
  std::size_t transformer_blocks = 0;  // attention layers followed by an MLP before the next
  std::size_t norms = 0, linears = 0;

  bool resnet() const { return bottleneck_blocks + basic_blocks >= 2; }
  // Stacks of 3x3 convs with max-pooling and no skip connections.
  bool vgg() const {
    return conv3x3 >= 8 && other_convs == 0 && max_pools >= 2 && residual_adds == 0;
  }
  // Attention + MLP blocks with norms and linear projections around them.
  bool transformer() const {
    return transformer_blocks >= 1 && norms >= transformer_blocks &&
           linears >= 2 * transformer_blocks;
  }
};

LayerPatterns find_layer_patterns(const std::vector<Layer>& layers);

// The layers of the first forward pass: the cpu_ops of the host thread with the most layers,
// backward ops left out, in start order, within the first ProfilerStep span that holds any
// (the whole trace when it has none).
std::vector<Layer> forward_layers(const index::EventIndex& index);

}  // namespace traceprism::findings
