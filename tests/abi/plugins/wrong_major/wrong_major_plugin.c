/* A plugin built for a future ABI 2.x: only the frozen prefix of traceprism_plugin_v1
 * (struct_size, abi_major, abi_minor) is meaningful to a 1.x host, which must refuse it. */
#include <traceprism/abi.h>

static const traceprism_plugin_v1 kPlugin = {
    sizeof(traceprism_plugin_v1), 2, 0, 0, "wrong_major", "2.0.0", NULL, 0, 0, NULL};

TRACEPRISM_EXPORT const traceprism_plugin_v1* traceprism_plugin_query_v1(void) {
  return &kPlugin;
}
