#include "index/op_args_table.hpp"

namespace traceprism::index {

std::size_t OpArgsTable::TextsHash::operator()(const Texts& t) const {
  std::uint64_t h = t.input_dims;
  for (StringId id : {t.input_types, t.input_strides, t.concrete_inputs})
    h = h * 0x9E3779B97F4A7C15ull + id;
  return static_cast<std::size_t>(h ^ (h >> 29));
}

std::uint32_t OpArgsTable::add(const OpArgs& args) {
  const Texts texts{args.input_dims, args.input_types, args.input_strides, args.concrete_inputs};
  const std::uint32_t fwd =
      args.fwd_thread_id == kNoId ? kNoFwdThread : fwd_threads_.intern(args.fwd_thread_id);
  entries_.push_back({texts_.intern(texts), fwd, args.sequence_number});
  return static_cast<std::uint32_t>(entries_.size() - 1);
}

OpArgs OpArgsTable::get(std::uint32_t entry) const {
  const Entry& e = entries_[entry];
  const Texts& t = texts_[e.texts];
  OpArgs out;
  out.input_dims = t.input_dims;
  out.input_types = t.input_types;
  out.input_strides = t.input_strides;
  out.concrete_inputs = t.concrete_inputs;
  out.sequence_number = e.sequence_number;
  out.fwd_thread_id = e.fwd_thread == kNoFwdThread ? kNoId : fwd_threads_[e.fwd_thread];
  return out;
}

std::vector<StringId> OpArgsTable::distinct_input_dims() const {
  std::vector<StringId> out;
  out.reserve(texts_.values().size());
  for (const Texts& t : texts_.values()) out.push_back(t.input_dims);
  return out;
}

void OpArgsTable::seal() {
  texts_.seal();
  fwd_threads_.seal();
}

}  // namespace traceprism::index
