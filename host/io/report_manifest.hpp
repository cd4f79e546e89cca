// The manifest of a report folder: every file the run wrote, with its size and CRC-32, so that
// `validate-report` can tell a folder written whole by one run from one whose files come from
// different runs, are truncated, or were added later (issue 19).
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace traceprism::io {

inline constexpr const char* kReportManifestFile = "report_manifest.json";

// Lists every regular file under `dir` (relative paths with '/', sorted) in
// dir/report_manifest.json. Throws std::runtime_error (one sentence) when a file cannot be read.
void write_report_manifest(const std::filesystem::path& dir);

// The relative paths dir's manifest lists; nullopt when it has none or it cannot be parsed.
std::optional<std::set<std::string>> report_manifest_paths(const std::filesystem::path& dir);

struct ManifestProblem {
  std::string file;  // relative to the folder
  std::string message;
};

// What differs between dir's manifest and its files: a missing or unreadable manifest, a listed
// file that is absent or whose size or CRC-32 differs, a file the manifest does not list.
std::vector<ManifestProblem> check_report_manifest(const std::filesystem::path& dir);

}  // namespace traceprism::io
