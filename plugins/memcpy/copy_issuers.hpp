// Who issued a copy or memset: the runtime/driver call that launched it, the ops above that call,
// and whether the call blocks the host (Nsight Systems' memcpy rules, applied to Kineto events).
#pragma once

#include <traceprism/sdk.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace traceprism::plugins::memcpy {

// Copies and memsets whose launching call makes the host wait (diagnosis.md §2.2 blocking_copy:
// the GPU idle time they cause belongs to the GPU-idle analyzer).
struct BlockingCopies {
  std::vector<Row> pageable_async;  // an *Async copy from or to pageable memory: staged, blocking
  std::vector<Row> sync_memcpy;     // a memcpy API without Async (hipMemcpyWithStream included)
  std::vector<Row> sync_memset;     // a memset API without Async
  std::size_t sync_memset_host_blocking = 0;  // of them, on pinned, managed or host memory
  bool blocks(Row copy) const;
};

class CopyIssuers {
 public:
  explicit CopyIssuers(const Context& ctx);

  // The runtime/driver call that issued GPU row r: its launch link, else (a trace whose flows do
  // not pair up) the memcpy/memset API call with the same correlation id; kNoRow if none.
  Row launcher_of(Row r) const;
  // The ops above the launching call, outermost first, at most `depth` of them
  // ("aten::contiguous → aten::clone → aten::copy_"); empty when no cpu_op encloses it.
  std::vector<Row> op_chain(Row r, std::size_t depth) const;
  // The chain as text, or what launched the copy when no op did ("no op (cudaGraphLaunch)").
  std::string op_chain_text(Row r, std::size_t depth) const;
  // The nearest cpu_op above the launching call, or kNoRow.
  Row nearest_op(Row r) const;
  // The copies and memsets whose call blocks the host; host-to-device copies of known size up
  // to sync_h2d_min_bytes from a synchronous API are left out (the driver returns before they
  // complete).
  BlockingCopies blocking(const std::vector<Row>& copies, std::int64_t sync_h2d_min_bytes) const;
  // Up to three distinct launching call names, quoted, in first-seen order.
  std::string api_names(const std::vector<Row>& rows) const;

 private:
  const Context& ctx_;
  EventView ev_;
  std::unordered_map<std::int64_t, Row> call_by_correlation_;
};

}  // namespace traceprism::plugins::memcpy
