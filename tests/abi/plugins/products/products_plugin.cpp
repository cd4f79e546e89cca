// Products (ABI 1.2): one analyzer publishes a table, one that depends on it reads it, one
// that does not depend on it must not see it. Each records what it saw as figures.
#include <traceprism/sdk.hpp>

namespace {

// Publishes one row per kernel name it sees (at most three), and the python tree's size.
class Publisher : public traceprism::Analyzer {
 public:
  traceprism::Status run(traceprism::Context& ctx) override {
    traceprism::Table kernels("", {"kernel_name", "ordinal"});
    const auto events = ctx.events();
    int n = 0;
    for (traceprism::Row r : ctx.rows(traceprism::Kind::kKernel)) {
      if (n == 3) break;
      kernels.row({std::string(events.name(r)), std::to_string(++n)});
    }
    ctx.record("published", ctx.publish("products.kernels", kernels) ? 1.0 : 0.0);
    ctx.record("python_tree_rows", static_cast<double>(ctx.python_tree_parents().size()));
    ctx.record("event_rows", static_cast<double>(events.size()));
    return traceprism::Status::kOk;
  }
};

// Records how many rows of the product it read (-1: none).
class Reader : public traceprism::Analyzer {
 public:
  traceprism::Status run(traceprism::Context& ctx) override {
    const auto product = ctx.product("products.kernels");
    ctx.record("rows", product ? static_cast<double>(product->row_count()) : -1.0);
    if (product && product->row_count() > 0)
      ctx.record("first_ordinal", product->number(0, "ordinal"));
    return traceprism::Status::kOk;
  }
};

constexpr const char* kReaderDependencies[] = {"products-publisher", "?products-not-loaded",
                                               nullptr};

TRACEPRISM_ANALYZERS(
    traceprism::analyzer<Publisher>("products-publisher", "Publishes a table of kernel names."),
    traceprism::analyzer<Reader>("products-reader", "Reads the publisher's table.",
                                 kReaderDependencies),
    traceprism::analyzer<Reader>("products-stranger",
                                 "Reads the table without depending on the publisher."));

}  // namespace

TRACEPRISM_PLUGIN("products", "1.0.0");
