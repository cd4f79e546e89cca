#include "schedule/outcome_codec.hpp"

#include <cstdint>
#include <cstring>

namespace traceprism::schedule {
namespace {

using findings::Finding;

class Writer {
 public:
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void i64(std::int64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void str(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }
  std::string take() { return std::move(out_); }

 private:
  void raw(const void* p, std::size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool u64(std::uint64_t& v) { return raw(&v, sizeof v); }
  bool i64(std::int64_t& v) { return raw(&v, sizeof v); }
  bool f64(double& v) { return raw(&v, sizeof v); }
  bool str(std::string& s) {
    std::uint64_t n = 0;
    if (!u64(n) || n > in_.size() - pos_) return false;
    s.assign(in_.substr(pos_, n));
    pos_ += n;
    return true;
  }
  // A count of items that each take at least `min_bytes`: bounded by what is left.
  bool count(std::uint64_t& n, std::size_t min_bytes) {
    return u64(n) && n <= (in_.size() - pos_) / min_bytes;
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  bool raw(void* p, std::size_t n) {
    if (in_.size() - pos_ < n) return false;
    std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

void encode_table(Writer& w, const findings::DataTable& t) {
  w.str(t.title);
  w.u64(t.columns.size());
  for (const auto& c : t.columns) w.str(c);
  w.u64(t.rows.size());
  for (const auto& row : t.rows) {
    w.u64(row.size());
    for (const auto& c : row) w.str(c);
  }
}

bool decode_table(Reader& r, findings::DataTable& t) {
  std::uint64_t columns = 0, rows = 0;
  if (!r.str(t.title) || !r.count(columns, 8)) return false;
  t.columns.resize(columns);
  for (auto& c : t.columns)
    if (!r.str(c)) return false;
  if (!r.count(rows, 8)) return false;
  t.rows.resize(rows);
  for (auto& row : t.rows) {
    std::uint64_t cells = 0;
    if (!r.count(cells, 8)) return false;
    row.resize(cells);
    for (auto& c : row)
      if (!r.str(c)) return false;
  }
  return true;
}

void encode_rows(Writer& w, const std::vector<std::uint32_t>& rows) {
  w.u64(rows.size());
  for (auto r : rows) w.u64(r);
}

bool decode_rows(Reader& r, std::vector<std::uint32_t>& rows) {
  std::uint64_t n = 0;
  if (!r.count(n, 8)) return false;
  rows.resize(n);
  for (auto& row : rows) {
    std::uint64_t v = 0;
    if (!r.u64(v)) return false;
    row = static_cast<std::uint32_t>(v);
  }
  return true;
}

void encode_finding(Writer& w, const Finding& f) {
  w.i64(static_cast<std::int64_t>(f.tier));
  w.i64(static_cast<std::int64_t>(f.severity));
  w.i64(static_cast<std::int64_t>(f.impact_kind));
  for (const std::string* s :
       {&f.analyzer, &f.plugin, &f.plugin_version, &f.category, &f.key, &f.title, &f.insight,
        &f.action, &f.identification, &f.reasoning, &f.resolution, &f.library, &f.cause})
    w.str(*s);
  for (double d : {f.impact_low, f.impact_mid, f.impact_high, f.share_percent, f.confidence})
    w.f64(d);
  w.i64(f.first_evidence_ts_ns);
  encode_rows(w, f.rows);
  encode_rows(w, f.kernels);
  w.u64(f.metrics.size());
  for (const auto& [k, v] : f.metrics) w.str(k), w.f64(v);
  w.u64(f.tables.size());
  for (const auto& t : f.tables) encode_table(w, t);
}

bool decode_finding(Reader& r, Finding& f) {
  std::int64_t tier = 0, severity = 0, impact = 0;
  if (!r.i64(tier) || !r.i64(severity) || !r.i64(impact)) return false;
  f.tier = static_cast<findings::Tier>(tier);
  f.severity = static_cast<findings::Severity>(severity);
  f.impact_kind = static_cast<findings::ImpactKind>(impact);
  for (std::string* s :
       {&f.analyzer, &f.plugin, &f.plugin_version, &f.category, &f.key, &f.title, &f.insight,
        &f.action, &f.identification, &f.reasoning, &f.resolution, &f.library, &f.cause})
    if (!r.str(*s)) return false;
  for (double* d : {&f.impact_low, &f.impact_mid, &f.impact_high, &f.share_percent, &f.confidence})
    if (!r.f64(*d)) return false;
  if (!r.i64(f.first_evidence_ts_ns)) return false;
  if (!decode_rows(r, f.rows) || !decode_rows(r, f.kernels)) return false;
  std::uint64_t n = 0;
  if (!r.count(n, 16)) return false;
  f.metrics.resize(n);
  for (auto& [k, v] : f.metrics)
    if (!r.str(k) || !r.f64(v)) return false;
  if (!r.count(n, 24)) return false;
  f.tables.resize(n);
  for (auto& t : f.tables)
    if (!decode_table(r, t)) return false;
  return true;
}

}  // namespace

std::string encode_outcome(const findings::AnalyzerOutcome& o) {
  Writer w;
  w.i64(static_cast<std::int64_t>(o.status));
  w.str(o.error);
  w.u64(o.refused_findings);
  w.u64(o.findings.size());
  for (const Finding& f : o.findings) encode_finding(w, f);
  w.u64(o.figures.size());
  for (const auto& [k, v] : o.figures) w.str(k), w.f64(v);
  w.u64(o.log.size());
  for (const auto& l : o.log) w.i64(l.level), w.str(l.message);
  w.u64(o.products.size());
  for (const auto& t : o.products) encode_table(w, t);
  return w.take();
}

bool decode_outcome(std::string_view bytes, findings::AnalyzerOutcome& out) {
  Reader r(bytes);
  std::int64_t status = 0;
  std::uint64_t refused = 0, n = 0;
  if (!r.i64(status) || !r.str(out.error) || !r.u64(refused)) return false;
  out.status = static_cast<findings::AnalyzerStatus>(status);
  out.refused_findings = refused;
  if (!r.count(n, 64)) return false;
  out.findings.resize(n);
  for (Finding& f : out.findings)
    if (!decode_finding(r, f)) return false;
  if (!r.count(n, 16)) return false;
  out.figures.resize(n);
  for (auto& [k, v] : out.figures)
    if (!r.str(k) || !r.f64(v)) return false;
  if (!r.count(n, 16)) return false;
  out.log.resize(n);
  for (auto& l : out.log) {
    std::int64_t level = 0;
    if (!r.i64(level) || !r.str(l.message)) return false;
    l.level = static_cast<int>(level);
  }
  if (!r.count(n, 24)) return false;
  out.products.resize(n);
  for (auto& t : out.products)
    if (!decode_table(r, t)) return false;
  return r.done();
}

}  // namespace traceprism::schedule
