#include "findings/model_identification.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <unordered_set>

#include <traceprism/python_literal.hpp>
#include <traceprism/shape_args.hpp>
#include "index/event_index.hpp"
#include "io/ascii_text.hpp"
#include "text/json_writer.hpp"

namespace traceprism::findings {
namespace {

using io::ascii_lower;

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// The op category key the analyzers use: "GEMM" -> "gemm", "CONV_fwd" -> "conv_fwd".
std::string category_key(std::string_view op_category) {
  if (op_category.empty() || op_category == "nan") return "other";
  std::string out = ascii_lower(op_category);
  for (char& c : out)
    if (c == ' ' || c == '/') c = '_';
  return out;
}

// "Qwen2DecoderLayer_3" -> "Qwen2DecoderLayer": the profiler numbers module instances.
std::string strip_instance_suffix(std::string_view name) {
  const std::size_t us = name.rfind('_');
  if (us == std::string_view::npos || us + 1 == name.size()) return std::string(name);
  for (std::size_t i = us + 1; i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return std::string(name);
  return std::string(name.substr(0, us));
}

// ---- Families from module class names ----

struct Family {
  const char* prefix;  // class-name prefix, case-sensitive
  bool exact;          // the whole class name must equal `prefix`
  const char* name;
  const char* architecture;  // when the ops themselves show none
};

// Order breaks ties between families matched by the same number of classes.
constexpr Family kFamilies[] = {
    {"Llama", false, "Llama", "Transformer"},
    {"Qwen3", false, "Qwen3", "Transformer"},
    {"Qwen2", false, "Qwen2", "Transformer"},
    {"Mixtral", false, "Mixtral", "Transformer (MoE)"},
    {"Mistral", false, "Mistral", "Transformer"},
    {"Gemma", false, "Gemma", "Transformer"},
    {"Phi", false, "Phi", "Transformer"},
    {"GPTNeoX", false, "GPT-NeoX", "Transformer"},
    {"GPT2", false, "GPT-2", "Transformer"},
    {"Bert", false, "BERT", "Transformer"},
    {"Roberta", false, "RoBERTa", "Transformer"},
    {"T5", false, "T5", "Transformer"},
    {"ViT", false, "ViT", "Transformer"},
    {"CLIP", false, "CLIP", "Transformer"},
    {"Owlv2", false, "OWLv2", "Transformer"},
    {"TimeSformer", false, "TimeSformer", "Transformer"},
    {"Timesformer", false, "TimeSformer", "Transformer"},  // HF spells both
    {"ResNet", false, "ResNet", "CNN"},
    {"Bottleneck", true, "ResNet", "CNN"},
    {"BasicBlock", true, "ResNet", "CNN"},
    {"DLRM", false, "DLRM", kCannotInfer},
    {"DeepseekV3", false, "DeepSeek-V3", "Transformer (MoE)"},
    {"DeepseekV2", false, "DeepSeek-V2", "Transformer (MoE)"},
    {"DeepseekV", false, "DeepSeek", "Transformer (MoE)"},
    {"GptOss", false, "GPT-OSS", "Transformer (MoE)"},
};

bool matches(const Family& f, const std::string& cls) {
  return f.exact ? cls == f.prefix : cls.starts_with(f.prefix);
}

// The family most module classes belong to (a model also holds generic Linear/Dropout
// modules and, e.g. a LLaVA, a vision tower's classes); nullptr when none matches.
const Family* family_of(const std::vector<std::string>& classes) {
  std::map<std::string, std::size_t> votes;  // family name -> distinct classes
  for (const std::string& cls : classes)
    for (const Family& f : kFamilies)
      if (matches(f, cls)) {
        ++votes[f.name];
        break;
      }
  const Family* best = nullptr;
  std::size_t best_votes = 0;
  for (const Family& f : kFamilies) {
    auto it = votes.find(f.name);
    if (it != votes.end() && it->second > best_votes) best = &f, best_votes = it->second;
  }
  return best;
}

// ---- What the op set shows ----

struct OpShares {
  double total_us = 0, conv_us = 0, embedding_bag_us = 0;
  bool attention = false, bmm = false, softmax = false, embedding = false, moe = false,
       recurrent = false;
};

OpShares op_shares(const ModelEvidence& e) {
  OpShares s;
  for (const auto& op : e.ops) {
    const std::string name = ascii_lower(op.name);
    s.total_us += op.kernel_time_us;
    if (op.category.starts_with("conv") || contains(name, "convolution"))
      s.conv_us += op.kernel_time_us;
    if (contains(name, "embedding_bag")) s.embedding_bag_us += op.kernel_time_us;
    if (op.category.starts_with("sdpa") || op.category == "inferenceattention" ||
        contains(name, "attention") || contains(name, "sdpa") || contains(name, "attn"))
      s.attention = true;
    if (contains(name, "bmm")) s.bmm = true;
    if (contains(name, "softmax")) s.softmax = true;
    if (contains(name, "embedding") && !contains(name, "embedding_bag")) s.embedding = true;
    if (op.category.starts_with("moe") || contains(name, "moe")) s.moe = true;
    if (contains(name, "lstm") || contains(name, "gru") || contains(name, "_rnn"))
      s.recurrent = true;
  }
  return s;
}

double share(double part, double total) {
  return total > 0 ? part / total : 0.0;
}

// Thresholds of the op-set fallbacks (docs/report-format.md): a quarter of the kernel time in
// embedding bags makes a recommendation model; half in convolutions a vision model; 30% a CNN.
constexpr double kEmbeddingBagHeavy = 0.25;
constexpr double kConvolutionDominant = 0.5;
constexpr double kCnnConvolutionShare = 0.3;

std::string model_of(const ModelEvidence& e, const Family* family, const OpShares& s,
                     const LayerPatterns& p) {
  if (family) return family->name;
  // Without module annotations, the layer pattern names the family it is the signature of.
  if (p.resnet() && !s.attention) return "ResNet-style CNN";
  if (p.vgg() && !s.attention) return "VGG-style CNN";
  const bool bag_module = std::binary_search(e.module_classes.begin(), e.module_classes.end(),
                                             std::string("EmbeddingBag"));
  if (bag_module || share(s.embedding_bag_us, s.total_us) >= kEmbeddingBagHeavy)
    return "Recommendation";
  if (share(s.conv_us, s.total_us) > kConvolutionDominant) return "Vision";
  if (s.attention && s.embedding) return "LLM";
  return kCannotInfer;
}

std::string resnet_architecture(const LayerPatterns& p) {
  if (p.bottleneck_blocks >= p.basic_blocks)
    return "CNN (ResNet-style: " + std::to_string(p.bottleneck_blocks) +
           " bottleneck blocks, 1x1-3x3-1x1 convolutions with residual adds)";
  return "CNN (ResNet-style: " + std::to_string(p.basic_blocks) +
         " basic blocks, 3x3-3x3 convolutions with residual adds)";
}

std::string architecture_of(const Family* family, const OpShares& s, const LayerPatterns& p) {
  if (s.attention || (s.bmm && s.softmax) || p.attention_layers > 0) {
    const bool moe_family = family && contains(family->architecture, "MoE");
    std::string arch = s.moe || moe_family ? "Transformer (MoE)" : "Transformer";
    if (p.transformer()) arch += ", " + std::to_string(p.transformer_blocks) + " blocks";
    return arch;
  }
  if (p.resnet()) return resnet_architecture(p);
  if (p.vgg())
    return "CNN (VGG-style: " + std::to_string(p.conv3x3) +
           " 3x3 convolutions in stacks with max-pooling, no residual adds)";
  if (share(s.conv_us, s.total_us) > kCnnConvolutionShare) return "CNN";
  if (s.recurrent) return "RNN";
  return family ? family->architecture : kCannotInfer;
}

// ---- Precision: GEMM / convolution input dtypes weighted by kernel time ----

bool is_matrix_category(const std::string& c) {
  return c.starts_with("gemm") || c.starts_with("groupedgemm") || c.starts_with("conv") ||
         c.starts_with("moe");
}

std::optional<std::string> first_dtype(const std::string& input_type) {
  const auto types = parse_python_literal(input_type);
  if (!types || !types->is_sequence()) return std::nullopt;
  for (const PyValue& t : types->items)
    if (t.type == PyValue::Type::kString)
      if (auto d = short_dtype(t.text)) return d;
  return std::nullopt;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool is_matrix_kernel(const std::string& lower_name) {
  for (std::string_view part : {"gemm", "cijk_", "xmma", "wmma", "cutlass", "conv", "wgrad",
                                "dgrad", "fprop", "scudnn", "s1688", "h884", "h1688", "h16816"})
    if (contains(lower_name, part)) return true;
  return false;
}

bool is_gemm_kernel(std::string_view name) {
  const std::string n = ascii_lower(name);
  return contains(n, "gemm") || n.starts_with("cijk_");
}

// hipBLASLt / Tensile kernels name their data type after the operand layouts:
// "Cijk_Alik_Bljk_B_BS_..." (bf16), "..._HHS_..." (fp16), "..._S_..." (fp32).
std::string tensile_precision(const std::string& lower_name) {
  if (!lower_name.starts_with("cijk_")) return "";
  std::size_t field = 0, start = 0;
  while (field < 3) {
    start = lower_name.find('_', start);
    if (start == std::string::npos) return "";
    ++start, ++field;
  }
  const std::string_view type = std::string_view(lower_name).substr(start);
  if (type.starts_with("f8") || type.starts_with("b8")) return "FP8";
  if (type.starts_with("b")) return "BF16";
  if (type.starts_with("h")) return "FP16";
  if (type.starts_with("s")) return "FP32";
  return "";
}

void add_time(std::map<std::string, double>& by_precision, const std::string& p, double us) {
  if (p.empty() || !(us > 0)) return;
  by_precision[p] += us;
}

std::string precision_of(const ModelEvidence& e) {
  std::map<std::string, double> by_precision;
  for (const auto& op : e.ops) {
    const bool matrix = is_matrix_category(op.category);
    const std::optional<std::string> op_dtype = matrix ? first_dtype(op.input_type) : std::nullopt;
    const std::string op_precision = op_dtype ? upper(*op_dtype) : "";
    if (op.kernels.empty()) {
      add_time(by_precision, op_precision, op.kernel_time_us);
      continue;
    }
    // Each kernel by the precision its name states, else (matrix ops) by the op's input type;
    // outside matrix ops only GEMM kernels that state one count (a custom FP8 GEMM op).
    for (const auto& k : op.kernels) {
      if (!matrix && !is_gemm_kernel(k.name)) continue;
      const std::string named = kernel_name_precision(k.name);
      add_time(by_precision, !named.empty() ? named : op_precision, k.us);
    }
  }
  double total = 0;
  for (const auto& [p, us] : by_precision) total += us;
  if (total <= 0) return kCannotInfer;
  std::vector<std::pair<std::string, double>> ranked(by_precision.begin(), by_precision.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (ranked.front().second / total > 0.8) return ranked.front().first;
  return "Mixed (" + ranked[0].first + "/" + ranked[1].first + ")";
}

// ---- Scale: the hidden size, from the reduction dimension of linear layers ----

// The last dimension of input `i` of a shape tuple, or 0.
long long last_dim(const PyValue& dims, std::size_t i) {
  if (!dims.is_sequence() || i >= dims.items.size()) return 0;
  const PyValue& shape = dims.items[i];
  if (!shape.is_sequence() || shape.items.empty() || !shape.items.back().is_number()) return 0;
  return static_cast<long long>(shape.items.back().number);
}

// K of a linear-layer GEMM: addmm(bias, x[M,K], w[K,N]); mm(x[M,K], w[K,N]); linear(x[...,K], w).
long long linear_k(const ModelEvidence::Op& op) {
  const auto dims = parse_python_literal(op.input_dims);
  if (!dims) return 0;
  if (op.name == "aten::addmm") return last_dim(*dims, 1);
  if (op.name == "aten::mm" || op.name == "aten::linear") return last_dim(*dims, 0);
  return 0;
}

bool is_norm(const ModelEvidence::Op& op) {
  const std::string name = ascii_lower(op.name);
  return op.category.starts_with("norm") || op.category == "rmsnorm" ||
         contains(name, "layer_norm") || contains(name, "rms_norm");
}

// The most frequent value (weighted by call count; ties: the smaller size).
long long most_frequent(const std::map<long long, double>& counts) {
  long long best = 0;
  double best_count = 0;
  for (const auto& [k, n] : counts)
    if (n > best_count) best = k, best_count = n;
  return best;
}

// The depth a ResNet / VGG variant is defined by, from its block or conv count.
std::string cnn_depth(const LayerPatterns& p) {
  static const std::map<std::size_t, const char*> kBottleneck = {
      {16, "ResNet-50"}, {33, "ResNet-101"}, {50, "ResNet-152"}};
  static const std::map<std::size_t, const char*> kBasic = {{8, "ResNet-18"}, {16, "ResNet-34"}};
  static const std::map<std::size_t, const char*> kVgg = {
      {8, "VGG-11"}, {10, "VGG-13"}, {13, "VGG-16"}, {16, "VGG-19"}};
  // The architecture already states the count; the scale adds the depth it names, if any.
  auto named = [](const auto& table, std::size_t n) {
    auto it = table.find(n);
    return it == table.end() ? std::string(kCannotInfer) : std::string(it->second) + " depth";
  };
  if (p.resnet())
    return p.bottleneck_blocks >= p.basic_blocks ? named(kBottleneck, p.bottleneck_blocks)
                                                 : named(kBasic, p.basic_blocks);
  return named(kVgg, p.conv3x3);
}

// What the shapes measure: the hidden size or the named depth, never a parameter count (the
// same hidden size spans models of very different sizes).
std::string scale_of(const ModelEvidence& e, const LayerPatterns& p) {
  if ((p.resnet() || p.vgg()) && !p.transformer()) return cnn_depth(p);
  std::map<long long, double> ks, norm_dims;
  for (const auto& op : e.ops) {
    const double n = op.count > 0 ? op.count : 1;
    if (long long k = linear_k(op); k > 0 && op.category.starts_with("gemm")) ks[k] += n;
    if (is_norm(op))
      if (const auto dims = parse_python_literal(op.input_dims))
        if (long long d = last_dim(*dims, 0); d > 0) norm_dims[d] += n;
  }
  const long long hidden = !ks.empty() ? most_frequent(ks) : most_frequent(norm_dims);
  // The block count is in the architecture ("Transformer, 12 blocks"): not repeated here.
  if (hidden <= 0) return kCannotInfer;
  return "hidden size " + std::to_string(hidden);
}

}  // namespace

ModelEvidence gather_model_evidence(const index::EventIndex* index,
                                    const perf_report::UnifiedPerfTable* unified) {
  ModelEvidence e;
  std::set<std::string> classes;
  if (index) {
    std::unordered_set<index::StringId> seen;  // module spans repeat their names per call
    for (auto kind : {index::EventKind::kPythonFunction, index::EventKind::kUserAnnotation})
      for (index::Row r : index->rows_of_kind(kind)) {
        if (!seen.insert(index->name_id(r)).second) continue;
        std::string_view name = index->name(r);
        constexpr std::string_view kPrefix = "nn.Module: ";
        if (!name.starts_with(kPrefix)) continue;
        name.remove_prefix(kPrefix.size());
        if (!name.empty()) classes.insert(strip_instance_suffix(name));
      }
  }
  e.module_classes.assign(classes.begin(), classes.end());
  if (index) e.layers = forward_layers(*index);
  if (!unified) return e;
  // The sheet's cells as numbers: an empty (NaN) kernel time counts as 0; shape args as the
  // sheet prints them, "" for None.
  auto arg = [](const std::string& repr) { return repr == "None" ? std::string() : repr; };
  for (const perf_report::UnifiedGroup& g : unified->groups) {
    ModelEvidence::Op& op = e.ops.emplace_back();
    op = {g.name,
          category_key(g.category),
          arg(g.input_dims),
          arg(g.input_type),
          std::isnan(g.kernel_time_sum_us) ? 0.0 : g.kernel_time_sum_us,
          static_cast<double>(g.operation_count),
          {}};
    for (const perf_report::KernelSummaryEntry& k : g.kernel_summary)
      op.kernels.push_back({k.name, k.total_duration_us});
  }
  return e;
}

ModelInfo identify_model(const ModelEvidence& e) {
  const Family* family = family_of(e.module_classes);
  const OpShares shares = op_shares(e);
  const LayerPatterns patterns = find_layer_patterns(e.layers);
  ModelInfo info;
  info.model = model_of(e, family, shares, patterns);
  info.architecture = architecture_of(family, shares, patterns);
  info.precision = precision_of(e);
  // Issue 15: never a scale without a model (a lone norm layer's width is no model's size).
  info.scale = info.architecture == kCannotInfer ? kCannotInfer : scale_of(e, patterns);
  return info;
}

std::string kernel_name_precision(std::string_view kernel_name) {
  const std::string n = ascii_lower(kernel_name);
  if (!is_matrix_kernel(n)) return "";
  if (contains(n, "mxfp4") || contains(n, "e2m1")) return "MXFP4";
  if (contains(n, "nvfp4")) return "NVFP4";
  if (contains(n, "e4m3") || contains(n, "e5m2") || contains(n, "fp8")) return "FP8";
  if (contains(n, "bf16") || contains(n, "bfloat16")) return "BF16";
  for (std::string_view part : {"h884", "h1688", "h16816", "hgemm", "fp16", "f16", "half"})
    if (contains(n, part)) return "FP16";
  if (contains(n, "tf32") || contains(n, "s1688")) return "TF32";
  if (std::string tensile = tensile_precision(n); !tensile.empty()) return tensile;
  if (contains(n, "sgemm") || contains(n, "scudnn") || contains(n, "fp32")) return "FP32";
  return "";
}

std::string model_info_json(const ModelInfo& info) {
  text::JsonWriter w;
  w.begin_object();
  w.key("model").value(info.model);
  w.key("architecture").value(info.architecture);
  w.key("scale").value(info.scale);
  w.key("precision").value(info.precision);
  w.end_object();
  return w.str();
}

}  // namespace traceprism::findings
