# traceprism_add_plugin(<name> SOURCES <files...> [ABI_MINOR <n>] [OUTPUT_DIRECTORY <dir>]
#                       [INSTALL])
#
# Builds the plugin <name> as a loadable module libtraceprism_<name>.so (.dylib, .dll) against
# the SDK headers only (target traceprism::sdk):
#  - hidden visibility: only TRACEPRISM_EXPORT symbols (traceprism_plugin_query_v1) are visible;
#  - position-independent code, and no undefined symbols left at link time (Linux): a plugin
#    uses the host only through the host API table it is handed;
#  - ABI_MINOR <n>: the lowest host minor version the plugin needs (TRACEPRISM_PLUGIN_ABI_MINOR;
#    default: the minor of the SDK it is built against). sdk.hpp writes it into the plugin's
#    traceprism_plugin_v1, and a host older than that refuses the plugin with a sentence;
#  - OUTPUT_DIRECTORY <dir>: where the module is written (default: the CMake default);
#  - INSTALL: `cmake --install` copies the module to <prefix>/<libdir>/traceprism/plugins,
#    the folder the host searches, as component "plugins".
# The plugin target is named <name>; add more sources, definitions or libraries to it as usual.
include_guard(GLOBAL)
include(GNUInstallDirs)

function(traceprism_add_plugin name)
  cmake_parse_arguments(ARG "INSTALL" "ABI_MINOR;OUTPUT_DIRECTORY" "SOURCES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "traceprism_add_plugin(${name}): SOURCES is required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "traceprism_add_plugin(${name}): unexpected arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(DEFINED ARG_ABI_MINOR AND NOT ARG_ABI_MINOR MATCHES "^[0-9]+$")
    message(FATAL_ERROR "traceprism_add_plugin(${name}): ABI_MINOR must be a number")
  endif()

  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE traceprism::sdk)
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME "traceprism_${name}"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON)
  if(DEFINED ARG_ABI_MINOR)
    target_compile_definitions(${name} PRIVATE TRACEPRISM_PLUGIN_ABI_MINOR=${ARG_ABI_MINOR})
  endif()
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  endif()
  # Any symbol the plugin does not define itself (or get from the C/C++ runtime) is an error.
  # Not under sanitizers: their runtime lives in the executable, so an instrumented module has
  # undefined __asan_*/__ubsan_* references by design.
  if(NOT APPLE AND NOT WIN32 AND NOT TRACEPRISM_SANITIZE
     AND NOT "${CMAKE_CXX_FLAGS} ${CMAKE_C_FLAGS}" MATCHES "-fsanitize")
    target_link_options(${name} PRIVATE "LINKER:--no-undefined")
  endif()
  # Where traceprism looks: <its prefix>/lib/traceprism/plugins. Not CMAKE_INSTALL_LIBDIR, which
  # is lib/<multiarch> for a /usr prefix on Debian, a folder the binary never searches.
  if(ARG_INSTALL)
    install(TARGETS ${name}
      LIBRARY DESTINATION lib/traceprism/plugins COMPONENT plugins
      RUNTIME DESTINATION lib/traceprism/plugins COMPONENT plugins)
  endif()
endfunction()
