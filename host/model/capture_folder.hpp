// The capture folder of a graph-replay serving trace (inference-mode spec §1.2-§1.3, §3.3): the
// profiler traces recorded while the engine captured its CUDA/HIP graphs, each classified by the
// batch size and mode (FULL / PIECEWISE) it captured, and the choice of the capture a replayed
// step's graphs came from. The folder is never written to (spec §1.3 QUIRK: the reference writes
// execution_details.json into it); an execution_details.json already there is honoured.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/event_index.hpp"

namespace traceprism::model {

struct CaptureTrace {
  std::string file;                        // base name inside the folder
  std::optional<std::int64_t> batch_size;  // null: unknown
  std::string mode;                        // "FULL", "PIECEWISE", or what an annotation says
};

// Spec §1.3 on one capture trace: its capture_<bs>_<mode> annotations when there are as many
// as vLLM _dummy_run frames; else FULL unless it begins more than one stream capture
// (PIECEWISE), and the batch the most frequent leading dimension of the cpu_ops' shapes.
CaptureTrace classify_capture_trace(const index::EventIndex& capture, std::string file);

// The trace files of a capture folder: names ending .json or .json.gz, sorted, without
// execution_details.json. Throws io::InputError with one sentence when `dir` is no folder.
std::vector<std::filesystem::path> capture_trace_files(const std::filesystem::path& dir);

// execution_details.json's text as the reference writes it: a JSON list of
// {"file", "batch_size", "mode"}, 2-space indent, no trailing newline.
std::string execution_details_json(const std::vector<CaptureTrace>& traces);

// Reads that text back; throws io::InputError naming `origin` when it is not such a list.
std::vector<CaptureTrace> parse_execution_details(std::string_view text, const std::string& origin);

// Spec §3.3: the capture a step of `batch` tokens with `graph_roots` graph launches replays:
// among entries of mode FULL or PIECEWISE with a batch size, the smallest batch >= `batch`;
// when that batch has both modes, PIECEWISE unless the step has exactly one graph launch; the
// last entry of a duplicate (batch, mode) wins. nullopt when none fits. (QUIRK kept: the choice
// does not look at whether the file exists.)
std::optional<CaptureTrace> choose_capture(const std::vector<CaptureTrace>& entries,
                                           std::int64_t batch, std::size_t graph_roots);

}  // namespace traceprism::model
