#include "copy_issuers.hpp"

#include <algorithm>
#include <string_view>

#include "../common/system_support.hpp"
#include "copy_traffic.hpp"

namespace traceprism::plugins::memcpy {
namespace {

using system::contains;
using system::starts_with;

// Memcpy API names: runtime (cuda*/hip*) and driver (cu*) spellings.
bool is_memcpy_api(std::string_view name) {
  return starts_with(name, "cudaMemcpy") || starts_with(name, "hipMemcpy") ||
         starts_with(name, "cuMemcpy");
}

bool is_memset_api(std::string_view name) {
  return starts_with(name, "cudaMemset") || starts_with(name, "hipMemset") ||
         starts_with(name, "cuMemset");
}

bool is_pageable(const std::optional<GpuArgs>& args) {
  return args && (args->copy_source == TRACEPRISM_MEMORY_PAGEABLE ||
                  args->copy_destination == TRACEPRISM_MEMORY_PAGEABLE);
}

bool on_host_memory(const std::optional<GpuArgs>& args) {
  return args && (args->copy_destination == TRACEPRISM_MEMORY_PINNED ||
                  args->copy_destination == TRACEPRISM_MEMORY_MANAGED ||
                  args->copy_destination == TRACEPRISM_MEMORY_HOST);
}

constexpr int kMaxDepth = 4096;  // a malformed parent chain cannot loop forever

}  // namespace

bool BlockingCopies::blocks(Row copy) const {
  return std::find(pageable_async.begin(), pageable_async.end(), copy) != pageable_async.end() ||
         std::find(sync_memcpy.begin(), sync_memcpy.end(), copy) != sync_memcpy.end();
}

CopyIssuers::CopyIssuers(const Context& ctx) : ctx_(ctx), ev_(ctx.events()) {
  bool needed = false;
  for (Kind kind : {Kind::kMemcpy, Kind::kMemset})
    for (Row r : ctx.rows(kind)) needed = needed || ev_.launcher(r) == kNoRow;
  if (!needed) return;
  for (Kind kind : {Kind::kRuntime, Kind::kDriver}) {
    for (Row r : ctx.rows(kind)) {
      const std::string_view name = ev_.name(r);
      if (ev_.correlation(r) != 0 && (is_memcpy_api(name) || is_memset_api(name)))
        call_by_correlation_.emplace(ev_.correlation(r), r);
    }
  }
}

Row CopyIssuers::launcher_of(Row r) const {
  const Row linked = ev_.launcher(r);
  if (linked != kNoRow || call_by_correlation_.empty() || ev_.correlation(r) == 0) return linked;
  auto it = call_by_correlation_.find(ev_.correlation(r));
  return it != call_by_correlation_.end() ? it->second : kNoRow;
}

std::vector<Row> CopyIssuers::op_chain(Row r, std::size_t depth) const {
  std::vector<Row> chain;  // innermost first while walking up
  const Row launcher = launcher_of(r);
  Row p = launcher == kNoRow ? kNoRow : ev_.parent(launcher);
  for (int step = 0; p != kNoRow && step < kMaxDepth; ++step, p = ev_.parent(p))
    if (ev_.kind(p) == Kind::kCpuOp) chain.push_back(p);
  if (chain.size() > depth) chain.resize(depth);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

std::string CopyIssuers::op_chain_text(Row r, std::size_t depth) const {
  std::string text;
  for (Row op : op_chain(r, depth)) {
    if (!text.empty()) text += " \xE2\x86\x92 ";
    text += std::string(ev_.name(op));
  }
  if (!text.empty()) return text;
  const Row launcher = launcher_of(r);
  return launcher == kNoRow ? "no op, no launching call"
                            : "no op (" + std::string(ev_.name(launcher)) + ")";
}

Row CopyIssuers::nearest_op(Row r) const {
  const std::vector<Row> chain = op_chain(r, 1);
  return chain.empty() ? kNoRow : chain.front();
}

BlockingCopies CopyIssuers::blocking(const std::vector<Row>& copies,
                                     std::int64_t sync_h2d_min_bytes) const {
  BlockingCopies b;
  for (Row r : copies) {
    const Row launcher = launcher_of(r);
    if (launcher == kNoRow) continue;
    const std::string_view api = ev_.name(launcher);
    const auto args = ctx_.gpu_args(r);
    if (contains(api, "Async")) {
      if (is_pageable(args)) b.pageable_async.push_back(r);
    } else if (is_memcpy_api(api)) {
      const bool h2d = direction_of(ctx_, r) == Direction::kHtoD;
      const bool small = args && args->bytes >= 0 && args->bytes <= sync_h2d_min_bytes;
      if (!(h2d && small)) b.sync_memcpy.push_back(r);
    }
  }
  for (Row r : ctx_.rows(Kind::kMemset)) {
    const Row launcher = launcher_of(r);
    if (launcher == kNoRow) continue;
    const std::string_view api = ev_.name(launcher);
    if (!is_memset_api(api) || contains(api, "Async")) continue;
    b.sync_memset.push_back(r);
    if (on_host_memory(ctx_.gpu_args(r))) ++b.sync_memset_host_blocking;
  }
  return b;
}

std::string CopyIssuers::api_names(const std::vector<Row>& rows) const {
  std::vector<std::string_view> names;
  for (Row r : rows) {
    const Row l = launcher_of(r);
    if (l == kNoRow) continue;
    const std::string_view n = ev_.name(l);
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) {
    if (i) out += ", ";
    out += "`" + std::string(names[i]) + "`";
  }
  if (names.size() > 3) out += " and " + std::to_string(names.size() - 3) + " more";
  return out;
}

}  // namespace traceprism::plugins::memcpy
