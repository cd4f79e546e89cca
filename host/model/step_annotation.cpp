#include "model/step_annotation.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <regex>

namespace traceprism::model {

namespace {

using Fields = std::map<std::string, std::int64_t, std::less<>>;

// Counts from annotation text can be anything a trace writes: add without overflowing.
std::int64_t sum(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return a > 0 ? INT64_MAX : INT64_MIN;
  return out;
}

// A token read as an integer; anything else (empty, "abc", "12x") reads as 0, as the reference
// reads a non-integer field.
std::int64_t integer(std::string_view token) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  return ec == std::errc() && end == token.data() + token.size() ? v : 0;
}

bool starts(std::string_view name, const std::regex& pattern, std::cmatch* m = nullptr) {
  std::cmatch local;
  return std::regex_search(name.data(), name.data() + name.size(), m ? *m : local, pattern,
                           std::regex_constants::match_continuous);
}

// The vLLM forms' tokens: "(" and ")" and every run of the letters s, q, k become "_", then
// the text is split on "_" (execute / context / generation hold none of those letters).
std::vector<std::string> vllm_tokens(std::string_view name) {
  auto is_sqk = [](char c) { return c == 's' || c == 'q' || c == 'k'; };
  std::string text;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool run_start = is_sqk(c) && (i == 0 || !is_sqk(name[i - 1]));
    if (c == '(' || c == ')' || run_start)
      text += '_';
    else if (!is_sqk(c))
      text += c;
  }
  std::vector<std::string> tokens(1);
  for (char c : text) {
    if (c == '_')
      tokens.emplace_back();
    else
      tokens.back() += c;
  }
  return tokens;
}

std::int64_t token(const std::vector<std::string>& tokens, std::size_t i) {
  return i < tokens.size() ? integer(tokens[i]) : 0;
}

StepAnnotation vllm_detailed(std::string_view name) {
  const std::vector<std::string> t = vllm_tokens(name);
  StepAnnotation a;
  a.format = AnnotationFormat::kVllmDetailed;
  a.context_requests = token(t, 3);
  a.c_sq = token(t, 5), a.c_sk = token(t, 6), a.c_sqsq = token(t, 7), a.c_sqsk = token(t, 8);
  a.generation_requests = token(t, 11);
  a.g_sq = token(t, 13), a.g_sk = token(t, 14), a.g_sqsq = token(t, 15), a.g_sqsk = token(t, 16);
  a.batch_size = sum(a.c_sq, a.g_sq);
  a.has_sqsk = true;
  return a;
}

StepAnnotation vllm_native(std::string_view name) {
  const std::vector<std::string> t = vllm_tokens(name);
  StepAnnotation a;
  a.format = AnnotationFormat::kVllmNative;
  a.context_requests = token(t, 2), a.c_sq = token(t, 3);
  a.generation_requests = token(t, 6), a.g_sq = token(t, 7);
  a.batch_size = sum(a.c_sq, a.g_sq);
  return a;
}

// key=value pairs with integer values ("bs=117/128" reads 117); keys are whole words.
Fields key_values(std::string_view text) {
  static const std::regex kPair(R"((?:^|[^\w])(\w+)=(\d+))");
  Fields out;
  for (std::cregex_iterator it(text.data(), text.data() + text.size(), kPair), end; it != end; ++it)
    out.try_emplace((*it)[1].str(), integer((*it)[2].str()));
  return out;
}

std::int64_t field(const Fields& f, std::string_view key) {
  const auto it = f.find(key);
  return it == f.end() ? 0 : it->second;
}

void set_context(StepAnnotation& a, const Fields& f) {
  a.c_sq = field(f, "c_sq"), a.c_sk = field(f, "c_sk");
  a.c_sqsq = field(f, "c_sqsq"), a.c_sqsk = field(f, "c_sqsk");
}

void set_generation(StepAnnotation& a, const Fields& f) {
  a.g_sq = field(f, "g_sq"), a.g_sk = field(f, "g_sk");
  a.g_sqsq = field(f, "g_sqsq"), a.g_sqsk = field(f, "g_sqsk");
}

StepAnnotation sglang_detailed(const std::string& kind, std::string_view body) {
  const Fields f = key_values(body);
  StepAnnotation a;
  a.format = AnnotationFormat::kSglangDetailed;
  set_context(a, f);
  set_generation(a, f);
  if (kind == "DECODE") {
    a.generation_requests = field(f, "bs");
  } else if (kind == "EXTEND") {
    a.context_requests = field(f, "bs");
  } else {
    a.context_requests = field(f, "c");
    a.generation_requests = field(f, "g");
  }
  a.batch_size = sum(a.c_sq, a.g_sq) > 0 ? sum(a.c_sq, a.g_sq)
                 : f.count("toks")       ? field(f, "toks")
                                         : field(f, "bs");
  a.has_sqsk = true;
  return a;
}

// QUIRK (spec §2.1): a native MIXED step counts as prefill only.
StepAnnotation sglang_native(const std::string& kind, std::string_view body) {
  const Fields f = key_values(body);
  StepAnnotation a;
  a.format = AnnotationFormat::kSglangNative;
  if (kind == "DECODE") {
    a.generation_requests = a.g_sq = field(f, "bs");
  } else {
    a.context_requests = field(f, "bs");
    a.c_sq = field(f, "toks");
  }
  a.batch_size = sum(a.c_sq, a.g_sq) > 0 ? sum(a.c_sq, a.g_sq) : field(f, "bs");
  return a;
}

StepAnnotation atom(bool prefill, std::string_view body) {
  const Fields f = key_values(body);
  StepAnnotation a;
  a.has_sqsk = f.count("sqsq") && f.count("sqsk");
  a.format = a.has_sqsk ? AnnotationFormat::kAtomDetailed : AnnotationFormat::kAtomNative;
  const std::int64_t requests = field(f, "bs"), tokens = field(f, "tok");
  std::int64_t* figures[] = {&a.g_sq, &a.g_sk, &a.g_sqsq, &a.g_sqsk};
  if (prefill) {
    a.context_requests = requests;
    figures[0] = &a.c_sq, figures[1] = &a.c_sk, figures[2] = &a.c_sqsq, figures[3] = &a.c_sqsk;
  } else {
    a.generation_requests = requests;
  }
  *figures[0] = tokens;
  *figures[1] = field(f, "sk"), *figures[2] = field(f, "sqsq"), *figures[3] = field(f, "sqsk");
  a.batch_size = tokens;
  return a;
}

}  // namespace

std::int64_t StepAnnotation::num_requests() const {
  return sum(context_requests, generation_requests);
}

bool StepAnnotation::detailed() const {
  return format == AnnotationFormat::kVllmDetailed || format == AnnotationFormat::kSglangDetailed ||
         format == AnnotationFormat::kAtomDetailed;
}

std::string_view step_phase_name(StepPhase phase) {
  switch (phase) {
    case StepPhase::kIdle:
      return "idle";
    case StepPhase::kPrefillOnly:
      return "prefill_only";
    case StepPhase::kDecodeOnly:
      return "decode_only";
    case StepPhase::kPrefillDecode:
      return "prefilldecode";
  }
  return "idle";
}

StepPhase step_phase(const StepAnnotation& a) {
  if (a.context_requests > 0 && a.generation_requests > 0) return StepPhase::kPrefillDecode;
  if (a.context_requests > 0) return StepPhase::kPrefillOnly;
  if (a.generation_requests > 0) return StepPhase::kDecodeOnly;
  return StepPhase::kIdle;
}

std::optional<StepAnnotation> parse_step_annotation(std::string_view name) {
  static const std::regex kVllmDetailed(
      R"(execute_\d+_context_\d+\([^)]*\)_generation_\d+\([^)]*\))");
  static const std::regex kVllmNative(R"(execute_context_\d+\([^)]*\)_generation_\d+\([^)]*\))");
  static const std::regex kSglang(R"(step\[(EXTEND|DECODE|MIXED)([^\]]*)\])");
  static const std::regex kAtom(R"((prefill|decode)\[(.*)\])");
  static const std::regex kDiffusion(R"(execute_diffusion_(\d+)_\d+x\d+)");
  static const std::regex kCapture(R"(capture_(\d+)_(.*))");
  std::cmatch m;
  if (starts(name, kVllmDetailed)) return vllm_detailed(name);
  if (starts(name, kVllmNative)) return vllm_native(name);
  if (starts(name, kSglang, &m)) {
    const std::string body = m[2].str();
    if (body.find("sqsq=") != std::string::npos) return sglang_detailed(m[1].str(), body);
    return sglang_native(m[1].str(), body);
  }
  if (starts(name, kAtom, &m)) return atom(m[1].str() == "prefill", m[2].str());
  StepAnnotation a;
  if (starts(name, kDiffusion, &m)) {
    a.format = AnnotationFormat::kDiffusionNative;
    a.batch_size = integer(m[1].str());
    return a;
  }
  if (starts(name, kCapture, &m)) {
    a.format = AnnotationFormat::kCapture;
    a.batch_size = integer(m[1].str());
    a.mode = m[2].str();
    return a;
  }
  return std::nullopt;
}

std::vector<ServingStep> serving_steps(const index::EventIndex& index) {
  std::vector<ServingStep> detailed, native;
  for (index::Row row : index.rows_of_kind(index::EventKind::kUserAnnotation)) {
    if (!index.valid(row)) continue;
    std::optional<StepAnnotation> a = parse_step_annotation(index.name(row));
    if (!a || a->format == AnnotationFormat::kCapture) continue;
    (a->detailed() ? detailed : native).push_back({row, *a});
  }
  std::vector<ServingStep>& steps = detailed.empty() ? native : detailed;
  std::stable_sort(steps.begin(), steps.end(), [&](const ServingStep& a, const ServingStep& b) {
    return index.ts_ns(a.row) < index.ts_ns(b.row);
  });
  return steps;
}

}  // namespace traceprism::model
