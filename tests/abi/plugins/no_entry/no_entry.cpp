// A shared library that looks like a plugin by name but exports no traceprism_plugin_query_v1.
#include <traceprism/abi.h>

extern "C" TRACEPRISM_EXPORT int traceprism_plugin_query_v0(void) {
  return 0;
}
