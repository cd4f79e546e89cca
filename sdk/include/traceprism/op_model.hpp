// traceprism SDK: writing op models (phase 1) — the FLOPs/bytes model of one op call, read from
// the call's shape args the way the reference (TraceLens PerfModel) reads them.
//
// An op model is a plain function `void model(const OpCall& call, OpModelResult& out)`: set
// the category fields first (they count even when the rest fails), then the params, FLOPs,
// bytes and compute spec. Throw NotModelled where the reference raises NotImplementedError
// (the call is treated as having no model); any other exception (a missing arg, a bad shape)
// marks the call "failed": it keeps its category and is timed, but has no FLOPs. This example
// is compiled and run by tests/op_models/sdk_example_test.cpp:
//
//   void mm(const OpCall& c, OpModelResult& r) {
//     r.category = "GEMM";
//     const auto a = c.shape(0), b = c.shape(1);
//     const std::int64_t M = a.at(0), K = a.at(1), N = b.at(1);
//     r.param("M", M);
//     r.param("N", N);
//     r.param("K", K);
//     r.compute_spec = c.type(0) == "c10::BFloat16" ? "matrix_bf16" : "";
//     r.flops = 2.0 * M * N * K;
//   }
//   const char* const kMmNames[] = {"aten::mm", nullptr};
//   TRACEPRISM_OP_MODELS(traceprism::op_model<&mm>("gemm-mm", "aten::mm: 2MNK FLOPs", kMmNames));
//
// Header-only C++17; OpCall can be built from strings, so models are unit-tested without a host.
#pragma once

#include <traceprism/abi.h>
#include <traceprism/python_text.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace traceprism {

// The reference raises NotImplementedError: this call has no model (not an error).
class NotModelled : public std::runtime_error {
 public:
  explicit NotModelled(const std::string& why = "not modelled") : std::runtime_error(why) {}
};

// A required arg is absent or has the wrong form (the reference's KeyError/IndexError/...).
class BadArgs : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace py {

inline std::string repr(std::int64_t v) {
  return std::to_string(v);
}
inline std::string repr(bool v) {
  return v ? "True" : "False";
}
inline std::string repr(double v) {
  return float_repr(v);
}
inline const char* none() {
  return "None";
}

// A tuple of already-rendered items: "(1, 2)", "(1,)", "()".
inline std::string tuple(const std::vector<std::string>& items) {
  std::string out = "(";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  if (items.size() == 1) out += ",";
  return out + ")";
}
inline std::string tuple(const std::vector<std::int64_t>& ints) {
  std::vector<std::string> items;
  for (auto v : ints) items.push_back(repr(v));
  return tuple(items);
}
// A list of already-rendered items: "[1, 2]".
inline std::string list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  return out + "]";
}

}  // namespace py

// ---- dtypes (perf-model spec §3) ---------------------------------------------------------------

inline std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Bytes per element of a Kineto dtype string, or nullopt for dtypes the reference does not
// size (bool, complex, "", ScalarList...). "Scalar" is 4 bytes.
inline std::optional<double> bytes_per_element(std::string_view dtype) {
  const std::string d = lower_ascii(dtype);
  if (d == "double" || d == "long int") return 8.0;
  if (d == "float" || d == "scalar" || d == "int") return 4.0;
  if (d == "c10::half" || d == "c10::bfloat16") return 2.0;
  if (d == "c10::float8_e4m3fnuz" || d == "c10::float8_e4m3fn" || d == "c10::float8_e5m2" ||
      d == "c10::float8_e8m0fnu" || d == "unsigned char" || d == "signed char" || d == "fp8" ||
      d == "c10::float4_e2m1fn_x2" || d == "fp4")
    return 1.0;
  return std::nullopt;
}

// Compute precision of a dtype ("bf16", "fp32", ...), or "" where the reference has none
// (e5m2, int8, int, long...).
inline std::string compute_precision(std::string_view dtype) {
  const std::string d = lower_ascii(dtype);
  if (d == "float") return "fp32";
  if (d == "double") return "fp64";
  if (d == "c10::half") return "fp16";
  if (d == "c10::bfloat16") return "bf16";
  if (d == "c10::float8_e4m3fnuz" || d == "c10::float8_e4m3fn" || d == "unsigned char" ||
      d == "fp8")
    return "fp8";
  if (d == "fp4" || d == "mxfp4" || d == "c10::float4_e2m1fn_x2") return "fp4";
  return "";
}

// "matrix_bf16", or "" when either part is unknown.
inline std::string compute_spec(std::string_view maf, std::string_view precision) {
  if (maf.empty() || precision.empty()) return "";
  return std::string(maf) + "_" + std::string(precision);
}

// ---- one op call's args ---------------------------------------------------------------------

// A value of `Input Dims` / `Input Strides`: an int, or a list of values (a tensor's shape, a
// tensor list, or [] for a non-tensor argument).
struct ArgValue {
  bool is_int = false;
  std::int64_t value = 0;
  std::vector<ArgValue> items;

  // The list as ints (a tensor's shape); BadArgs when it holds lists.
  std::vector<std::int64_t> ints() const {
    if (is_int) throw BadArgs("expected a shape, got an int");
    std::vector<std::int64_t> out;
    for (const auto& item : items) {
      if (!item.is_int) throw BadArgs("expected a shape, got a list of shapes");
      out.push_back(item.value);
    }
    return out;
  }
  bool empty() const { return !is_int && items.empty(); }
  std::size_t size() const { return items.size(); }
  const ArgValue& operator[](std::size_t i) const {
    if (is_int || i >= items.size()) throw BadArgs("index out of range");
    return items[i];
  }
};

namespace detail {

inline void skip_space(std::string_view s, std::size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i;
}

inline ArgValue parse_arg_value(std::string_view s, std::size_t& i) {
  skip_space(s, i);
  ArgValue v;
  if (i < s.size() && s[i] == '[') {
    ++i;
    skip_space(s, i);
    if (i < s.size() && s[i] == ']') {
      ++i;
      return v;
    }
    while (true) {
      v.items.push_back(parse_arg_value(s, i));
      skip_space(s, i);
      if (i < s.size() && s[i] == ',') {
        ++i;
        continue;
      }
      if (i < s.size() && s[i] == ']') {
        ++i;
        return v;
      }
      throw BadArgs("malformed shape list");
    }
  }
  if (i < s.size() && s.compare(i, 4, "null") == 0) {  // JSON null: treat as an empty arg
    i += 4;
    return v;
  }
  std::size_t end = i;
  if (end < s.size() && s[end] == '-') ++end;
  while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
  if (end == i) throw BadArgs("malformed shape list");
  v.is_int = true;
  std::from_chars(s.data() + i, s.data() + end, v.value);
  i = end;
  return v;
}

inline std::vector<std::string> parse_string_list(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  skip_space(s, i);
  if (i >= s.size() || s[i] != '[') throw BadArgs("expected a list of strings");
  ++i;
  while (true) {
    skip_space(s, i);
    if (i < s.size() && s[i] == ']') break;
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    if (i < s.size() && s.compare(i, 4, "null") == 0) {
      out.emplace_back();
      i += 4;
      continue;
    }
    if (i >= s.size() || s[i] != '"') throw BadArgs("expected a list of strings");
    ++i;
    std::string item;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\' && i + 1 < s.size()) {
        ++i;
        switch (s[i]) {
          case 'n':
            item += '\n';
            break;
          case 't':
            item += '\t';
            break;
          case 'u': {  // \u00XX only (canonical text keeps other characters as UTF-8)
            unsigned code = 0;
            std::from_chars(s.data() + i + 1, s.data() + std::min(s.size(), i + 5), code, 16);
            item += static_cast<char>(code);
            i += 4;
            break;
          }
          default:
            item += s[i];
        }
        ++i;
        continue;
      }
      item += s[i++];
    }
    ++i;
    out.push_back(std::move(item));
  }
  return out;
}

// The JSON text of `key`'s value in a flat JSON object whose values are numbers, booleans or
// strings without escaped quotes (what the host writes for pseudo ops); nullopt when absent.
inline std::optional<std::string> flat_json_value(std::string_view object, std::string_view key) {
  const std::string quoted = "\"" + std::string(key) + "\":";
  const std::size_t at = object.find(quoted);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t begin = at + quoted.size(), end = begin;
  if (end < object.size() && object[end] == '"') {
    end = object.find('"', end + 1);
    if (end == std::string_view::npos) return std::nullopt;
    ++end;
  } else {
    while (end < object.size() && object[end] != ',' && object[end] != '}') ++end;
  }
  return std::string(object.substr(begin, end - begin));
}

}  // namespace detail

// The shape args of one op call (perf-model spec §2), indexed like the reference: D = Input
// Dims, T = Input type, S = Input Strides, C = Concrete Inputs. Accessors throw BadArgs where
// Python would raise (missing key, index out of range), so a model reads like the reference.
class OpCall {
 public:
  OpCall() = default;
  // Absent fields: pass std::nullopt. Texts are the canonical JSON of the trace's args.
  OpCall(std::string name, std::optional<std::string_view> dims,
         std::optional<std::string_view> types, std::optional<std::string_view> strides,
         std::optional<std::string_view> concrete, std::vector<std::string> kernel_names = {},
         std::int64_t sequence_number = INT64_MIN)
      : name_(std::move(name)),
        kernel_names_(std::move(kernel_names)),
        sequence_number_(sequence_number) {
    if (dims) dims_ = parse_list(*dims);
    if (strides) strides_ = parse_list(*strides);
    if (types) types_ = detail::parse_string_list(*types);
    if (concrete) concrete_ = detail::parse_string_list(*concrete);
  }

  const std::string& name() const { return name_; }
  bool has_dims() const { return dims_.has_value(); }
  bool has_types() const { return types_.has_value(); }
  bool has_strides() const { return strides_.has_value(); }
  bool has_concrete() const { return concrete_.has_value(); }

  // Number of positional arguments (len(Input Dims)); BadArgs when Input Dims is absent.
  std::size_t arg_count() const { return need(dims_, "Input Dims").size(); }
  // D[i]: the argument's dims value.
  const ArgValue& dims(std::size_t i) const { return need(dims_, "Input Dims")[i]; }
  // D[i] as a tensor shape (list of ints; [] for scalars and absent optionals).
  std::vector<std::int64_t> shape(std::size_t i) const { return dims(i).ints(); }
  // S[i].
  const ArgValue& strides(std::size_t i) const { return need(strides_, "Input Strides")[i]; }
  std::size_t type_count() const { return need(types_, "Input type").size(); }
  // T[i]: dtype string, "Scalar", "ScalarList" or "".
  const std::string& type(std::size_t i) const { return at(need(types_, "Input type"), i); }
  std::size_t concrete_count() const { return need(concrete_, "Concrete Inputs").size(); }
  // C[i]: the scalar printed as text ("1", "0.", "True", "[16, 16]") or "".
  const std::string& concrete(std::size_t i) const {
    return at(need(concrete_, "Concrete Inputs"), i);
  }
  // Names of the GPU events below the op, by start time.
  const std::vector<std::string>& kernel_names() const { return kernel_names_; }
  std::int64_t sequence_number() const { return sequence_number_; }

  // The token sums of the serving step an inference attention op ran in (inference-mode spec
  // §2.3; host ABI 1.9): context (c_*) and generation (g_*) requests' query tokens, key tokens,
  // squared query tokens and query x key tokens. nullopt when the op is bound to none.
  struct StepStats {
    std::int64_t c_sq = 0, c_sk = 0, c_sqsq = 0, c_sqsk = 0;
    std::int64_t g_sq = 0, g_sk = 0, g_sqsq = 0, g_sqsk = 0;
  };
  const std::optional<StepStats>& step_stats() const { return step_stats_; }
  void set_step_stats(const std::optional<StepStats>& stats) { step_stats_ = stats; }

  // A pseudo op's own args (host ABI 1.11; inference-mode spec §4.2), as the host's compact
  // JSON object. pseudo_op_arg("MoE topk") is the value's JSON text ("4", "true", "\"up\"");
  // nullopt when the op is no pseudo op or lacks the key.
  void set_pseudo_op_args(std::string_view json) { pseudo_op_args_ = std::string(json); }
  std::optional<std::string> pseudo_op_arg(std::string_view key) const {
    return detail::flat_json_value(pseudo_op_args_, key);
  }

 private:
  static ArgValue parse_list(std::string_view text) {
    std::size_t i = 0;
    ArgValue v = detail::parse_arg_value(text, i);
    if (v.is_int) throw BadArgs("Input Dims is not a list");
    return v;
  }
  template <class T>
  static const T& need(const std::optional<T>& field, const char* key) {
    if (!field) throw BadArgs(std::string("the op has no '") + key + "' arg");
    return *field;
  }
  static const std::string& at(const std::vector<std::string>& v, std::size_t i) {
    if (i >= v.size()) throw BadArgs("index out of range");
    return v[i];
  }

  std::string name_;
  std::optional<ArgValue> dims_, strides_;
  std::optional<std::vector<std::string>> types_, concrete_;
  std::vector<std::string> kernel_names_;
  std::int64_t sequence_number_ = INT64_MIN;
  std::optional<StepStats> step_stats_;
  std::string pseudo_op_args_;
};

// ---- Concrete Inputs text (Python literals) ---------------------------------------------------

// prod(shape) in 64-bit integers (1 for a scalar's empty shape).
namespace py {

// repr() of an Input Dims / Strides value kept as the trace's list: "[1, 2]", "[[1], [2]]".
inline std::string list_repr(const ArgValue& value) {
  if (value.is_int) return repr(value.value);
  std::vector<std::string> items;
  for (const auto& item : value.items) items.push_back(list_repr(item));
  return list(items);
}

// repr(tuple(value)): the reference stores shapes and strides as tuples of the trace's lists.
inline std::string tuple_repr(const ArgValue& value) {
  if (value.is_int) throw BadArgs("tuple() of an int");  // Python's TypeError
  std::vector<std::string> items;
  for (const auto& item : value.items) items.push_back(list_repr(item));
  return tuple(items);
}

// repr(tuple(Input Strides[i])), or None where the reference catches the KeyError/IndexError.
inline std::string stride_or_none(const OpCall& call, std::size_t i) {
  if (!call.has_strides()) return none();
  const ArgValue* strides = nullptr;
  try {
    strides = &call.strides(i);
  } catch (const BadArgs&) {
    return none();
  }
  return tuple_repr(*strides);
}

}  // namespace py

// a * b and a + b; BadArgs where Python's exact integers would leave 64 bits (such dims are
// not a real tensor's, and the C++ result would be undefined).
inline std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) throw BadArgs("a size overflows a 64-bit integer");
  return out;
}
inline std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) throw BadArgs("a size overflows a 64-bit integer");
  return out;
}

inline std::int64_t numel(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n = checked_mul(n, d);
  return n;
}

// Python int(text); BadArgs when it is not an integer literal.
inline std::int64_t parse_int(std::string_view text) {
  std::int64_t v = 0;
  auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  if (res.ec != std::errc() || res.ptr != text.data() + text.size())
    throw BadArgs("expected an integer, got '" + std::string(text) + "'");
  return v;
}

// Python float(text) ("0.", "9.9999999999999998e-13", "1").
inline double parse_float(std::string_view text) {
  std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) throw BadArgs("expected a number, got '" + s + "'");
  return v;
}

// "[16, 16]" or "16" as a list of ints.
inline std::vector<std::int64_t> parse_int_list(std::string_view text) {
  std::size_t i = 0;
  ArgValue v = detail::parse_arg_value(text, i);
  if (v.is_int) return {v.value};
  return v.ints();
}

// "[True, False, True]" as bools.
inline std::vector<bool> parse_bool_list(std::string_view text) {
  std::vector<bool> out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 4, "True") == 0) {
      out.push_back(true);
      i += 4;
    } else if (text.compare(i, 5, "False") == 0) {
      out.push_back(false);
      i += 5;
    } else {
      ++i;
    }
  }
  return out;
}

// ---- what a model returns -------------------------------------------------------------------

enum class OpStatus : std::int32_t { kOk = 0, kFailed = 1, kNotModelled = 2 };

struct OpParam {
  std::string key;
  std::string repr;  // Python repr() of the value: "141", "True", "(512, 1)", "'conv2d'", "None"
  double value;      // the number, NaN when the value is not one
};

struct OpModelResult {
  std::string category;      // forward category: "GEMM", "SDPA_fwd", "NORM_fwd", "elementwise"
  std::string bwd_category;  // category of the autograd-linked backward; empty: no bwd model
  std::string sheet;         // perf-report sheet family; empty: category without _fwd/_bwd
  bool has_model = true;     // false: category only (timing, no FLOPs)
  std::string compute_spec;  // "matrix_bf16"; "" when the precision or engine is unknown
  double flops = -1;
  double bytes = -1;  // -1: unknown (the reference's None)
  std::vector<OpParam> params;
  OpStatus bwd_status = OpStatus::kNotModelled;
  double flops_bwd = -1;
  double bytes_bwd = -1;

  void param(std::string key, std::int64_t v) {
    params.push_back({std::move(key), py::repr(v), static_cast<double>(v)});
  }
  void param(std::string key, int v) { param(std::move(key), static_cast<std::int64_t>(v)); }
  void param(std::string key, bool v) {
    params.push_back({std::move(key), py::repr(v), v ? 1.0 : 0.0});
  }
  void param(std::string key, double v) { params.push_back({std::move(key), py::repr(v), v}); }
  void param_str(std::string key, std::string_view text) {
    params.push_back({std::move(key), py::str_repr(text), std::nan("")});
  }
  // Any other value, already rendered with py:: (tuples, None).
  void param_repr(std::string key, std::string repr) {
    params.push_back({std::move(key), std::move(repr), std::nan("")});
  }
  // Runs the backward computation; its exceptions set bwd_status instead of propagating.
  template <class F>
  void backward(F&& compute) {
    try {
      compute();
      bwd_status = OpStatus::kOk;
    } catch (const NotModelled&) {
      bwd_status = OpStatus::kNotModelled;
    } catch (...) {
      bwd_status = OpStatus::kFailed;
    }
  }
};

// Runs a model function and turns its exceptions into an OpStatus (and `error` text).
template <class F>
OpStatus run_op_model_guarded(F&& model, const OpCall& call, OpModelResult& result,
                              std::string* error = nullptr) {
  try {
    model(call, result);
    return OpStatus::kOk;
  } catch (const NotModelled&) {
    return OpStatus::kNotModelled;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return OpStatus::kFailed;
  } catch (...) {
    if (error) *error = "unknown exception";
    return OpStatus::kFailed;
  }
}

}  // namespace traceprism
