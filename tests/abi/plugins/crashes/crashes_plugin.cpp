// Misbehaving analyzers the host must survive: one dies from a segmentation fault, one never
// returns; a third, in the same plugin, reports normally. `analyze` runs each analyzer in its own
// child process, so only the first two fail ("crashed (signal 11: ...)", and "did not finish
// within N s" under --analyzer-timeout).
#include <traceprism/sdk.hpp>

#include <csignal>
#include <thread>

namespace {

class Segfaults : public traceprism::Analyzer {
 public:
  traceprism::Status run(traceprism::Context&) override {
    std::raise(SIGSEGV);  // what a null dereference does, without relying on undefined behaviour
    return traceprism::Status::kOk;
  }
};

class Hangs : public traceprism::Analyzer {
 public:
  traceprism::Status run(traceprism::Context& ctx) override {
    // Never returns unless the option says so (the option lets one test use the plugin without
    // a timeout).
    if (ctx.option("Hang", true))
      for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return traceprism::Status::kOk;
  }
};

class Survives : public traceprism::Analyzer {
 public:
  traceprism::Status run(traceprism::Context& ctx) override {
    ctx.record("ran", 1);
    ctx.report(traceprism::Tier::kSystem, "abi-test", "crash-survivor ran next to a crash")
        .key("survivor")
        .severity(traceprism::Severity::kInfo)
        .insight("It ran.")
        .emit();
    return traceprism::Status::kOk;
  }
};

constexpr traceprism_option_v1 kHangOptions[] = {{"Hang", "true", "Loop forever."}};

TRACEPRISM_ANALYZERS(traceprism::analyzer<Hangs>("crash-hang", "Never returns.", kHangOptions),
                     traceprism::analyzer<Segfaults>("crash-segv", "Dies from SIGSEGV."),
                     traceprism::analyzer<Survives>("crash-survivor", "Emits one finding."));

}  // namespace

TRACEPRISM_PLUGIN("crashes", "1.0.0");
