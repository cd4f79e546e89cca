#include "index/row_copies.hpp"

#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace traceprism::index {

class RowCopier {
 public:
  static EventIndex renamed(
      EventIndex x, const std::function<std::optional<std::string>(std::string_view)>& rename) {
    std::unordered_map<StringId, StringId> new_name;
    for (Row r : x.rows_of_kind(EventKind::kCpuOp)) {
      auto [it, fresh] = new_name.try_emplace(x.name_[r], x.name_[r]);
      if (fresh)
        if (const std::optional<std::string> name = rename(x.strings_.view(x.name_[r])))
          it->second = x.strings_.intern(*name);
      x.name_[r] = it->second;
    }
    return x;
  }

  explicit RowCopier(EventIndex base) : x_(std::move(base)) {}

  EventIndex append_pseudo_ops(std::span<const PseudoOpRow> ops) {
    const StringId category = x_.strings_.intern("cpu_op");
    for (const PseudoOpRow& op : ops) {
      const std::int32_t args =
          x_.kind_[op.args_from] == EventKind::kCpuOp ? x_.detail_[op.args_from] : kNoDetail;
      const Row row = x_.push_row({x_.ts_ns_[op.placed_at], 0, EventKind::kCpuOp, 'X', false,
                                   x_.strings_.intern(op.name), category, x_.track_[op.placed_at],
                                   kNoId, kNoId, args});
      if (const EventIndex::PreciseTime* p = x_.precise_time(op.placed_at))
        x_.precise_times_.push_back({row, p->ts_us, 0.0});
      x_.pseudo_op_args_.emplace_back(row, x_.strings_.intern(op.own_args));
    }
    x_.build_secondary_indices();
    return std::move(x_);
  }

  EventIndex append(std::span<const EventIndex* const> sources, std::span<const RowCopy> copies,
                    std::string_view root_name) {
    string_maps_.resize(sources.size());
    detail_maps_.resize(sources.size());
    kernel_name_maps_.resize(sources.size());
    for (std::size_t s = 0; s < sources.size(); ++s)
      string_maps_[s].assign(sources[s]->strings_.size(), kUnmapped);
    const StringId root = x_.strings_.intern(root_name);
    const StringId runtime = x_.strings_.intern("cuda_runtime");
    x_.reserve_rows(x_.size() + copies.size());
    for (const RowCopy& c : copies) {
      if (c.row == kSyntheticRoot) {
        append_row(c.timing, EventKind::kCudaRuntime, 'X', false, root, runtime, kNoDetail);
      } else {
        append_copy(*sources[c.source], c.source, c.row, c.timing);
      }
    }
    x_.parse_input_shapes();
    x_.build_secondary_indices();
    return std::move(x_);
  }

 private:
  // A row with the timing row's time and thread and no ids (see append_row_copies).
  Row append_row(Row timing, EventKind kind, char phase, bool malformed, StringId name,
                 StringId category, std::int32_t detail) {
    const Row row = x_.push_row({x_.ts_ns_[timing], x_.dur_ns_[timing], kind, phase, malformed,
                                 name, category, x_.track_[timing], kNoId, kNoId, detail});
    if (const EventIndex::PreciseTime* p = x_.precise_time(timing))
      x_.precise_times_.push_back({row, p->ts_us, p->dur_us});
    return row;
  }

  // A source's strings interned once each: the same captured rows are copied for every replay.
  StringId intern(const EventIndex& source, std::uint32_t source_id, StringId id) {
    if (id == kNoString) return kNoString;
    StringId& mapped = string_maps_[source_id][id];
    if (mapped == kUnmapped) mapped = x_.strings_.intern(source.strings_.view(id));
    return mapped;
  }

  // The op args entry of a source row, added once and shared by all its copies.
  std::int32_t op_args_entry(const EventIndex& source, std::uint32_t source_id, Row r) {
    auto [it, inserted] = detail_maps_[source_id].try_emplace(r, kNoDetail);
    if (!inserted) return it->second;
    if (const std::optional<OpArgs> a = source.op_args(r)) {
      OpArgs copy = *a;
      for (StringId* text :
           {&copy.input_dims, &copy.input_types, &copy.input_strides, &copy.concrete_inputs})
        *text = intern(source, source_id, *text);
      it->second = static_cast<std::int32_t>(x_.op_args_.add(copy));
    }
    return it->second;
  }

  // A launch call's kernel name, interned once per source row: a long name hashed for every
  // replay of the graph showed in profiles.
  StringId launch_kernel_name(std::uint32_t source_id, Row r, std::string_view kernel) {
    auto [it, inserted] = kernel_name_maps_[source_id].try_emplace(r, kNoString);
    if (inserted) it->second = x_.strings_.intern(kernel);
    return it->second;
  }

  void append_copy(const EventIndex& source, std::uint32_t source_id, Row r, Row timing) {
    if (is_gpu_kind(source.kind(r)))
      throw std::invalid_argument("append_row_copies: GPU events are never copied");
    const std::int32_t detail =
        source.kind(r) == EventKind::kCpuOp ? op_args_entry(source, source_id, r) : kNoDetail;
    const Row row = append_row(timing, source.kind(r), source.phase(r), !source.valid(r),
                               intern(source, source_id, source.name_id(r)),
                               intern(source, source_id, source.category_id(r)), detail);
    if (const std::optional<std::string_view> kernel = source.launch_kernel(r))
      x_.launch_kernels_.emplace_back(row, launch_kernel_name(source_id, r, *kernel));
    if (std::optional<CommArgs> comm = source.comm_args(r)) {
      // Every text field is an id into the source's string pool.
      for (StringId* text : {&comm->dtype, &comm->collective, &comm->pg_name, &comm->pg_description,
                             &comm->pg_ranks, &comm->in_split_sizes, &comm->out_split_sizes})
        *text = intern(source, source_id, *text);
      x_.comm_args_.push_back({row, *comm});
    }
  }

  static constexpr StringId kUnmapped = 0xFFFFFFFEu;
  EventIndex x_;
  std::vector<std::vector<StringId>> string_maps_;  // per source: its string id -> ours
  std::vector<std::unordered_map<Row, std::int32_t>> detail_maps_;   // per source: row -> entry
  std::vector<std::unordered_map<Row, StringId>> kernel_name_maps_;  // per source: row -> name
};

EventIndex append_row_copies(EventIndex base, std::span<const EventIndex* const> sources,
                             std::span<const RowCopy> copies, std::string_view root_name) {
  return RowCopier(std::move(base)).append(sources, copies, root_name);
}

EventIndex append_pseudo_ops(EventIndex base, std::span<const PseudoOpRow> ops) {
  return RowCopier(std::move(base)).append_pseudo_ops(ops);
}

EventIndex rename_cpu_ops(
    EventIndex index, const std::function<std::optional<std::string>(std::string_view)>& rename) {
  return RowCopier::renamed(std::move(index), rename);
}

}  // namespace traceprism::index
