#include "model/step_binding.hpp"

#include <algorithm>

#include "model/step_annotation.hpp"

namespace traceprism::model {

bool binds_step_annotation(std::string_view name) {
  static constexpr std::string_view kBound[] = {
      "vllm::unified_attention_with_output",
      "aiter::mha_varlen_fwd",
      "pseudo_mla_decode_fwd",
      "pseudo_mla_prefill_fwd",
      "vllm::gdn_attention_core",
      "aiter::fmha_v3_varlen_fwd",
      "sglang_profiler::tilelang_kernel_tilelang_sparse_fwd",
      "sglang_profiler::attention_paged_attention_ragged",
      "aiter::mha_batch_prefill",
      "aiter::pa_decode_gluon",
      "aiter::v4_attention_with_output",
      "pseudo_v4_paged_decode_swa",
      "pseudo_v4_paged_decode_csa",
      "pseudo_v4_paged_decode_hca",
  };
  return std::any_of(std::begin(kBound), std::end(kBound),
                     [&](std::string_view prefix) { return name.starts_with(prefix); });
}

StepBinding StepBinding::build(const index::EventIndex& index) {
  StepBinding b;
  for (index::EventKind kind :
       {index::EventKind::kUserAnnotation, index::EventKind::kGpuUserAnnotation})
    for (Row r : index.rows_of_kind(kind))
      if (index.valid(r)) b.annotations_.push_back(r);
  std::sort(b.annotations_.begin(), b.annotations_.end(), [&](Row x, Row y) {
    return std::pair(index.ts_ns(x), x) < std::pair(index.ts_ns(y), y);
  });
  std::int64_t running = INT64_MIN;
  for (Row r : b.annotations_) b.max_end_.push_back(running = std::max(running, index.end_ns(r)));
  return b;
}

std::optional<StepStats> StepBinding::stats(const index::EventIndex& index, Row op) const {
  if (!binds_step_annotation(index.name(op))) return std::nullopt;
  // Candidates start no later than the op; the first whose end passes the op's end is the
  // earliest-starting container (the running maximum first exceeds the op's end there).
  const auto starts_by =
      std::upper_bound(annotations_.begin(), annotations_.end(), index.ts_ns(op),
                       [&](std::int64_t ts, Row r) { return ts < index.ts_ns(r); });
  const auto candidates = static_cast<std::size_t>(starts_by - annotations_.begin());
  const auto first =
      std::upper_bound(max_end_.begin(), max_end_.begin() + candidates, index.end_ns(op));
  if (first == max_end_.begin() + candidates) return std::nullopt;
  const Row annotation = annotations_[static_cast<std::size_t>(first - max_end_.begin())];
  const std::optional<StepAnnotation> a = parse_step_annotation(index.name(annotation));
  if (!a || !a->has_sqsk) return std::nullopt;
  return StepStats{a->c_sq, a->c_sk, a->c_sqsq, a->c_sqsk, a->g_sq, a->g_sk, a->g_sqsq, a->g_sqsk};
}

}  // namespace traceprism::model
