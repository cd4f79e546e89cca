#include "validate/findings_invariants.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string_view>

#include "findings/cause.hpp"

namespace traceprism::validate {
namespace {

namespace json = boost::json;

// Percentages are written unrounded; sums of them drift by float rounding only.
constexpr double kPercentTolerance = 0.01;
constexpr double kMicrosecondTolerance = 0.01;

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

const json::object* object_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

const json::array* array_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_array() ? &v->as_array() : nullptr;
}

std::optional<double> number_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (!v || !v->is_number()) return std::nullopt;
  return v->to_number<double>();
}

std::string string_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

bool is_idle_cause(std::string_view key) {
  for (std::size_t i = 0; i < findings::kIdleCauseCount; ++i)
    if (findings::kCauses[i] == key) return true;
  return false;
}

class Checker {
 public:
  explicit Checker(const json::object& root) : root_(root) {}

  std::vector<std::string> run() {
    check_gpu_split();
    check_findings();
    check_shared_kernels();
    if (const json::object* d = object_at(root_, "diagnosis")) check_diagnosis(*d);
    return std::move(problems_);
  }

 private:
  void problem(std::string text) { problems_.push_back(std::move(text)); }

  // computation + exposed communication + exposed copies + idle: each µs of the window once.
  void check_gpu_split() {
    const json::object* u = object_at(root_, "gpu_utilization");
    if (!u || number_at(*u, "gpu_events").value_or(0) == 0) return;
    double sum = 0;
    for (const char* key : {"computation_time_percent", "exposed_comm_time_percent",
                            "exposed_memcpy_time_percent", "idle_time_percent"}) {
      const double v = number_at(*u, key).value_or(0);
      if (v < -kPercentTolerance || v > 100 + kPercentTolerance)
        problem(std::string("gpu_utilization.") + key + " is " + number(v) + ", outside 0..100 %");
      sum += v;
    }
    if (std::fabs(sum - 100) > kPercentTolerance)
      problem(
          "gpu_utilization's computation, exposed communication, exposed copy and idle "
          "shares sum to " +
          number(sum) + " %, not 100 %");
  }

  void check_findings() {
    const json::array* list = array_at(root_, "findings");
    if (!list) return;
    for (const json::value& v : *list) {
      if (!v.is_object()) continue;
      const json::object& f = v.as_object();
      const std::string id = string_at(f, "id");
      ids_[id] = string_at(f, "cause");
      const json::value* cause = f.if_contains("cause");
      if (cause && !cause->is_null() &&
          (!cause->is_string() || !findings::is_known_cause(cause->as_string())))
        problem("finding " + id + " has a cause outside the vocabulary of docs/report-format.md");
      check_impact(id, f);
      const auto share = number_at(f, "share_percent");
      if (share && *share > 100 + kPercentTolerance)
        problem("finding " + id + " covers " + number(*share) + " % of the run, above 100 %");
    }
  }

  // diagnosis.md §1.5: time reported elsewhere is part of the finding's kernel time and points
  // at a finding of the report; the impact left is the emitted one shrunk in proportion; a
  // folded finding names the finding it repeats.
  void check_shared_kernels() {
    const json::array* list = array_at(root_, "findings");
    if (!list) return;
    for (const json::value& v : *list) {
      if (!v.is_object()) continue;
      const json::object* shared = object_at(v.as_object(), "shared_kernels");
      if (shared) check_shared(string_at(v.as_object(), "id"), v.as_object(), *shared);
    }
    if (const json::array* folded = array_at(root_, "folded_findings"))
      for (const json::value& v : *folded) {
        if (!v.is_object()) continue;
        const json::value* into = v.as_object().if_contains("folded_into");
        if (into && into->is_string() && !ids_.count(std::string(into->as_string())))
          problem("folded finding " + string_at(v.as_object(), "key") + " is folded into '" +
                  std::string(into->as_string()) + "', which is no finding");
      }
  }

  void check_shared(const std::string& id, const json::object& f, const json::object& shared) {
    const double total = number_at(shared, "kernel_time_us").value_or(0);
    double elsewhere = 0;
    if (const json::array* where = array_at(shared, "reported_elsewhere"))
      for (const json::value& e : *where) {
        if (!e.is_object()) continue;
        elsewhere += number_at(e.as_object(), "time_us").value_or(0);
        const std::string owner = string_at(e.as_object(), "finding");
        if (!owner.empty() && !ids_.count(owner))
          problem("finding " + id + " says part of its kernel time is under '" + owner +
                  "', which is no finding");
      }
    if (elsewhere > total + kMicrosecondTolerance)
      problem("finding " + id + " reports " + number(elsewhere) + " µs of its kernels elsewhere, " +
              "more than their " + number(total) + " µs");
    const json::object* impact = object_at(f, "impact");
    const json::object* emitted = object_at(shared, "impact_as_emitted");
    if (!impact || !emitted || total <= 0 || string_at(*impact, "kind") == "not_quantifiable")
      return;
    const double own = std::max(0.0, 1.0 - elsewhere / total);
    for (const char* key : {"low", "mid", "high"}) {
      const double left = number_at(*impact, key).value_or(0);
      const double expected = number_at(*emitted, key).value_or(0) * own;
      if (std::fabs(left - expected) > 1e-6 * std::max(1.0, std::fabs(expected)))
        problem("finding " + id + "'s impact " + key + " " + number(left) +
                " is not its emitted impact times the share of its kernel time it keeps (" +
                number(expected) + ")");
    }
  }

  void check_impact(const std::string& id, const json::object& f) {
    const json::object* impact = object_at(f, "impact");
    if (!impact || string_at(*impact, "kind") == "not_quantifiable") return;
    const double low = number_at(*impact, "low").value_or(0);
    const double mid = number_at(*impact, "mid").value_or(0);
    const double high = number_at(*impact, "high").value_or(0);
    if (!(low <= mid + 1e-9 && mid <= high + 1e-9))
      problem("finding " + id + " has impact low " + number(low) + ", mid " + number(mid) +
              ", high " + number(high) + ": not ordered");
    if (low < -1e-9 || high > 100 + kPercentTolerance)
      problem("finding " + id + " has an impact outside 0..100 % of the run");
  }

  void check_diagnosis(const json::object& d) {
    const double window = number_at(d, "window_us").value_or(0);
    const double idle = number_at(d, "idle_us").value_or(0);
    if (idle > window + kMicrosecondTolerance)
      problem("diagnosis.idle_us " + number(idle) + " exceeds window_us " + number(window));
    check_idle_by_cause(d, window, idle);
    check_computation_by_category(d, window);
    check_steps(d);
    check_first(d);
  }

  void check_idle_by_cause(const json::object& d, double window, double idle) {
    const json::array* causes = array_at(d, "idle_by_cause");
    if (!causes) return problem("diagnosis has no idle_by_cause array");
    double sum = 0, of_idle = 0, previous = INFINITY;
    for (const json::value& v : *causes) {
      if (!v.is_object()) continue;
      const json::object& c = v.as_object();
      const std::string cause = string_at(c, "cause");
      if (!is_idle_cause(cause))
        problem("diagnosis.idle_by_cause has '" + cause + "', not an idle cause");
      const double us = number_at(c, "idle_us").value_or(0);
      if (us > previous) problem("diagnosis.idle_by_cause is not sorted by idle_us, largest first");
      previous = us;
      sum += us;
      of_idle += number_at(c, "percent_of_idle").value_or(0);
      const double e2e = number_at(c, "percent_of_e2e").value_or(0);
      if (window > 0 && std::fabs(e2e - us / window * 100) > kPercentTolerance)
        problem("diagnosis.idle_by_cause " + cause + ": percent_of_e2e " + number(e2e) +
                " is not idle_us / window_us");
    }
    if (std::fabs(sum - idle) > kMicrosecondTolerance + 1e-9 * idle)
      problem("diagnosis.idle_by_cause sums to " + number(sum) + " µs, but idle_us is " +
              number(idle));
    if (idle > 0 && std::fabs(of_idle - 100) > kPercentTolerance)
      problem("diagnosis.idle_by_cause's percent_of_idle sum to " + number(of_idle) + ", not 100");
  }

  // A partition of computation time: every percent in 0..100, summing to 100, within the window.
  void check_computation_by_category(const json::object& d, double window) {
    const json::array* categories = array_at(d, "computation_by_category");
    if (!categories || categories->empty()) return;
    double percent = 0, us = 0;
    for (const json::value& v : *categories) {
      if (!v.is_object()) continue;
      const json::object& c = v.as_object();
      const double p = number_at(c, "percent").value_or(0);
      if (p < 0 || p > 100 + kPercentTolerance)
        problem("diagnosis.computation_by_category " + string_at(c, "category") + " is " +
                number(p) + " %, outside 0..100 %");
      if (number_at(c, "modeled_us").value_or(0) > number_at(c, "time_us").value_or(0) + 1e-6)
        problem("diagnosis.computation_by_category " + string_at(c, "category") +
                ": modeled_us exceeds time_us");
      percent += p;
      us += number_at(c, "time_us").value_or(0);
    }
    if (std::fabs(percent - 100) > kPercentTolerance)
      problem("diagnosis.computation_by_category's percents sum to " + number(percent) +
              ", not 100");
    if (us > window + kMicrosecondTolerance)
      problem("diagnosis.computation_by_category sums to " + number(us) +
              " µs, more than window_us " + number(window));
    const std::optional<double> covered = number_at(d, "compute_coverage_percent");
    if (covered && (*covered < 0 || *covered > 100 + kPercentTolerance))
      problem("diagnosis.compute_coverage_percent is " + number(*covered) + ", outside 0..100 %");
  }

  void check_steps(const json::object& d) {
    const json::array* steps = array_at(d, "steps");
    if (!steps) return;
    for (const json::value& v : *steps) {
      if (!v.is_object()) continue;
      const json::object& s = v.as_object();
      // A serving step's figures are over the GPU work it launched (gpu_span_us), which runs
      // after its host range.
      const std::optional<double> span = number_at(s, "gpu_span_us");
      const bool over_span = span && *span > 0;
      const double dur = over_span ? *span : number_at(s, "dur_us").value_or(0);
      const double parts =
          number_at(s, "gpu_busy_us").value_or(0) + number_at(s, "idle_us").value_or(0);
      if (parts > dur + kMicrosecondTolerance)
        problem("diagnosis step " + string_at(s, "name") +
                ": GPU busy plus idle time exceeds the " +
                (over_span ? "GPU span of the work it launched" : "step's duration"));
    }
  }

  void check_first(const json::object& d) {
    const json::value* first = d.if_contains("first");
    if (!first || first->is_null()) {
      if (!ids_.empty()) problem("diagnosis.first is null, but findings.json has findings");
      return;
    }
    if (!first->is_object()) return problem("diagnosis.first is not an object");
    const std::string id = string_at(first->as_object(), "finding");
    const auto it = ids_.find(id);
    if (it == ids_.end()) return problem("diagnosis.first names '" + id + "', which is no finding");
    if (string_at(first->as_object(), "cause") != it->second)
      problem("diagnosis.first's cause is not the cause of finding " + id);
  }

  const json::object& root_;
  std::map<std::string, std::string> ids_;  // finding id -> cause ("" for null)
  std::vector<std::string> problems_;
};

}  // namespace

std::vector<std::string> findings_invariant_problems(const json::object& root) {
  return Checker(root).run();
}

}  // namespace traceprism::validate
