#include "model/op_work.hpp"

#include <algorithm>

namespace traceprism::model {

std::uint32_t OpWorkTable::intern_text(std::string_view text) {
  if (text.empty()) return 0;
  auto [it, fresh] = text_ids_.emplace(std::string(text), static_cast<std::uint32_t>(texts_.size()));
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
  auto [it, fresh] = param_ids_.emplace(std::move(key), static_cast<std::uint32_t>(param_lists_.size()));
  if (fresh) param_lists_.push_back(std::move(params));
  return it->second;
}

std::uint32_t OpWorkTable::add_model_name(std::string name) {
  model_names_.push_back(std::move(name));
  return static_cast<std::uint32_t>(model_names_.size() - 1);
}

void OpWorkTable::add(OpWork work) { works_.push_back(work); }

void OpWorkTable::finish() {
  std::sort(works_.begin(), works_.end(), [](const OpWork& a, const OpWork& b) { return a.row < b.row; });
  by_name_.clear();
  if (!index_) return;
  for (const OpWork& w : works_) {
    NameInfo& info = by_name_[index_->name_id(w.row)];
    if (info.category == 0) info.category = w.category;
    if (w.has_model) info.has_model = true;
  }
}

const OpWork* OpWorkTable::find(Row row) const {
  auto it = std::lower_bound(works_.begin(), works_.end(), row,
                             [](const OpWork& w, Row r) { return w.row < r; });
  return it != works_.end() && it->row == row ? &*it : nullptr;
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
