#include "io/folder_replacement.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "io/output_file.hpp"
#include "io/report_manifest.hpp"
#include "io/run_inputs.hpp"

namespace traceprism::io {

namespace fs = std::filesystem;

namespace {

std::runtime_error folder_error(const fs::path& target, const std::string& what) {
  return std::runtime_error(target.string() + ": cannot write the report: " + what + ".");
}

fs::path normalized_target(const fs::path& path) {
  fs::path target = fs::absolute(path).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();
  const std::string name = target.filename().string();
  if (name.empty() || name == "." || name == ".." || target == target.root_path())
    throw folder_error(path, "name the folder to write the report into");
  return target;
}

// A POSIX record lock on a file beside the target. A run that finds it held refuses at once
// rather than wait behind a run that may take minutes. Not flock: a flock is shared with every
// forked child, so the isolated analyzers of a run killed by SIGKILL held it until they ended
// (seen under AddressSanitizer, where they outlived their parent); a record lock belongs to
// the process alone and goes with it.
bool try_lock_whole_file(int fd) {
  struct flock whole {};
  whole.l_type = F_WRLCK;
  whole.l_whence = SEEK_SET;
  return ::fcntl(fd, F_SETLK, &whole) == 0;
}

int acquire_lock(const fs::path& lock_path, const fs::path& target) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      throw folder_error(target,
                         "cannot create " + lock_path.string() + ": " + std::strerror(errno));
    if (!try_lock_whole_file(fd)) {
      const int error = errno;
      ::close(fd);
      if (error == EACCES || error == EAGAIN)
        throw std::runtime_error(
            target.string() + ": another traceprism run is writing this folder (it holds " +
            lock_path.string() + "); wait for it to finish or choose another output folder.");
      throw folder_error(target, "cannot lock " + lock_path.string() + ": " + std::strerror(error));
    }
    // The holder before us removes the file as it finishes: ours must still be the named one.
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) == 0 && ::stat(lock_path.c_str(), &named) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino)
      return fd;
    ::close(fd);
  }
  throw folder_error(target, "cannot lock " + lock_path.string() + ": it keeps being replaced");
}

// Staging and previous-report folders of runs killed by SIGKILL; only the lock holder writes
// them, so once it is held they are stale.
void remove_stale_temporaries(const fs::path& parent, const std::string& name) {
  std::error_code ec;
  const std::string staging_prefix = "." + name + ".tmp.", old_prefix = "." + name + ".old.";
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string entry_name = entry.path().filename().string();
    if (entry_name.starts_with(staging_prefix) || entry_name.starts_with(old_prefix))
      fs::remove_all(entry.path(), ec);
  }
}

// "GEMM.csv.tmp.1234": what OutputFile left when an earlier version's run was killed.
bool is_leftover_temporary(const std::string& rel, const KnownReportFile& known) {
  const auto at = rel.rfind(".tmp.");
  if (at == std::string::npos || at + 5 == rel.size()) return false;
  for (std::size_t i = at + 5; i < rel.size(); ++i)
    if (rel[i] < '0' || rel[i] > '9') return false;
  return known(rel.substr(0, at));
}

void sync_folder(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Test hook: the kill tests stop a run while its staging folder is complete but not yet in
// place, a moment too short to hit by timing alone.
void pause_for_tests() {
  if (const char* ms = std::getenv("TRACEPRISM_TEST_PAUSE_BEFORE_SWAP_MS"))
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(ms)));
}

}  // namespace

FolderReplacement::FolderReplacement(const fs::path& target, KnownReportFile known)
    : target_(normalized_target(target)), known_(std::move(known)) {
  const fs::path parent = target_.parent_path();
  const std::string name = target_.filename().string();
  create_output_folder(parent);
  lock_path_ = parent / ("." + name + ".lock");
  lock_fd_ = acquire_lock(lock_path_, target_);
  lock_cleanup_ = SignalCleanup(lock_path_.string(), false);
  try {
    remove_stale_temporaries(parent, name);
    check_replaceable();
    staging_ = parent / ("." + name + ".tmp." + std::to_string(::getpid()));
    if (::mkdir(staging_.c_str(), 0755) != 0)
      throw folder_error(target_,
                         "cannot create " + staging_.string() + ": " + std::strerror(errno));
    staging_cleanup_ = SignalCleanup(staging_.string(), true);
  } catch (...) {
    lock_cleanup_.release();
    ::unlink(lock_path_.c_str());
    ::close(lock_fd_);
    throw;
  }
}

FolderReplacement::~FolderReplacement() {
  std::error_code ec;
  if (!committed_ && !staging_.empty()) fs::remove_all(staging_, ec);
  staging_cleanup_.release();
  lock_cleanup_.release();
  ::unlink(lock_path_.c_str());
  ::close(lock_fd_);
}

void FolderReplacement::check_replaceable() const {
  struct stat st {};
  if (::lstat(target_.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw folder_error(target_, std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode))
    throw folder_error(target_, "it exists and is not a folder; a report replaces only a folder");
  const auto listed = report_manifest_paths(target_);
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(target_, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_directory() && !it->is_symlink()) continue;
    const std::string rel = it->path().lexically_relative(target_).generic_string();
    if (rel == kReportManifestFile || (listed && listed->contains(rel)) || known_(rel) ||
        is_leftover_temporary(rel, known_))
      continue;
    throw folder_error(target_, "it holds " + rel +
                                    ", which no traceprism report writes, and a run replaces "
                                    "its whole output folder; choose a new or empty folder");
  }
  if (ec) throw folder_error(target_, ec.message());
}

void FolderReplacement::commit() {
  write_report_manifest(staging_);
  sync_folder(staging_);
  pause_for_tests();
  check_replaceable();
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(target_, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file() && is_run_input(it->path().string()))
      throw folder_error(target_, "it holds " + it->path().string() +
                                      ", which this run reads; choose another output folder");
  }
  swap_into_place();
  committed_ = true;
}

void FolderReplacement::swap_into_place() {
  const fs::path parent = target_.parent_path();
  struct stat st {};
  if (::lstat(target_.c_str(), &st) != 0) {
    if (::rename(staging_.c_str(), target_.c_str()) != 0)
      throw folder_error(target_, std::strerror(errno));
  } else if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) ==
             0) {
    // The staging path now holds the previous report.
  } else if (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP) {
    // A file system without atomic exchange: the target is missing for two renames' time.
    const fs::path old =
        parent / ("." + target_.filename().string() + ".old." + std::to_string(::getpid()));
    if (::rename(target_.c_str(), old.c_str()) != 0)
      throw folder_error(target_, std::strerror(errno));
    if (::rename(staging_.c_str(), target_.c_str()) != 0) {
      const int error = errno;
      ::rename(old.c_str(), target_.c_str());
      throw folder_error(target_, std::strerror(error));
    }
    std::error_code ec;
    fs::remove_all(old, ec);
  } else {
    throw folder_error(target_, std::strerror(errno));
  }
  sync_folder(parent);
  std::error_code ec;
  fs::remove_all(staging_, ec);
  staging_cleanup_.release();
}

}  // namespace traceprism::io
