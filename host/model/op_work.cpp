#include "model/op_work.hpp"

#include <algorithm>
#include <bit>

namespace traceprism::model {

std::size_t OpWorkTable::AnswerKeyHash::operator()(const AnswerKey& key) const {
  std::size_t h = 0;
  for (std::uint64_t part : key) h = h * 1000003 ^ std::hash<std::uint64_t>{}(part);
  return h;
}

std::uint32_t OpWorkTable::intern_text(std::string_view text) {
  if (text.empty()) return 0;
  auto [it, fresh] =
      text_ids_.emplace(std::string(text), static_cast<std::uint32_t>(texts_.size()));
  if (fresh) texts_.emplace_back(text);
  return it->second;
}

std::uint32_t OpWorkTable::intern_params(std::vector<OpParam> params) {
  if (params.empty()) return 0;
  std::string key;
  for (const auto& p : params) {
    key += p.key;
    key += '\x1f';
    key += p.repr;
    key += '\x1e';
  }
  auto [it, fresh] =
      param_ids_.emplace(std::move(key), static_cast<std::uint32_t>(param_lists_.size()));
  if (fresh) param_lists_.push_back(std::move(params));
  return it->second;
}

std::uint32_t OpWorkTable::add_model_name(std::string name) {
  model_names_.push_back(std::move(name));
  return static_cast<std::uint32_t>(model_names_.size() - 1);
}

namespace {

// An answer's identity: every field but the row (doubles compare bitwise).
OpWorkTable::AnswerKey answer_key(const OpWork& w) {
  auto pair = [](std::uint64_t high, std::uint64_t low) { return high << 32 | low; };
  return {pair(w.model, static_cast<std::uint64_t>(w.status) << 16 |
                            static_cast<std::uint64_t>(w.has_model) << 8 |
                            static_cast<std::uint64_t>(w.bwd_status)),
          pair(w.category, w.bwd_category),
          pair(w.sheet, w.compute_spec),
          w.params,
          std::bit_cast<std::uint64_t>(w.flops),
          std::bit_cast<std::uint64_t>(w.bytes),
          std::bit_cast<std::uint64_t>(w.flops_bwd),
          std::bit_cast<std::uint64_t>(w.bytes_bwd)};
}

}  // namespace

void OpWorkTable::add(const OpWork& work) {
  OpWork answer = work;
  answer.row = 0;
  auto [it, fresh] =
      answer_ids_.try_emplace(answer_key(answer), static_cast<std::uint32_t>(answers_.size()));
  if (fresh) answers_.push_back(answer);
  ops_.push_back({work.row, it->second});
}

OpWork OpWorkTable::at(std::size_t i) const {
  OpWork w = answers_[ops_[i].answer];
  w.row = ops_[i].row;
  return w;
}

void OpWorkTable::finish() {
  std::sort(ops_.begin(), ops_.end(), [](const Op& a, const Op& b) { return a.row < b.row; });
  op_buckets_.build(ops_.size(), [&](std::size_t i) { return ops_[i].row; });
  by_name_.clear();
  if (!index_) return;
  for (const Op& op : ops_) {
    const OpWork& w = answers_[op.answer];
    NameInfo& info = by_name_[index_->name_id(op.row)];
    if (info.category == 0) info.category = w.category;
    if (w.has_model) info.has_model = true;
  }
}

std::optional<OpWork> OpWorkTable::find(Row row) const {
  const auto [first, last] = op_buckets_.candidates(row);
  const auto end = ops_.begin() + static_cast<std::ptrdiff_t>(last);
  auto it = std::lower_bound(ops_.begin() + static_cast<std::ptrdiff_t>(first), end, row,
                             [](const Op& op, Row r) { return op.row < r; });
  if (it == end || it->row != row) return std::nullopt;
  return at(static_cast<std::size_t>(it - ops_.begin()));
}

std::string OpWorkTable::sheet(const OpWork& w) const {
  if (w.sheet != 0) return std::string(text(w.sheet));
  std::string s(text(w.category));
  for (std::string_view suffix : {"_fwd", "_bwd"})
    if (s.size() > suffix.size() && s.ends_with(suffix)) s.resize(s.size() - suffix.size());
  return s;
}

std::optional<std::string_view> OpWorkTable::category_of_name(index::StringId name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end() || it->second.category == 0) return std::nullopt;
  return text(it->second.category);
}

bool OpWorkTable::name_has_model(index::StringId name) const {
  auto it = by_name_.find(name);
  return it != by_name_.end() && it->second.has_model;
}

}  // namespace traceprism::model
