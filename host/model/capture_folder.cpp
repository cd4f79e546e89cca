#include "model/capture_folder.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <cstdio>
#include <map>
#include <regex>
#include <system_error>

#include "io/input_error.hpp"

namespace traceprism::model {

namespace fs = std::filesystem;

namespace {

bool starts_with_pattern(std::string_view text, const std::regex& pattern, std::cmatch* m) {
  return std::regex_search(text.data(), text.data() + text.size(), *m, pattern,
                           std::regex_constants::match_continuous);
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
  static const std::regex kDummyRun(R"(vllm/v1/worker/gpu_model_runner\.py\(\d+\): _dummy_run)");
  static const std::regex kCapture(R"(capture_(\d+)_(.*))");
  std::size_t dummy_runs = 0, begin_captures = 0;
  std::vector<std::pair<std::int64_t, std::cmatch>> annotations;  // (ts, match)
  std::vector<std::int64_t> dims;
  std::cmatch m;
  for (index::Row row = 0; row < capture.size(); ++row) {
    if (!capture.valid(row)) continue;
    const std::string_view name = capture.name(row);
    const index::EventKind kind = capture.kind(row);
    if (name.starts_with("vllm/") && starts_with_pattern(name, kDummyRun, &m)) ++dummy_runs;
    if (kind == index::EventKind::kUserAnnotation && name.starts_with("capture_") &&
        starts_with_pattern(name, kCapture, &m))
      annotations.emplace_back(capture.ts_ns(row), m);
    if (kind == index::EventKind::kCudaRuntime &&
        name.find("StreamBeginCapture") != std::string_view::npos)
      ++begin_captures;
    if (kind == index::EventKind::kCpuOp)
      if (const index::InputShapes* shapes = capture.input_shapes(row)) leading_dims(*shapes, dims);
  }
  std::stable_sort(annotations.begin(), annotations.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  CaptureTrace out{std::move(file), std::nullopt, {}};
  if (!annotations.empty() && annotations.size() == dummy_runs) {
    const std::cmatch& first = annotations.front().second;
    std::int64_t batch = 0;
    const std::string digits = first[1].str();
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), batch);
    if (ec == std::errc() && end == digits.data() + digits.size()) out.batch_size = batch;
    out.mode = first[2].str();
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
