/* A plugin written in plain C99 against abi.h whose analyzer has no run function. */
#include <traceprism/abi.h>

static const traceprism_analyzer_v1 kAnalyzers[] = {
    {sizeof(traceprism_analyzer_v1), 0, "null-run", "Has no run function.", NULL, NULL, NULL, NULL},
};

static const traceprism_plugin_v1 kPlugin = {sizeof(traceprism_plugin_v1),
                                             TRACEPRISM_ABI_MAJOR,
                                             TRACEPRISM_ABI_MINOR,
                                             1,
                                             "null_run",
                                             "1.0.0",
                                             kAnalyzers,
                                             0,
                                             0,
                                             NULL};

TRACEPRISM_EXPORT const traceprism_plugin_v1* traceprism_plugin_query_v1(void) {
  return &kPlugin;
}
