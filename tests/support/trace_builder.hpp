#pragma once

#include <string>
#include <vector>

namespace traceprism::testing {

// Assembles small Kineto documents for tests: each call appends one event object (raw JSON).
class TraceText {
 public:
  TraceText& event(const std::string& json) {
    events_.push_back(json);
    return *this;
  }
  // A complete event on the host thread (pid 100, tid 100) unless pid/tid are given.
  TraceText& x(const std::string& cat, const std::string& name, const std::string& ts,
               const std::string& dur, const std::string& args = "{}",
               const std::string& pid = "100", const std::string& tid = "100") {
    return event("{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":\"" + name + "\",\"pid\":" + pid +
                 ",\"tid\":" + tid + ",\"ts\":" + ts + ",\"dur\":" + dur + ",\"args\":" + args +
                 "}");
  }
  // An ac2g flow pair for a launch with correlation `id`: s on the host, f on the GPU row.
  TraceText& flow(int id, const std::string& host_ts, const std::string& gpu_ts, int stream) {
    event("{\"ph\":\"s\",\"id\":" + std::to_string(id) +
          ",\"pid\":100,\"tid\":100,\"ts\":" + host_ts + ",\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
    return event("{\"ph\":\"f\",\"id\":" + std::to_string(id) +
                 ",\"pid\":0,\"tid\":" + std::to_string(stream) + ",\"ts\":" + gpu_ts +
                 ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}");
  }
  // cpu_op → cudaLaunchKernel → kernel, with flows. Times in µs.
  TraceText& launch(const std::string& op, double op_ts, double op_dur, const std::string& kernel,
                    double k_ts, double k_dur, int stream, int correlation,
                    const std::string& cat = "kernel") {
    auto num = [](double v) { return std::to_string(v); };
    x("cpu_op", op, num(op_ts), num(op_dur));
    double launch_ts = op_ts + std::min(5.0, op_dur / 4);
    x("cuda_runtime", cat == "gpu_memcpy" ? "cudaMemcpyAsync" : "cudaLaunchKernel", num(launch_ts),
      "1", "{\"correlation\":" + std::to_string(correlation) + "}");
    x(cat, kernel, num(k_ts), num(k_dur),
      "{\"correlation\":" + std::to_string(correlation) + ",\"stream\":" + std::to_string(stream) +
          ",\"device\":0}",
      "0", std::to_string(stream));
    return flow(correlation, num(launch_ts), num(k_ts), stream);
  }
  std::string str(const std::string& extra_top_level = "") const {
    std::string out =
        "{" + extra_top_level + (extra_top_level.empty() ? "" : ",") + "\"traceEvents\":[";
    for (std::size_t i = 0; i < events_.size(); ++i) {
      if (i) out += ",\n";
      out += events_[i];
    }
    return out + "]}";
  }

 private:
  std::vector<std::string> events_;
};

}  // namespace traceprism::testing
