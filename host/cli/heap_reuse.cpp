#include "cli/heap_reuse.hpp"

#include <climits>
#include <cstdlib>
#include <string_view>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace traceprism::cli {

bool should_keep_freed_memory(const char* tunables) {
  if (!tunables) return true;
  const std::string_view value(tunables);
  for (std::string_view chosen :
       {"glibc.malloc.mmap_threshold", "glibc.malloc.mmap_max", "glibc.malloc.trim_threshold"})
    if (value.find(chosen) != std::string_view::npos) return false;
  return true;
}

void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  if (!should_keep_freed_memory(std::getenv("GLIBC_TUNABLES"))) return;
  // Both, or neither: setting only the trim threshold also fixes the mmap threshold at its
  // 128 KiB default (glibc stops adapting it), which made the serving merge slower, not faster.
  ::mallopt(M_MMAP_MAX, 0);
  ::mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

}  // namespace traceprism::cli
