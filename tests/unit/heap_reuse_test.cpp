// When traceprism keeps freed heap memory for reuse (cli/heap_reuse).
#include "cli/heap_reuse.hpp"

#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#if defined(__SANITIZE_ADDRESS__)
#define TRACEPRISM_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRACEPRISM_UNDER_ASAN 1
#endif
#endif

using traceprism::cli::should_keep_freed_memory;

TEST(HeapReuse, ChangesMallocUnlessTheUserChoseItsThresholds) {
  EXPECT_TRUE(should_keep_freed_memory(nullptr));
  EXPECT_TRUE(should_keep_freed_memory(""));
  EXPECT_TRUE(should_keep_freed_memory("glibc.malloc.hugetlb=1"));
  EXPECT_TRUE(should_keep_freed_memory("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"));
  EXPECT_FALSE(should_keep_freed_memory("glibc.malloc.mmap_threshold=65536"));
  EXPECT_FALSE(should_keep_freed_memory("glibc.malloc.hugetlb=1:glibc.malloc.mmap_max=4"));
  EXPECT_FALSE(should_keep_freed_memory("glibc.malloc.trim_threshold=0"));
}

// The settings take: a 64 MiB block, mmapped on its own by default, comes from the heap. Run in
// a child so that this test binary keeps glibc's defaults.
TEST(HeapReuse, LargeBlocksComeFromTheHeap) {
#if defined(TRACEPRISM_UNDER_ASAN)
  GTEST_SKIP() << "AddressSanitizer's allocator replaces glibc's";
#else
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::unsetenv("GLIBC_TUNABLES");
    traceprism::cli::keep_freed_memory_for_reuse();
    void* block = std::malloc(64u << 20);
    const bool mmapped = ::mallinfo2().hblkhd > 0;
    std::free(block);
    ::_exit(block && !mmapped ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the 64 MiB block was mmapped on its own";
#endif
}
