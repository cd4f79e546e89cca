#include "pipeline/capture_sources.hpp"

#include <cstdio>

#include "io/input_error.hpp"
#include "io/small_file.hpp"

namespace traceprism::pipeline {

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  io::SmallFile file = io::read_small_file(path.string());
  if (file.status == io::SmallFile::Status::kCannotOpen)
    throw io::InputError(path.string() + ": cannot be opened.");
  if (file.status == io::SmallFile::Status::kTooLarge)
    throw io::InputError(io::too_large_sentence(path.string(), "a capture folder's JSON file"));
  return std::move(file.text);
}

}  // namespace

CaptureSources::CaptureSources(fs::path dir, bool quiet) : dir_(std::move(dir)), quiet_(quiet) {
  const std::vector<fs::path> files = model::capture_trace_files(dir_);
  if (files.empty()) {
    throw io::InputError(dir_.string() +
                         ": the capture folder holds no capture trace (*.json or *.json.gz).");
  }
  const fs::path details = dir_ / "execution_details.json";
  std::error_code ec;
  entries_ = fs::exists(details, ec)
                 ? model::parse_execution_details(read_text(details), details.string())
                 : classify(files);
}

std::vector<model::CaptureTrace> CaptureSources::classify(const std::vector<fs::path>& files) {
  std::vector<model::CaptureTrace> entries;
  for (const fs::path& file : files) {
    if (!quiet_) std::fprintf(stderr, "classifying capture %s\n", file.string().c_str());
    try {
      const ingest::TraceFile trace = ingest::read_trace(file.string());
      entries.push_back(model::classify_capture_trace(trace.index, file.filename().string()));
    } catch (const io::InputError& e) {
      notes_.push_back(std::string("Capture trace skipped: ") + e.what());
    }
  }
  return entries;
}

const model::CaptureSource* CaptureSources::load(const model::CaptureTrace& entry) {
  auto [it, inserted] = loaded_.try_emplace(entry.file);
  if (!inserted) return it->second ? &it->second->source : nullptr;
  const fs::path path = dir_ / entry.file;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    notes_.push_back("Capture trace " + path.string() +
                     " is listed in execution_details.json but does not exist.");
    return nullptr;
  }
  try {
    if (!quiet_) std::fprintf(stderr, "reading capture %s\n", path.string().c_str());
    auto loaded = std::make_unique<Loaded>();
    loaded->file = ingest::read_trace(path.string());
    model::CallTreeOptions options;
    options.include_python = true;  // capture windows are found among python frames too
    const auto tree = model::CallTree::build(loaded->file.index, options);
    loaded->source.index = &loaded->file.index;
    loaded->source.windows = model::capture_windows(loaded->file.index, tree);
    it->second = std::move(loaded);
    return &it->second->source;
  } catch (const io::InputError& e) {
    notes_.push_back(std::string("Capture trace skipped: ") + e.what());
    return nullptr;
  }
}

}  // namespace traceprism::pipeline
