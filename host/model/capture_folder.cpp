#include "model/capture_folder.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <cstdio>
#include <map>
#include <optional>
#include <system_error>

#include "io/input_error.hpp"

namespace traceprism::model {

namespace fs = std::filesystem;

namespace {

std::size_t leading_digits(std::string_view text) {
  const std::size_t n = text.find_first_not_of("0123456789");
  return n == std::string_view::npos ? text.size() : n;
}

// The names below are read by hand, not with std::regex: libstdc++'s matcher recurses once per
// character, and a long name overflowed the stack.

// "vllm/v1/worker/gpu_model_runner.py(<line>): _dummy_run..."
bool is_dummy_run(std::string_view name) {
  constexpr std::string_view kFrame = "vllm/v1/worker/gpu_model_runner.py(";
  if (!name.starts_with(kFrame)) return false;
  name.remove_prefix(kFrame.size());
  const std::size_t digits = leading_digits(name);
  return digits > 0 && name.substr(digits).starts_with("): _dummy_run");
}

// "capture_<batch>_<mode>": the mode runs to the end of the first line.
struct CaptureAnnotation {
  std::int64_t ts_ns = 0;
  std::string_view batch_digits;
  std::string_view mode;
};

std::optional<CaptureAnnotation> capture_annotation(std::string_view name, std::int64_t ts_ns) {
  constexpr std::string_view kPrefix = "capture_";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  const std::size_t digits = leading_digits(name);
  if (digits == 0 || !name.substr(digits).starts_with('_')) return std::nullopt;
  const std::string_view rest = name.substr(digits + 1);
  return CaptureAnnotation{ts_ns, name.substr(0, digits),
                           rest.substr(0, rest.find_first_of("\n\r"))};
}

// The leading dimension of each argument of a cpu_op's `Input Dims` that is one tensor with at
// least one dimension: [[32, 4096], [], [[3], [4]]] gives 32 (a TensorList is no such argument).
void leading_dims(const index::InputShapes& shapes, std::vector<std::int64_t>& out) {
  for (std::size_t i = 0; i < shapes.arg_count(); ++i)
    if (!shapes.arg(i).is_list && !shapes.arg_dims(i).empty())
      out.push_back(shapes.arg_dims(i).front());
}

// The most frequent value, the first seen on ties; nullopt for none.
std::optional<std::int64_t> most_frequent(const std::vector<std::int64_t>& values) {
  std::map<std::int64_t, std::size_t> counts;
  for (std::int64_t v : values) ++counts[v];
  std::optional<std::int64_t> best;
  std::size_t most = 0;
  for (std::int64_t v : values)
    if (counts[v] > most) best = v, most = counts[v];
  return best;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

CaptureTrace classify_capture_trace(const index::EventIndex& capture, std::string file) {
  std::size_t dummy_runs = 0, begin_captures = 0;
  std::vector<CaptureAnnotation> annotations;
  std::vector<std::int64_t> dims;
  for (index::Row row = 0; row < capture.size(); ++row) {
    if (!capture.valid(row)) continue;
    const std::string_view name = capture.name(row);
    const index::EventKind kind = capture.kind(row);
    if (is_dummy_run(name)) ++dummy_runs;
    if (kind == index::EventKind::kUserAnnotation)
      if (auto annotation = capture_annotation(name, capture.ts_ns(row)))
        annotations.push_back(*annotation);
    if (kind == index::EventKind::kCudaRuntime &&
        name.find("StreamBeginCapture") != std::string_view::npos)
      ++begin_captures;
    if (kind == index::EventKind::kCpuOp)
      if (const index::InputShapes* shapes = capture.input_shapes(row)) leading_dims(*shapes, dims);
  }
  std::stable_sort(annotations.begin(), annotations.end(),
                   [](const auto& a, const auto& b) { return a.ts_ns < b.ts_ns; });
  CaptureTrace out{std::move(file), std::nullopt, {}};
  if (!annotations.empty() && annotations.size() == dummy_runs) {
    const CaptureAnnotation& first = annotations.front();
    const std::string_view digits = first.batch_digits;
    std::int64_t batch = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), batch);
    if (ec == std::errc() && end == digits.data() + digits.size()) out.batch_size = batch;
    out.mode = std::string(first.mode);
    return out;
  }
  out.mode = begin_captures <= 1 ? "FULL" : "PIECEWISE";
  out.batch_size = most_frequent(dims);
  return out;
}

std::vector<fs::path> capture_trace_files(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw io::InputError(dir.string() + ": the capture folder does not exist or is no folder.");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const bool trace = name.ends_with(".json") || name.ends_with(".json.gz");
    if (trace && name != "execution_details.json" && entry.is_regular_file(ec))
      files.push_back(entry.path());
  }
  if (ec)
    throw io::InputError(dir.string() + ": cannot list the capture folder: " + ec.message() + ".");
  std::sort(files.begin(), files.end());
  return files;
}

std::string execution_details_json(const std::vector<CaptureTrace>& traces) {
  if (traces.empty()) return "[]";
  std::string out = "[";
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const CaptureTrace& t = traces[i];
    out += i ? ",\n  {\n" : "\n  {\n";
    out += "    \"file\": " + json_string(t.file) + ",\n";
    out += "    \"batch_size\": " + (t.batch_size ? std::to_string(*t.batch_size) : "null") + ",\n";
    out += "    \"mode\": " + json_string(t.mode) + "\n  }";
  }
  return out + "\n]";
}

std::vector<CaptureTrace> parse_execution_details(std::string_view text,
                                                  const std::string& origin) {
  boost::system::error_code ec;
  const boost::json::value root = boost::json::parse(text, ec);
  const auto fail = [&](const std::string& what) { throw io::InputError(origin + ": " + what); };
  if (ec) fail("not JSON (" + ec.message() + ").");
  if (!root.is_array()) fail("expected a list of {\"file\", \"batch_size\", \"mode\"}.");
  std::vector<CaptureTrace> out;
  for (const boost::json::value& v : root.as_array()) {
    const boost::json::object* o = v.if_object();
    const boost::json::value* file = o ? o->if_contains("file") : nullptr;
    if (!file || !file->is_string()) fail("every entry needs a \"file\" string.");
    CaptureTrace t{std::string(file->as_string()), std::nullopt, {}};
    if (const boost::json::value* b = o->if_contains("batch_size"); b && b->is_int64())
      t.batch_size = b->as_int64();
    if (const boost::json::value* mode = o->if_contains("mode"); mode && mode->is_string())
      t.mode = std::string(mode->as_string());
    out.push_back(std::move(t));
  }
  return out;
}

std::optional<CaptureTrace> choose_capture(const std::vector<CaptureTrace>& entries,
                                           std::int64_t batch, std::size_t graph_roots) {
  std::map<std::pair<std::int64_t, std::string>, const CaptureTrace*> by_key;  // last wins
  for (const CaptureTrace& e : entries)
    if (e.batch_size && (e.mode == "FULL" || e.mode == "PIECEWISE"))
      by_key[{*e.batch_size, e.mode}] = &e;
  const auto chosen = std::find_if(by_key.begin(), by_key.end(),
                                   [&](const auto& kv) { return kv.first.first >= batch; });
  if (chosen == by_key.end()) return std::nullopt;
  const std::int64_t size = chosen->first.first;
  const auto full = by_key.find({size, "FULL"}), piecewise = by_key.find({size, "PIECEWISE"});
  if (full != by_key.end() && piecewise != by_key.end())
    return *(graph_roots != 1 ? piecewise : full)->second;
  return *(full != by_key.end() ? full : piecewise)->second;
}

}  // namespace traceprism::model
