#include "cli/huge_page_malloc.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#if defined(__linux__) && defined(__GLIBC__)
#include <gnu/libc-version.h>
#include <unistd.h>
#endif

namespace traceprism::cli {
namespace {

constexpr std::string_view kTunable = "glibc.malloc.hugetlb";

bool glibc_at_least_2_35(std::string_view version) {
  int major = 0, minor = 0;
  if (std::sscanf(std::string(version).c_str(), "%d.%d", &major, &minor) != 2) return false;
  return major > 2 || (major == 2 && minor >= 35);
}

}  // namespace

std::optional<std::string> huge_page_tunables(const char* opt_in, const char* tunables,
                                              std::string_view thp_mode,
                                              std::string_view glibc_version) {
  if (!opt_in || std::string_view(opt_in) != "1") return std::nullopt;
  if (tunables && std::string_view(tunables).find(kTunable) != std::string_view::npos)
    return std::nullopt;
  if (thp_mode.find("[madvise]") == std::string_view::npos) return std::nullopt;
  if (!glibc_at_least_2_35(glibc_version)) return std::nullopt;
  std::string value = std::string(kTunable) + "=1";
  if (tunables && *tunables) value = std::string(tunables) + ":" + value;
  return value;
}

bool reads_large_input(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-") return true;
    std::error_code ec;
    const auto status = std::filesystem::status(argv[i], ec);
    if (ec) continue;
    if (std::filesystem::is_regular_file(status) &&
        std::filesystem::file_size(argv[i], ec) >= kHugePageMinInputBytes && !ec)
      return true;
  }
  return false;
}

void restart_with_huge_page_malloc(int argc, char** argv) {
#if defined(__linux__) && defined(__GLIBC__)
  if (!reads_large_input(argc, argv)) return;
  std::ifstream mode_file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::stringstream mode;
  mode << mode_file.rdbuf();
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::optional<std::string> value = huge_page_tunables(
      std::getenv("TRACEPRISM_HUGE_PAGES"), tunables, mode.str(), gnu_get_libc_version());
  if (!value) return;
  const std::optional<std::string> before =
      tunables ? std::optional<std::string>(tunables) : std::nullopt;
  if (::setenv("GLIBC_TUNABLES", value->c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // Still here: the exec failed. Carry on with small pages and the environment as it was.
  if (before)
    ::setenv("GLIBC_TUNABLES", before->c_str(), 1);
  else
    ::unsetenv("GLIBC_TUNABLES");
#else
  (void)argc;
  (void)argv;
#endif
}

}  // namespace traceprism::cli
