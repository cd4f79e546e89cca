#include "plugins/op_model_runner.hpp"

#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string_view>
#include <unordered_map>

#include "plugins/host_api.hpp"

#include <traceprism/op_model.hpp>

namespace traceprism::plugins {
namespace {

struct Candidate {
  const traceprism_op_model_v1* model;
  std::size_t outcome;
};

bool claims(const char* pattern, std::string_view op) {
  std::string_view p(pattern);
  if (!p.empty() && p.back() == '*') return op.substr(0, p.size() - 1) == p.substr(0, p.size() - 1);
  return op == p;
}

std::string_view view(traceprism_str s) {
  return s.data ? std::string_view(s.data, s.size) : std::string_view();
}

bool is_op_row(const index::EventIndex& index, index::Row r) {
  const auto k = index.kind(r);
  return index.valid(r) &&
         (k == index::EventKind::kCpuOp || k == index::EventKind::kUserAnnotation);
}

// A parameter from a plugin built for ABI 1.0 (numbers only), as Python would print it.
std::string number_repr(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    return std::to_string(static_cast<long long>(v));
  return traceprism::py::float_repr(v);
}

model::OpWorkStatus status_of(std::int32_t code) {
  switch (code) {
    case TRACEPRISM_OK:
      return model::OpWorkStatus::kModelled;
    case TRACEPRISM_SKIPPED:
      return model::OpWorkStatus::kNotModelled;
    default:
      return model::OpWorkStatus::kFailed;
  }
}

// A model's answer copied out of the plugin's buffers (valid only during the call).
struct RawWork {
  std::int32_t status = TRACEPRISM_ERROR;
  std::string category, bwd_category, sheet, compute_spec;
  bool has_model = true;
  std::int32_t bwd_status = TRACEPRISM_SKIPPED;
  double flops = -1, bytes = -1, flops_bwd = -1, bytes_bwd = -1;
  std::vector<model::OpParam> params;
};

RawWork call_model(const traceprism_op_model_v1& m, traceprism_run_ctx& ctx, index::Row row) {
  traceprism_op_model_result_v1 out{};
  out.struct_size = sizeof(out);
  out.flops = out.bytes = out.flops_bwd = out.bytes_bwd = -1;
  out.has_model = 1;
  out.bwd_status = TRACEPRISM_SKIPPED;
  RawWork w;
  try {
    w.status = m.model(&ctx, host_api(), row, &out, m.user);
  } catch (...) {
    w.status = TRACEPRISM_ERROR;
  }
  w.category = view(out.category);
  w.compute_spec = view(out.compute_spec);
  w.flops = std::isfinite(out.flops) ? out.flops : -1;
  w.bytes = std::isfinite(out.bytes) ? out.bytes : -1;
  for (std::uint32_t i = 0; out.params && i < out.param_count; ++i) {
    std::string repr =
        out.param_texts ? std::string(view(out.param_texts[i])) : number_repr(out.params[i].value);
    w.params.push_back({std::string(view(out.params[i].key)), std::move(repr)});
  }
  w.bwd_category = view(out.bwd_category);
  w.sheet = view(out.sheet);
  w.has_model = out.has_model != 0;
  w.bwd_status = out.bwd_status;
  w.flops_bwd = std::isfinite(out.flops_bwd) ? out.flops_bwd : -1;
  w.bytes_bwd = std::isfinite(out.bytes_bwd) ? out.bytes_bwd : -1;
  return w;
}

// A model's answer with its texts interned into the table (row and model not set).
model::OpWork intern_answer(OpModelRun& run, const RawWork& w) {
  model::OpWork op;
  op.status = status_of(w.status);
  op.has_model = w.has_model;
  op.bwd_status = status_of(w.bwd_status);
  op.category = run.table.intern_text(w.category);
  op.bwd_category = run.table.intern_text(w.bwd_category);
  op.sheet = run.table.intern_text(w.sheet);
  op.compute_spec = run.table.intern_text(w.compute_spec);
  op.params = run.table.intern_params(w.params);
  op.flops = w.flops;
  op.bytes = w.bytes;
  op.flops_bwd = w.flops_bwd;
  op.bytes_bwd = w.bytes_bwd;
  return op;
}

void add_work(OpModelRun& run, const std::vector<Candidate>& models,
              const std::pair<index::Row, int>& job, model::OpWork op) {
  op.row = job.first;
  op.model = static_cast<std::uint32_t>(job.second);
  run.table.add(op);
  OpModelOutcome& o = run.outcomes[models[static_cast<std::size_t>(job.second)].outcome];
  ++o.claimed;
  if (op.status == model::OpWorkStatus::kModelled && op.has_model) ++o.modelled;
  if (op.status == model::OpWorkStatus::kFailed) ++o.failed;
}

// What an op model sees of an op call (sdk OpCall): the name, the four shape-arg texts and the
// names of the GPU events below, as interned ids, plus the model. Calls with equal keys get
// equal answers; the Sequence number is left out (models only quote it in error messages).
struct CallKey {
  int model = 0;
  std::array<index::StringId, 5> texts{};  // name, dims, types, strides, concrete inputs
  std::vector<index::StringId> kernels;    // by start time
  std::optional<model::StepStats> step;    // the bound serving step's sums (op_call 1.9)
  bool operator==(const CallKey&) const = default;
};

struct CallKeyHash {
  std::size_t operator()(const CallKey& k) const {
    std::size_t h = static_cast<std::size_t>(k.model);
    for (index::StringId id : k.texts) h = h * 1000003 ^ id;
    for (index::StringId id : k.kernels) h = h * 1000003 ^ id;
    if (k.step)
      for (std::int64_t v : *k.step) h = h * 1000003 ^ static_cast<std::size_t>(v);
    return h;
  }
};

void fill_call_key(const RunProducts& products, const std::pair<index::Row, int>& job,
                   std::vector<index::Row>& kernels, CallKey& key) {
  const index::EventIndex& index = products.index();
  const index::Row row = job.first;
  key.model = job.second;
  key.texts = {index.name_id(row), index::kNoString, index::kNoString, index::kNoString,
               index::kNoString};
  if (const std::optional<index::OpArgs> a = index.op_args(row))
    key.texts = {index.name_id(row), a->input_dims, a->input_types, a->input_strides,
                 a->concrete_inputs};
  products.subtree_gpu_rows(row, kernels);  // what op_call gives the model
  key.kernels.clear();
  for (index::Row k : kernels) key.kernels.push_back(index.name_id(k));
  key.step = products.step_stats(row);
}

}  // namespace

OpModelRun run_op_models(const OpModelInputs& in, const RunProducts& products) {
  OpModelRun run;
  std::vector<Candidate> models;
  for (const auto& plugin : in.registry->plugins())
    for (std::uint32_t i = 0; i < plugin.info->op_model_count; ++i) {
      models.push_back({&plugin.info->op_models[i], run.outcomes.size()});
      run.outcomes.push_back({plugin.info->op_models[i].name, plugin.info->name});
      run.table.add_model_name(plugin.info->op_models[i].name);
    }
  const index::EventIndex& index = products.index();
  run.table.set_index(&index);
  if (models.empty()) {
    run.table.finish();
    return run;
  }

  // Op names repeat millions of times: decide the claiming model once per name.
  std::map<index::StringId, int> model_of_name;
  std::vector<std::pair<index::Row, int>> work;
  for (index::Row r = 0; r < index.size(); ++r) {
    if (!is_op_row(index, r)) continue;
    auto [it, fresh] = model_of_name.emplace(index.name_id(r), -1);
    if (fresh)
      for (std::size_t m = 0; m < models.size() && it->second < 0; ++m)
        for (const char* const* p = models[m].model->op_names; *p; ++p)
          if (claims(*p, index.name(r))) {
            it->second = static_cast<int>(m);
            break;
          }
    if (it->second >= 0) work.emplace_back(r, it->second);
  }

  // An op model is a function of the op call it reads (CallKey): big traces repeat a few
  // thousand distinct calls over hundreds of thousands of ops (every layer, every step), so
  // each distinct call is modelled once, for its first op, and its answer is shared. Keys are
  // made on the workers (each walks the op's subtree), then numbered in op order.
  // More threads than cores gain nothing (and make oneTBB warn).
  oneapi::tbb::task_arena arena(in.jobs > 0
                                    ? std::min(in.jobs, oneapi::tbb::info::default_concurrency())
                                    : oneapi::tbb::task_arena::automatic);
  constexpr std::size_t kChunk = 8192;
  std::vector<std::uint32_t> call_of(work.size());
  std::vector<std::pair<index::Row, int>> calls;  // the first op of each distinct call
  {
    std::unordered_map<CallKey, std::uint32_t, CallKeyHash> ids;
    std::vector<CallKey> keys(std::min(work.size(), kChunk));  // reused: keep their capacity
    for (std::size_t begin = 0; begin < work.size(); begin += kChunk) {
      const std::size_t end = std::min(work.size(), begin + kChunk);
      arena.execute([&] {
        oneapi::tbb::parallel_for(begin, end, [&](std::size_t i) {
          thread_local std::vector<index::Row> kernels;
          fill_call_key(products, work[i], kernels, keys[i - begin]);
        });
      });
      for (std::size_t i = begin; i < end; ++i) {
        auto [it, fresh] =
            ids.try_emplace(keys[i - begin], static_cast<std::uint32_t>(calls.size()));
        if (fresh) calls.push_back(work[i]);
        call_of[i] = it->second;
      }
    }
  }

  // Chunks bound the memory of the raw answers (strings per call); interning after each chunk,
  // in call order, keeps the table's order and content independent of threads.
  std::vector<RawWork> raw;
  std::vector<model::OpWork> answers;
  answers.reserve(calls.size());
  for (std::size_t begin = 0; begin < calls.size(); begin += kChunk) {
    const std::size_t end = std::min(calls.size(), begin + kChunk);
    raw.assign(end - begin, RawWork{});
    arena.execute([&] {
      oneapi::tbb::parallel_for(begin, end, [&](std::size_t i) {
        const Candidate& c = models[calls[i].second];
        traceprism_run_ctx ctx;
        ctx.products = &products;
        ctx.config = in.config;
        ctx.platform = in.platform;
        ctx.trace_path = in.trace_path;
        ctx.owner = c.model->name;
        raw[i - begin] = call_model(*c.model, ctx, calls[i].first);
      });
    });
    for (std::size_t i = begin; i < end; ++i) answers.push_back(intern_answer(run, raw[i - begin]));
  }
  run.table.reserve(work.size());
  for (std::size_t i = 0; i < work.size(); ++i) add_work(run, models, work[i], answers[call_of[i]]);
  run.table.finish();
  return run;
}

}  // namespace traceprism::plugins
