#include "io/signal_cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace traceprism::io {

namespace {

// A fixed table, because a signal handler may neither allocate nor lock.
struct Slot {
  enum State : int { kFree, kFilling, kReady };
  std::atomic<int> state{kFree};
  pid_t owner = 0;
  bool is_folder = false;
  char path[4096] = {};
};
std::array<Slot, 64> g_slots;

bool is_dot(const char* name) {
  return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

// Removes `name` under `dir_fd` with system calls only (async-signal-safe). Report folders are
// two levels deep; `depth` bounds the walk anyway.
void remove_entry(int dir_fd, const char* name, int depth) {
  if (::unlinkat(dir_fd, name, 0) == 0 || errno == ENOENT || depth == 0) return;
  const int fd = ::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char buffer[4096];
  // Removing entries while reading a directory may skip some: read again until it is empty.
  for (int pass = 0; pass < 64; ++pass) {
    bool removed_any = false;
    ::lseek(fd, 0, SEEK_SET);
    for (ssize_t n; (n = ::getdents64(fd, buffer, sizeof buffer)) > 0;) {
      for (ssize_t offset = 0; offset < n;) {
        const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + offset);
        offset += entry->d_reclen;
        if (is_dot(entry->d_name)) continue;
        remove_entry(fd, entry->d_name, depth - 1);
        removed_any = true;
      }
    }
    if (!removed_any) break;
  }
  ::close(fd);
  ::unlinkat(dir_fd, name, AT_REMOVEDIR);
}

void on_stop_signal(int signal_number) {
  const int saved_errno = errno;
  const pid_t self = ::getpid();
  for (Slot& slot : g_slots) {
    if (slot.state.load(std::memory_order_acquire) != Slot::kReady || slot.owner != self) continue;
    remove_entry(AT_FDCWD, slot.path, slot.is_folder ? 4 : 0);
  }
  errno = saved_errno;
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

}  // namespace

void remove_temporaries_on_signals() {
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    struct sigaction current {};
    if (::sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler == SIG_IGN)
      continue;
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    ::sigemptyset(&action.sa_mask);
    ::sigaction(signal_number, &action, nullptr);
  }
}

SignalCleanup::SignalCleanup(const std::string& path, bool is_folder) {
  if (path.size() >= sizeof(Slot::path)) return;  // not watched; normal paths still remove it
  for (std::size_t i = 0; i < g_slots.size(); ++i) {
    int expected = Slot::kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, Slot::kFilling)) continue;
    Slot& slot = g_slots[i];
    slot.owner = ::getpid();
    slot.is_folder = is_folder;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.state.store(Slot::kReady, std::memory_order_release);
    slot_ = static_cast<int>(i);
    return;
  }
}

SignalCleanup& SignalCleanup::operator=(SignalCleanup&& other) noexcept {
  if (this != &other) {
    release();
    slot_ = other.slot_;
    other.slot_ = -1;
  }
  return *this;
}

void SignalCleanup::release() {
  if (slot_ < 0) return;
  g_slots[static_cast<std::size_t>(slot_)].state.store(Slot::kFree, std::memory_order_release);
  slot_ = -1;
}

}  // namespace traceprism::io
