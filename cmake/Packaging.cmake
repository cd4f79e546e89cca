# The Debian packages behind scripts/package.sh (docs/packaging.md), included by the top-level
# CMakeLists.txt when TRACEPRISM_PACKAGE is ON:
#   traceprism      components runtime (bin/traceprism, share/man/man1/traceprism.1.gz,
#                   share/traceprism/platforms/) and plugins (lib/traceprism/plugins/*.so, the
#                   folder the binary finds next to its own bin/); Depends from dpkg-shlibdeps,
#                   so runtime libraries only (libboost-json1.81.0, libtbb12, libzstd1, ...).
#   traceprism-dev  component sdk: the plugin SDK headers and CMake package (header only, so
#                   architecture all).
# Build them with `cpack` in the build folder; the files are <name>_<version>_<arch>.deb.
if(NOT TRACEPRISM_BUILD_PLUGINS)
  message(FATAL_ERROR "TRACEPRISM_PACKAGE needs TRACEPRISM_BUILD_PLUGINS: the package ships them")
endif()

# traceprism.1 from the built binary's --help and every command's --help, gzipped as Debian
# ships man pages.
set(TRACEPRISM_MAN_PAGE ${CMAKE_BINARY_DIR}/man/traceprism.1.gz)
add_custom_command(OUTPUT ${TRACEPRISM_MAN_PAGE}
  COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/gen_manpage.sh $<TARGET_FILE:traceprism>
    ${CMAKE_BINARY_DIR}/man/traceprism.1
  COMMAND gzip -9nf ${CMAKE_BINARY_DIR}/man/traceprism.1
  DEPENDS traceprism ${PROJECT_SOURCE_DIR}/scripts/gen_manpage.sh
  COMMENT "Generating man/traceprism.1.gz from traceprism --help"
  VERBATIM)
add_custom_target(traceprism_man ALL DEPENDS ${TRACEPRISM_MAN_PAGE})
install(FILES ${TRACEPRISM_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME traceprism)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "traceprism maintainers <traceprism@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_COMPONENTS_ALL runtime plugins sdk)

# Group "main": package traceprism.
set(CPACK_DEBIAN_MAIN_PACKAGE_NAME traceprism)
set(CPACK_DEBIAN_MAIN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_MAIN_PACKAGE_SHLIBDEPS ON)
# Descriptions: the summary line, then the extended description (CPack indents it).
set(CPACK_DEBIAN_MAIN_DESCRIPTION
  "turns PyTorch profiler traces into optimization reports
traceprism reads PyTorch profiler / Kineto Chrome-trace JSON traces and
writes a ranked optimization report (analysis.md, findings.json and
TraceLens-compatible perf-report CSVs).
This package holds the traceprism command, its default analyzer plugins,
the GPU platform files and the man page.")

# Group "dev": package traceprism-dev.
set(CPACK_DEBIAN_DEV_PACKAGE_NAME traceprism-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "traceprism (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_DEV_DESCRIPTION
  "plugin SDK for traceprism
The C ABI and the C++17 headers traceprism analyzer plugins are written
against, and the CMake package find_package(traceprismSDK) with
traceprism_add_plugin(). Header only.")

include(CPack)
cpack_add_component_group(main)
cpack_add_component_group(dev)
cpack_add_component(runtime GROUP main)
cpack_add_component(plugins GROUP main)
cpack_add_component(sdk GROUP dev)
