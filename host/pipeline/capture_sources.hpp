// Inference mode's capture folder as the merge reads it (inference-mode spec §1.2-§1.3): the
// entries of its execution_details.json, or of each trace classified when it has none (the
// folder is never written to), and the traces the merge chooses, each read once.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ingest/trace_reader.hpp"
#include "model/call_tree.hpp"
#include "model/capture_folder.hpp"
#include "model/capture_merge.hpp"

namespace traceprism::pipeline {

class CaptureSources {
 public:
  // Lists and classifies the folder. Throws io::InputError with one sentence when it is no
  // folder or holds no capture trace.
  CaptureSources(std::filesystem::path dir, bool quiet);

  const std::vector<model::CaptureTrace>& entries() const { return entries_; }
  // The capture trace of an entry, read on first use; nullptr when it cannot be read (the
  // reason is in notes()).
  const model::CaptureSource* load(const model::CaptureTrace& entry);
  // One sentence per capture trace that could not be read.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  struct Loaded {
    ingest::TraceFile file;
    model::CaptureSource source;
  };
  std::vector<model::CaptureTrace> classify(const std::vector<std::filesystem::path>& files);

  std::filesystem::path dir_;
  bool quiet_;
  std::vector<model::CaptureTrace> entries_;
  std::map<std::string, std::unique_ptr<Loaded>> loaded_;  // by file name; null: unreadable
  std::vector<std::string> notes_;
};

}  // namespace traceprism::pipeline
