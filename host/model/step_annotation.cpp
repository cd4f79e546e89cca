#include "model/step_annotation.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

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

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_word(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// The annotation forms are read by hand rather than with std::regex: libstdc++'s matcher
// recurses once per character, and a name of a few thousand characters overflowed the stack.
// Each method consumes what it matches and fails (false / nullopt) otherwise.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : rest_(text) {}

  bool literal(std::string_view s) {
    if (!rest_.starts_with(s)) return false;
    rest_.remove_prefix(s.size());
    return true;
  }

  // One or more decimal digits.
  std::optional<std::string_view> digits() {
    std::size_t n = 0;
    while (n < rest_.size() && is_digit(rest_[n])) ++n;
    return n ? std::optional(take(n)) : std::nullopt;
  }

  // The text before the first `stop`, which is consumed too.
  std::optional<std::string_view> until(char stop) {
    const std::size_t at = rest_.find(stop);
    if (at == std::string_view::npos) return std::nullopt;
    const std::string_view before = take(at);
    rest_.remove_prefix(1);
    return before;
  }

  // The rest of the first line (a regex `.` stops at '\n' and '\r').
  std::string_view line() const { return rest_.substr(0, rest_.find_first_of("\n\r")); }

 private:
  std::string_view take(std::size_t n) {
    const std::string_view out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return out;
  }

  std::string_view rest_;
};

// "(...)" with no ')' inside.
bool parenthesized(Cursor& c) {
  return c.literal("(") && c.until(')');
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

// key=value pairs with integer values ("bs=117/128" reads 117); keys are whole words, found
// left to right without overlapping (as a regex iterator over `(?:^|\W)(\w+)=(\d+)` does).
Fields key_values(std::string_view text) {
  Fields out;
  std::size_t matched_to = 0;  // where the previous pair ended
  for (std::size_t key = 0; key < text.size(); ++key) {
    const bool can_start = key == 0 || (key - 1 >= matched_to && !is_word(text[key - 1]));
    if (!can_start) continue;
    std::size_t end = key;
    while (end < text.size() && is_word(text[end])) ++end;
    Cursor after(text.substr(end));
    const std::optional<std::string_view> value =
        after.literal("=") ? after.digits() : std::nullopt;
    if (end == key || !value) continue;
    out.try_emplace(std::string(text.substr(key, end - key)), integer(*value));
    matched_to = end + 1 + value->size();
    key = matched_to;  // the next key starts after a non-word character at matched_to or later
  }
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

StepAnnotation sglang_detailed(std::string_view kind, std::string_view body) {
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
StepAnnotation sglang_native(std::string_view kind, std::string_view body) {
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
  if (Cursor c(name); c.literal("execute_") && c.digits() && c.literal("_context_") && c.digits() &&
                      parenthesized(c) && c.literal("_generation_") && c.digits() &&
                      parenthesized(c))
    return vllm_detailed(name);
  if (Cursor c(name); c.literal("execute_context_") && c.digits() && parenthesized(c) &&
                      c.literal("_generation_") && c.digits() && parenthesized(c))
    return vllm_native(name);
  if (Cursor c(name); c.literal("step[")) {
    for (const char* kind : {"EXTEND", "DECODE", "MIXED"}) {
      if (!c.literal(kind)) continue;
      const std::optional<std::string_view> body = c.until(']');
      if (!body) return std::nullopt;
      if (body->find("sqsq=") != std::string_view::npos) return sglang_detailed(kind, *body);
      return sglang_native(kind, *body);
    }
  }
  for (const bool prefill : {true, false}) {
    Cursor c(name);
    if (!c.literal(prefill ? "prefill[" : "decode[")) continue;
    const std::string_view line = c.line();
    const std::size_t close = line.rfind(']');  // the last one, as a greedy `\[(.*)\]` takes
    if (close != std::string_view::npos) return atom(prefill, line.substr(0, close));
  }
  StepAnnotation a;
  if (Cursor c(name); c.literal("execute_diffusion_")) {
    const std::optional<std::string_view> batch = c.digits();
    if (batch && c.literal("_") && c.digits() && c.literal("x") && c.digits()) {
      a.format = AnnotationFormat::kDiffusionNative;
      a.batch_size = integer(*batch);
      return a;
    }
  }
  if (Cursor c(name); c.literal("capture_")) {
    const std::optional<std::string_view> batch = c.digits();
    if (batch && c.literal("_")) {
      a.format = AnnotationFormat::kCapture;
      a.batch_size = integer(*batch);
      a.mode = std::string(c.line());
      return a;
    }
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
