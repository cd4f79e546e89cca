#include "plugins/run_products.hpp"

#include <algorithm>
#include <unordered_map>

#include "perf_report/op_category.hpp"

namespace traceprism::plugins {
namespace {

// The ABI's kind numbers are the index's EventKind values; keep them in step.
static_assert(static_cast<int>(index::EventKind::kCpuOp) == TRACEPRISM_KIND_CPU_OP);
static_assert(static_cast<int>(index::EventKind::kCudaRuntime) == TRACEPRISM_KIND_RUNTIME);
static_assert(static_cast<int>(index::EventKind::kCudaDriver) == TRACEPRISM_KIND_DRIVER);
static_assert(static_cast<int>(index::EventKind::kKernel) == TRACEPRISM_KIND_KERNEL);
static_assert(static_cast<int>(index::EventKind::kGpuMemcpy) == TRACEPRISM_KIND_MEMCPY);
static_assert(static_cast<int>(index::EventKind::kGpuMemset) == TRACEPRISM_KIND_MEMSET);
static_assert(static_cast<int>(index::EventKind::kCudaSync) == TRACEPRISM_KIND_CUDA_SYNC);
static_assert(static_cast<int>(index::EventKind::kOther) == TRACEPRISM_KIND_OTHER);
static_assert(index::kEventKindCount == TRACEPRISM_KIND_COUNT);
static_assert(sizeof(index::EventKind) == sizeof(std::uint8_t));
static_assert(sizeof(index::StringId) == sizeof(std::uint32_t));

std::uint8_t gpu_class_of(model::GpuActivity a) {
  switch (a) {
    case model::GpuActivity::kComputation:
      return TRACEPRISM_GPU_COMPUTATION;
    case model::GpuActivity::kCommunication:
      return TRACEPRISM_GPU_COMMUNICATION;
    case model::GpuActivity::kMemcpy:
      return TRACEPRISM_GPU_MEMCPY;
  }
  return TRACEPRISM_GPU_NONE;
}

// int32 columns with -1 for "none" read as uint32 columns with TRACEPRISM_NO_ROW.
const std::uint32_t* as_rows(const std::vector<std::int32_t>& v) {
  static_assert(static_cast<std::uint32_t>(-1) == TRACEPRISM_NO_ROW);
  return reinterpret_cast<const std::uint32_t*>(v.data());
}

}  // namespace

RunProducts::RunProducts(const index::EventIndex& index, const model::CallTree& tree,
                         const model::LaunchLinks& links, const model::GpuTimeline& timeline,
                         const model::KernelLaunchers& launchers)
    : index_(index), tree_(tree), links_(links), timeline_(timeline), launchers_(launchers) {
  const std::size_t n = index.size();
  core_columns_.struct_size = sizeof(core_columns_);
  core_columns_.count = n;
  core_columns_.ts_ns = index.ts_column().data();
  core_columns_.dur_ns = index.dur_column().data();
  core_columns_.kind = reinterpret_cast<const std::uint8_t*>(index.kind_column().data());
  core_columns_.name_id = index.name_column().data();
  core_columns_.cat_id = index.category_column().data();
  core_columns_.correlation = index.correlation_column().data();
  core_columns_.external_id = index.external_id_column().data();
  core_columns_.parent = as_rows(tree.parent_column());
  core_columns_.launcher = as_rows(links.launcher_column());
  build_gpu_events();

  for (int k = 0; k < index::kEventKindCount; ++k) {
    const auto rows = index.rows_of_kind(static_cast<index::EventKind>(k));
    auto before = [&](index::Row a, index::Row b) {
      return index.ts_ns(a) != index.ts_ns(b) ? index.ts_ns(a) < index.ts_ns(b) : a < b;
    };
    // Profilers mostly write events in time order: then the index's list is shown as it is,
    // and only a list out of order is copied and sorted. The capture merge appends its copies
    // in launch order after the trace's rows: two sorted runs, merged in linear time.
    rows_by_kind_[k] = rows;
    const auto first_unsorted = std::is_sorted_until(rows.begin(), rows.end(), before);
    if (first_unsorted != rows.end()) {
      auto& sorted = sorted_copies_[k];
      sorted.assign(rows.begin(), rows.end());
      const auto middle = sorted.begin() + (first_unsorted - rows.begin());
      if (std::is_sorted(middle, sorted.end(), before))
        std::inplace_merge(sorted.begin(), middle, sorted.end(), before);
      else
        std::sort(sorted.begin(), sorted.end(), before);
      rows_by_kind_[k] = sorted;
    }
  }

  launches_below_.assign(n, false);
  for (index::EventKind kind : {index::EventKind::kCudaRuntime, index::EventKind::kCudaDriver})
    for (index::Row runtime : index.rows_of_kind(kind)) {
      if (links.launched(runtime).empty()) continue;
      // Stop at the first ancestor already marked: its own ancestors are marked too.
      for (std::int32_t cur = static_cast<std::int32_t>(runtime); cur >= 0 && !launches_below_[cur];
           cur = tree.parent(static_cast<index::Row>(cur)))
        launches_below_[cur] = true;
    }
  // A pseudo op is above its launch only through the children lists.
  for (const auto& [pseudo_op, launch] : tree.adoptions())
    launches_below_[pseudo_op] = launches_below_[launch];

  for (const model::KernelLauncher& op : launchers.all()) {
    op_row_.push_back(op.row);
    op_direct_busy_.push_back(op.direct_busy_us);
    op_subtree_busy_.push_back(op.subtree_busy_us);
    // The ABI table views the launchers' own flat kernel array: no second copy.
    op_kernel_begin_.push_back(
        static_cast<std::uint32_t>(op.kernels.data() - launchers.kernel_rows().data()));
    op_kernel_count_.push_back(static_cast<std::uint32_t>(op.kernels.size()));
  }
  set_op_work(nullptr);
}

std::string_view RunProducts::string(index::StringId id) const {
  const std::size_t pool = index_.strings().size();
  if (id < pool) return index_.strings().view(id);
  if (id - pool < extra_strings_.size()) return extra_strings_[id - pool];
  return {};
}

index::StringId RunProducts::find_string(std::string_view text) const {
  if (index::StringId id = index_.strings().find(text); id != index::kNoString) return id;
  for (std::size_t i = 0; i < extra_strings_.size(); ++i)
    if (extra_strings_[i] == text) return static_cast<index::StringId>(index_.strings().size() + i);
  return index::kNoString;
}

void RunProducts::set_op_work(const model::OpWorkTable* work) {
  op_work_ = work;
  const std::size_t n = op_row_.size();
  extra_strings_.clear();
  auto intern = [&](std::string_view text) -> index::StringId {
    if (text.empty()) return index::kNoString;
    if (index::StringId id = find_string(text); id != index::kNoString) return id;
    extra_strings_.emplace_back(text);
    return static_cast<index::StringId>(index_.strings().size() + extra_strings_.size() - 1);
  };
  op_category_.assign(n, index::kNoString);
  op_flops_.assign(n, -1);
  op_bytes_.assign(n, -1);
  // The category depends on the op's name and its first kernel's name only: decided once per
  // such pair (kNoString: no kernel; an empty kernel name categorizes the same way).
  std::unordered_map<std::uint64_t, index::StringId> category_of;
  for (std::size_t i = 0; i < n; ++i) {
    const index::StringId first_kernel_name =
        op_kernel_count_[i] > 0 ? index_.name_id(launchers_.kernel_rows()[op_kernel_begin_[i]])
                                : index::kNoString;
    const std::uint64_t key =
        static_cast<std::uint64_t>(index_.name_id(op_row_[i])) << 32 | first_kernel_name;
    auto [known, fresh] = category_of.try_emplace(key, index::kNoString);
    if (fresh) {
      // The reference's op category (§7): registry, name patterns, first-kernel fallback.
      std::optional<std::string> registry;
      if (work)
        if (auto category = work->category_of_name(index_.name_id(op_row_[i])))
          registry = std::string(*category);
      std::optional<std::string_view> first_kernel;
      if (op_kernel_count_[i] > 0)
        first_kernel = index_.name(launchers_.kernel_rows()[op_kernel_begin_[i]]);
      known->second =
          intern(perf_report::categorize_op(index_.name(op_row_[i]), registry, first_kernel));
    }
    op_category_[i] = known->second;
    const std::optional<model::OpWork> w = work ? work->find(op_row_[i]) : std::nullopt;
    if (w && w->has_model && w->status == model::OpWorkStatus::kModelled) {
      op_flops_[i] = w->flops;
      op_bytes_[i] = w->bytes;
    }
  }
  op_table_.struct_size = sizeof(op_table_);
  op_table_.count = n;
  op_table_.row = op_row_.data();
  op_table_.direct_busy_us = op_direct_busy_.data();
  op_table_.subtree_busy_us = op_subtree_busy_.data();
  op_table_.kernel_begin = op_kernel_begin_.data();
  op_table_.kernel_count = op_kernel_count_.data();
  op_table_.kernel_rows = launchers_.kernel_rows().data();
  op_table_.category_id = op_category_.data();
  op_table_.flops = op_flops_.data();
  op_table_.bytes = op_bytes_.data();
}

void RunProducts::set_perf_sheets(const std::vector<perf_report::PerfSheet>& sheets) {
  perf_sheets_.clear();
  auto str = [](const std::string& s) { return traceprism_str{s.data(), s.size()}; };
  for (const perf_report::PerfSheet& s : sheets) {
    SheetView& t = perf_sheets_[s.name];
    const std::size_t width = s.table.columns.size();
    t.texts.reserve(s.table.rows.size() * width);  // no reallocation: `cells` points into it
    for (const auto& row : s.table.rows)
      for (std::size_t c = 0; c < width; ++c)
        t.texts.push_back(c < row.size() ? row[c].display() : std::string());
    t.names = s.table.columns;
    for (const auto& name : t.names) t.columns.push_back(str(name));
    for (const auto& text : t.texts) t.cells.push_back(str(text));
    t.table.struct_size = sizeof(t.table);
    t.table.column_count = static_cast<std::uint32_t>(t.columns.size());
    t.table.row_count = s.table.rows.size();
    t.table.title = str(s.name);
    t.table.columns = t.columns.data();
    t.table.cells = t.cells.data();
  }
}

RunProducts::~RunProducts() = default;

void RunProducts::set_op_metrics(perf_report::UnifiedPerfTable table,
                                 std::optional<double> gpu_total_ms) {
  op_metrics_.reset();
  if (table.groups.empty()) return;
  op_metrics_ = std::make_unique<OpMetricsTable>(
      std::move(table), gpu_total_ms ? *gpu_total_ms : timeline_.total_us / 1e3);
}

const traceprism_op_metrics_v1* RunProducts::op_metrics() const {
  return op_metrics_ ? op_metrics_->view() : nullptr;
}

const traceprism_table_v1* RunProducts::perf_sheet(std::string_view name) const {
  auto it = perf_sheets_.find(name);
  return it == perf_sheets_.end() ? nullptr : &it->second.table;
}

void RunProducts::subtree_gpu_rows(index::Row op, std::vector<index::Row>& out) const {
  out.clear();
  if (!launches_below_[op]) return;
  // Only branches with launches are walked: an op's subtree also holds python frames and
  // instant events, and phase 1 asks for every claimed op.
  thread_local std::vector<index::Row> stack;
  stack.assign(1, op);
  while (!stack.empty()) {
    const index::Row r = stack.back();
    stack.pop_back();
    const auto kind = index_.kind(r);
    if (kind == index::EventKind::kCudaRuntime || kind == index::EventKind::kCudaDriver)
      for (index::Row g : links_.launched(r)) out.push_back(g);
    for (index::Row c : tree_.children(r))
      if (launches_below_[c]) stack.push_back(c);
  }
  std::sort(out.begin(), out.end(), [&](index::Row a, index::Row b) {
    return index_.ts_ns(a) != index_.ts_ns(b) ? index_.ts_ns(a) < index_.ts_ns(b) : a < b;
  });
}

void RunProducts::build_gpu_events() {
  const index::EventIndex& index = index_;
  // Classifying reads the name; names repeat millions of times, so decide once per (kind, name).
  std::vector<std::uint8_t> class_of_name[index::kEventKindCount];
  for (index::Row r = 0; r < index.size(); ++r) {
    if (!index::is_gpu_kind(index.kind(r)) || !index.valid(r)) continue;
    const std::optional<index::GpuStream> g = index.gpu_stream(r);
    auto& known = class_of_name[static_cast<int>(index.kind(r))];
    if (known.empty()) known.assign(index.strings().size(), TRACEPRISM_GPU_NONE);
    std::uint8_t& c = known[index.name_id(r)];
    if (c == TRACEPRISM_GPU_NONE)
      c = gpu_class_of(model::classify_gpu_event(index.kind(r), index.name(r)));
    gpu_row_.push_back(r);
    gpu_device_.push_back(g ? g->device : -1);
    gpu_stream_.push_back(g ? g->stream : -1);
    gpu_class_.push_back(c);
  }
  // The class per row costs a byte a row and spares analyzers a search of the GPU table on
  // every look-up (the SDK reads the column when it is there), so core_events carries it.
  row_gpu_class_.assign(index.size(), TRACEPRISM_GPU_NONE);
  for (std::size_t i = 0; i < gpu_row_.size(); ++i) row_gpu_class_[gpu_row_[i]] = gpu_class_[i];
  core_columns_.gpu_class = row_gpu_class_.data();
  gpu_table_.struct_size = sizeof(gpu_table_);
  gpu_table_.count = gpu_row_.size();
  gpu_table_.row = gpu_row_.data();
  gpu_table_.device = gpu_device_.data();
  gpu_table_.stream = gpu_stream_.data();
  gpu_table_.gpu_class = gpu_class_.data();
}

const traceprism_event_columns_v1* RunProducts::columns() const {
  std::call_once(derived_once_, [this] { build_derived_columns(); });
  return &columns_;
}

void RunProducts::build_derived_columns() const {
  const std::size_t n = index_.size();
  static_assert(index::kNoThread == TRACEPRISM_NO_ROW);
  thread_.resize(n);
  for (index::Row r = 0; r < n; ++r) thread_[r] = index_.thread(r);
  device_.assign(n, -1);
  stream_.assign(n, -1);
  for (std::size_t i = 0; i < gpu_row_.size(); ++i) {
    const index::Row r = gpu_row_[i];
    thread_[r] = TRACEPRISM_NO_ROW;
    device_[r] = gpu_device_[i];
    stream_[r] = gpu_stream_[i];
  }
  columns_ = core_columns_;
  columns_.thread = thread_.data();
  columns_.device = device_.data();
  columns_.stream = stream_.data();
  derived_built_ = true;
}

std::span<const std::int32_t> RunProducts::python_tree_parents() const {
  std::call_once(python_tree_once_, [this] {
    model::CallTreeOptions options;
    options.include_python = true;
    options.grafts = tree_.grafts();
    python_tree_parents_ = model::CallTree::parents(index_, options);
  });
  return python_tree_parents_;
}

std::optional<model::StepStats> RunProducts::step_stats(index::Row op) const {
  std::call_once(step_binding_once_, [this] { step_binding_ = model::StepBinding::build(index_); });
  return step_binding_.stats(index_, op);
}

}  // namespace traceprism::plugins
