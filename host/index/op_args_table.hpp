#pragma once

#include <cstdint>
#include <vector>

#include "index/distinct_values.hpp"
#include "index/op_args.hpp"

namespace traceprism::index {

// The shape args of every cpu_op that has them, stored compactly: millions of ops repeat a few
// hundred distinct (Input Dims, Input type, Input Strides, Concrete Inputs) texts and a few
// forward thread ids, so an entry keeps references to those (16 bytes instead of 32).
class OpArgsTable {
 public:
  // Appends `args` and returns its entry number.
  std::uint32_t add(const OpArgs& args);
  OpArgs get(std::uint32_t entry) const;
  std::size_t size() const { return entries_.size(); }
  // Every distinct Input Dims text (kNoString included when some op lacks one).
  std::vector<StringId> distinct_input_dims() const;
  // Drops the look-ups used while adding; the table is read-only afterwards.
  void seal();

 private:
  struct Texts {
    StringId input_dims, input_types, input_strides, concrete_inputs;
    bool operator==(const Texts&) const = default;
  };
  struct TextsHash {
    std::size_t operator()(const Texts& t) const;
  };
  static constexpr std::uint32_t kNoFwdThread = 0xFFFFFFFFu;
  struct Entry {
    std::uint32_t texts;
    std::uint32_t fwd_thread;  // id in fwd_threads_, or kNoFwdThread
    std::int64_t sequence_number;
  };

  std::vector<Entry> entries_;
  DistinctValues<Texts, TextsHash> texts_;
  DistinctValues<std::int64_t> fwd_threads_;
};

}  // namespace traceprism::index
