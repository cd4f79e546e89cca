#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "index/memcpy_kind.hpp"
#include "index/string_pool.hpp"

namespace traceprism::index {

inline constexpr std::int64_t kNoId = INT64_MIN;

// Shape-related args of one cpu_op, kept as interned canonical (compact) JSON text so that
// grouping and rendering are exact, and parsed once per distinct text into InputShapes.
struct OpArgs {
  StringId input_dims = kNoString;   // e.g. [[1,512],[],[]]
  StringId input_types = kNoString;  // e.g. ["c10::BFloat16","Scalar"]
  StringId input_strides = kNoString;
  StringId concrete_inputs = kNoString;  // e.g. ["","1","False"]
  std::int64_t sequence_number = kNoId;
  std::int64_t fwd_thread_id = kNoId;
};

// The message of a collective, where the trace gives it (PyTorch's record_param_comms and c10d
// ops, and NCCL kernels from PyTorch 2.x): args "In msg nelems", "Out msg nelems", "Group size",
// "dtype" ("Float", "BFloat16", ...) and "Collective name" ("allreduce", ...), and the identity
// that multi-rank matching needs (multi-rank.md §1.1): the process group, "Seq", "Comms Id",
// the rank in the group and the peers of point-to-point calls.
struct CommArgs {
  std::int64_t in_nelems = kNoId;
  std::int64_t out_nelems = kNoId;
  std::int64_t group_size = kNoId;
  StringId dtype = kNoString;
  StringId collective = kNoString;
  StringId pg_name = kNoString;         // "Process Group Name"
  StringId pg_description = kNoString;  // "Process Group Description"
  StringId pg_ranks = kNoString;        // "Process Group Ranks", as written ("[0, 1]")
  StringId in_split_sizes = kNoString;  // "In split size", as written ("[]")
  StringId out_split_sizes = kNoString;
  std::int64_t seq = kNoId;         // "Seq"
  std::int64_t group_rank = kNoId;  // "Rank"
  std::int64_t src_rank = kNoId;
  std::int64_t dst_rank = kNoId;
  std::int64_t global_rank_start = kNoId;
  std::int64_t global_rank_stride = kNoId;
  std::uint64_t comms_id = 0;  // "Comms Id" (a hash, unsigned); 0 = absent
  std::int8_t async = -1;      // "Is asynchronized op": 1, 0, or -1 when absent
};

// Launch configuration and placement of a GPU event (kernel, memcpy, memset).
struct GpuArgs {
  std::int32_t device = -1;
  std::int32_t stream = -1;
  // args.stream was written; else `stream` is the event's tid (Kineto writes the stream there
  // too), which the perf report does not print: the reference reads args.stream only.
  bool stream_in_args = false;
  std::int32_t grid[3] = {0, 0, 0};
  std::int32_t block[3] = {0, 0, 0};
  std::int32_t registers_per_thread = -1;
  std::int32_t shared_memory = -1;
  std::int64_t bytes = -1;  // memcpy / memset size
  CopyKind copy;            // gpu_memcpy only: direction and memory kinds, from the name
};

// A GPU event's device and stream: what most readers of GpuArgs want, without the launch
// geometry (one look-up fewer).
struct GpuStream {
  std::int32_t device = -1;
  std::int32_t stream = -1;
  bool stream_in_args = false;  // as GpuArgs::stream_in_args
};

// Parsed `Input Dims`: per argument, zero or more tensors, each a list of dimensions.
// A tensor argument holds one tensor, a TensorList several, a scalar/None none.
class InputShapes {
 public:
  struct Arg {
    std::uint32_t first_tensor = 0;
    std::uint32_t tensor_count = 0;
    bool is_list = false;  // written as a list of shapes (TensorList)
  };

  // Parses canonical text like [[1,512],[],[[3],[4]]]. Returns false (and stays empty) when the
  // text is not of that form.
  bool parse(std::string_view json);

  std::size_t arg_count() const { return args_.size(); }
  const Arg& arg(std::size_t i) const { return args_[i]; }
  std::span<const std::int64_t> dims(std::size_t tensor) const {
    return {dims_.data() + tensors_[tensor].first, tensors_[tensor].rank};
  }
  // Dimensions of argument i's first tensor (empty for scalars).
  std::span<const std::int64_t> arg_dims(std::size_t i) const {
    return args_[i].tensor_count ? dims(args_[i].first_tensor) : std::span<const std::int64_t>{};
  }

 private:
  struct Tensor {
    std::uint32_t first = 0;
    std::uint32_t rank = 0;
  };
  std::vector<std::int64_t> dims_;
  std::vector<Tensor> tensors_;
  std::vector<Arg> args_;
};

// Parses a canonical JSON list of strings (Input type, Concrete Inputs) into its elements.
std::vector<std::string> parse_string_list(std::string_view json);

}  // namespace traceprism::index
