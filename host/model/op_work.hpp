#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "index/event_index.hpp"
#include "index/row_buckets.hpp"

namespace traceprism::model {

using index::Row;

// How an op model's computation ended for one op (the reference's three outcomes).
enum class OpWorkStatus : std::uint8_t {
  kModelled,     // FLOPs/bytes valid
  kFailed,       // the model applies but failed on these args: timed only ("failed perf metrics")
  kNotModelled,  // NotImplementedError: treated as having no model
};

// What the op models (phase 1) said about one host op. Texts are ids into the table.
struct OpWork {
  Row row = 0;
  std::uint32_t model = 0;  // index into OpWorkTable::model_names()
  OpWorkStatus status = OpWorkStatus::kNotModelled;
  bool has_model = true;  // false: the name is only categorised (timing, no FLOPs model)
  OpWorkStatus bwd_status = OpWorkStatus::kNotModelled;
  std::uint32_t category = 0, bwd_category = 0, sheet = 0, compute_spec = 0;  // text ids
  std::uint32_t params = 0;  // id of the parameter list
  double flops = -1, bytes = -1;
  double flops_bwd = -1, bytes_bwd = -1;
};

// One op parameter as the perf report shows it: name and Python repr() of the value.
struct OpParam {
  std::string key;
  std::string repr;
};

// Phase-1 results for every host op whose name an op model claims, by row. Texts, parameter
// lists and whole answers repeat across millions of ops, so all three are interned: the table
// keeps a row and an answer id per op (8 bytes instead of a 72-byte OpWork).
class OpWorkTable {
 public:
  // Interning, used while the table is filled (single-threaded).
  std::uint32_t intern_text(std::string_view text);
  std::uint32_t intern_params(std::vector<OpParam> params);
  std::uint32_t add_model_name(std::string name);
  void reserve(std::size_t ops) { ops_.reserve(ops); }
  void add(const OpWork& work);  // rows in any order; call finish() once done
  void finish();

  // The ops by row, as OpWork values.
  std::size_t size() const { return ops_.size(); }
  OpWork at(std::size_t i) const;
  class Ops {
   public:
    class iterator {  // NOLINT(readability-identifier-naming): the name range-for expects
     public:
      iterator(const OpWorkTable* table, std::size_t i) : table_(table), i_(i) {}
      OpWork operator*() const { return table_->at(i_); }
      iterator& operator++() {
        ++i_;
        return *this;
      }
      bool operator==(const iterator& o) const { return i_ == o.i_; }

     private:
      const OpWorkTable* table_;
      std::size_t i_;
    };
    explicit Ops(const OpWorkTable* table) : table_(table) {}
    iterator begin() const { return {table_, 0}; }
    iterator end() const { return {table_, table_->size()}; }

   private:
    const OpWorkTable* table_;
  };
  Ops all() const { return Ops(this); }
  std::optional<OpWork> find(Row row) const;

  // Every field of an answer but the row, packed (doubles as their bits).
  using AnswerKey = std::array<std::uint64_t, 8>;
  struct AnswerKeyHash {
    std::size_t operator()(const AnswerKey& key) const;
  };

  std::string_view text(std::uint32_t id) const { return texts_[id]; }
  const std::vector<OpParam>& params(std::uint32_t id) const { return param_lists_[id]; }
  const std::vector<std::string>& model_names() const { return model_names_; }

  std::string_view category(const OpWork& w) const { return text(w.category); }
  // The sheet family: the model's, or the category without a _fwd/_bwd suffix.
  std::string sheet(const OpWork& w) const;

  // The category op models give this op name (the reference's registry lookup), if claimed.
  std::optional<std::string_view> category_of_name(index::StringId name) const;
  // Whether a model (not just a category) exists for this name: the reference's resolve(name).
  bool name_has_model(index::StringId name) const;

 private:
  struct Op {
    Row row;
    std::uint32_t answer;  // index into answers_
  };
  std::vector<Op> ops_;
  index::RowBuckets op_buckets_;  // where find() searches ops_
  std::vector<OpWork> answers_;   // distinct answers (row 0)
  std::unordered_map<AnswerKey, std::uint32_t, AnswerKeyHash> answer_ids_;
  std::vector<std::string> texts_{""};  // id 0 = empty
  std::unordered_map<std::string, std::uint32_t> text_ids_;
  std::vector<std::vector<OpParam>> param_lists_{{}};  // id 0 = none
  std::unordered_map<std::string, std::uint32_t> param_ids_;
  std::vector<std::string> model_names_;
  struct NameInfo {
    std::uint32_t category = 0;
    bool has_model = false;
  };
  std::unordered_map<index::StringId, NameInfo> by_name_;
  const index::EventIndex* index_ = nullptr;

 public:
  // The index the rows belong to (for name lookups in finish()).
  void set_index(const index::EventIndex* index) { index_ = index; }
};

}  // namespace traceprism::model
