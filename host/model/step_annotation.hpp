// Serving-engine step annotations (inference-mode spec §2): the user_annotation ranges vLLM,
// SGLang, ATOM and xDiT write around each engine step, with the requests and tokens the step
// scheduled. They are the steps of a serving trace that has no ProfilerStep#N.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/event_index.hpp"

namespace traceprism::model {

// The formats of spec §2.1, in the order they are tried.
enum class AnnotationFormat : std::uint8_t {
  kVllmDetailed,     // execute_N_context_C(sq..sk..sqsq..sqsk..)_generation_G(...)
  kVllmNative,       // execute_context_C(a)_generation_G(e)
  kSglangDetailed,   // step[KIND ... sqsq=...]
  kSglangNative,     // step[KIND bs=B[ toks=T]]
  kAtomDetailed,     // prefill[...] / decode[...] with sqsq= and sqsk=
  kAtomNative,       // prefill[...] / decode[...]
  kDiffusionNative,  // execute_diffusion_B_WxH
  kCapture,          // capture_B_MODE (capture traces only)
};

// What the step scheduled: prefill (context) and decode (generation) requests, their query
// tokens (sq), key tokens (sk) and the sums of squares and products the chunked-attention model
// reads (sqsq, sqsk). batch_size is the step's tokens.
struct StepAnnotation {
  AnnotationFormat format = AnnotationFormat::kVllmDetailed;
  std::int64_t batch_size = 1;
  std::int64_t context_requests = 0, generation_requests = 0;
  std::int64_t c_sq = 0, c_sk = 0, c_sqsq = 0, c_sqsk = 0;
  std::int64_t g_sq = 0, g_sk = 0, g_sqsq = 0, g_sqsk = 0;
  bool has_sqsk = false;  // the sk / sqsq / sqsk figures were written
  std::string mode;       // capture_B_MODE only: "FULL", "PIECEWISE", ...

  bool detailed() const;
  std::int64_t num_requests() const;  // saturating
};

enum class StepPhase : std::uint8_t { kIdle, kPrefillOnly, kDecodeOnly, kPrefillDecode };

// The spec's phase names: "idle", "prefill_only", "decode_only", "prefilldecode".
std::string_view step_phase_name(StepPhase phase);
StepPhase step_phase(const StepAnnotation& a);

// The first format of spec §2.1 the name matches (anchored at its start); nullopt for none.
std::optional<StepAnnotation> parse_step_annotation(std::string_view name);

struct ServingStep {
  index::Row row = 0;
  StepAnnotation annotation;
};

// Spec §2.2: the user_annotation events in a detailed format (vLLM, SGLang, ATOM), by start
// time; only when there is none, those in a native format (capture annotations never count).
std::vector<ServingStep> serving_steps(const index::EventIndex& index);

}  // namespace traceprism::model
