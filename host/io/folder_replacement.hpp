// Replaces a whole output folder at once (issue 19). The new report is written into a hidden
// staging folder beside the target, `.NAME.tmp.<pid>`, which takes the target's place by one
// rename once complete: a reader, a crash or a full disk sees the previous complete report or
// the new one, never a mix. A lock file, `.NAME.lock`, refuses a second run into the folder.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "io/signal_cleanup.hpp"

namespace traceprism::io {

// Whether a file of a folder without a manifest (a report of an earlier version) is one a
// report writes, by its path relative to the folder ("analysis.md", "perf_report_csvs/GEMM.csv").
// A folder holding any other file is never replaced: it may hold a user's files.
using KnownReportFile = std::function<bool(const std::string& relative_path)>;

class FolderReplacement {
 public:
  // Takes the lock, removes what killed runs left beside the target, checks that the target is
  // absent, empty or a report (its manifest lists its files, or `known` accepts them all) and
  // creates the staging folder. Throws std::runtime_error with one sentence when it cannot.
  FolderReplacement(const std::filesystem::path& target, KnownReportFile known);
  // Uncommitted: removes the staging folder. Always releases the lock.
  ~FolderReplacement();
  FolderReplacement(const FolderReplacement&) = delete;
  FolderReplacement& operator=(const FolderReplacement&) = delete;

  const std::filesystem::path& target() const { return target_; }
  // Where the report is written.
  const std::filesystem::path& staging() const { return staging_; }

  // Writes the manifest of the staging folder and puts it in the target's place; the previous
  // report is then removed. Refuses when the target holds a file this run reads.
  void commit();

 private:
  void check_replaceable() const;
  void swap_into_place();

  std::filesystem::path target_;
  KnownReportFile known_;
  std::filesystem::path lock_path_;
  std::filesystem::path staging_;
  int lock_fd_ = -1;
  bool committed_ = false;
  SignalCleanup lock_cleanup_;
  SignalCleanup staging_cleanup_;
};

}  // namespace traceprism::io
