# The out-of-tree plugin path, end to end (run by CTest as `cmake -D... -P` this file):
#  1. cmake --install <build> --prefix <work>/prefix --component sdk
#  2. find_package(traceprismSDK) accepts 1.0 and refuses 2.0 (SameMajorVersion)
#  3. configure, build and unit-test sdk/examples/hello_plugin against <work>/prefix only
#  4. cmake --install of the example puts the module in <prefix>/lib/traceprism/plugins
#  5. traceprism synth + traceprism analyze --plugin-dir <example build>: findings.json holds
#     the hello finding and analysis.md its title
# <work> is removed at the start and at the end, also on failure.
cmake_minimum_required(VERSION 3.20)
# SDK_CMAKE_DIR: where the build installs the CMake package, relative to the prefix
# (lib/cmake/traceprismSDK, or lib/<multiarch>/... in a build configured for /usr).
foreach(var BUILD_DIR SOURCE_DIR TRACEPRISM WORK_DIR GENERATOR CXX_COMPILER SDK_VERSION
    MODULE_SUFFIX SDK_CMAKE_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "sdk_consumer_test.cmake: -D${var}=... is required")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
set(hello_build ${WORK_DIR}/hello)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(fail message)
  file(REMOVE_RECURSE ${WORK_DIR})
  message(FATAL_ERROR "sdk_consumer: ${message}")
endfunction()

# Runs a command; fails the test with its output unless it exits 0.
function(step name)
  message(STATUS "sdk_consumer: ${name}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    fail("${name} failed (${rc}):\n${ARGN}\n${out}")
  endif()
endfunction()

# 1. The SDK alone, as a third party gets it.
step("install the SDK" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component sdk)
foreach(f include/traceprism/abi.h include/traceprism/sdk.hpp include/traceprism/testing.hpp
    ${SDK_CMAKE_DIR}/traceprismSDKConfig.cmake
    ${SDK_CMAKE_DIR}/traceprismSDKConfigVersion.cmake
    ${SDK_CMAKE_DIR}/traceprism_add_plugin.cmake)
  if(NOT EXISTS ${prefix}/${f})
    fail("the sdk component did not install ${f}")
  endif()
endforeach()
file(GLOB_RECURSE extra RELATIVE ${prefix} ${prefix}/bin/* ${prefix}/lib/traceprism/*)
if(extra)
  fail("the sdk component installed more than the SDK: ${extra}")
endif()

set(common -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)

# 2. The package version is the ABI version; another major is not compatible.
file(WRITE ${WORK_DIR}/probe/CMakeLists.txt [[
cmake_minimum_required(VERSION 3.20)
project(probe LANGUAGES CXX)
find_package(traceprismSDK 2.0 QUIET)
if(traceprismSDK_FOUND)
  message(FATAL_ERROR "find_package(traceprismSDK 2.0) accepted SDK ${traceprismSDK_VERSION}")
endif()
find_package(traceprismSDK 1.0 REQUIRED)
if(NOT TARGET traceprism::sdk OR NOT COMMAND traceprism_add_plugin)
  message(FATAL_ERROR "traceprismSDK gave no traceprism::sdk or no traceprism_add_plugin()")
endif()
file(WRITE ${CMAKE_BINARY_DIR}/found.txt "${traceprismSDK_VERSION};${traceprismSDK_DIR}")
]])
step("probe find_package versions" ${CMAKE_COMMAND} -S ${WORK_DIR}/probe -B ${WORK_DIR}/probe/build
  ${common})
file(READ ${WORK_DIR}/probe/build/found.txt found)
list(GET found 0 found_version)
list(GET found 1 found_dir)
if(NOT found_version VERSION_EQUAL SDK_VERSION)
  fail("installed SDK version is ${found_version}, expected ${SDK_VERSION}")
endif()
file(REAL_PATH ${found_dir} found_dir)
file(REAL_PATH ${prefix} real_prefix)
string(FIND "${found_dir}" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  fail("find_package found the SDK in ${found_dir}, not in ${prefix}")
endif()

# 3. The example, built and unit-tested against the installed SDK only. Configured for /usr, as a
# distribution builds it (GNUInstallDirs' libdir is then lib/<multiarch> on Debian).
step("configure hello_plugin" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/sdk/examples/hello_plugin
  -B ${hello_build} ${common} -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
  -DCMAKE_INSTALL_PREFIX=/usr)
step("build hello_plugin" ${CMAKE_COMMAND} --build ${hello_build})
step("unit-test hello_plugin" ${CMAKE_CTEST_COMMAND} --test-dir ${hello_build}
  --output-on-failure)
set(module ${hello_build}/libtraceprism_hello${MODULE_SUFFIX})
if(NOT EXISTS ${module})
  fail("hello_plugin did not produce ${module}")
endif()

# 4. traceprism_add_plugin(... INSTALL) installs the module where the host looks, whatever
# the libdir.
step("install hello_plugin" ${CMAKE_COMMAND} --install ${hello_build} --prefix ${prefix})
if(NOT EXISTS ${prefix}/lib/traceprism/plugins/libtraceprism_hello${MODULE_SUFFIX})
  fail("cmake --install did not put the plugin in ${prefix}/lib/traceprism/plugins")
endif()

# 5. The host loads it from --plugin-dir and reports its finding.
set(trace ${WORK_DIR}/trace.json)
set(out ${WORK_DIR}/report)
step("synthesize a trace" ${TRACEPRISM} synth -o ${trace} --layers 1 --steps 1 --seed 11)
step("analyze with --plugin-dir" ${TRACEPRISM} analyze ${trace} --plugin-dir ${hello_build}
  -o ${out})
file(READ ${out}/findings.json findings)
string(JSON count ERROR_VARIABLE error LENGTH "${findings}" findings)
if(error)
  fail("findings.json has no findings array: ${error}")
endif()
set(title "")
if(count GREATER 0)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON analyzer GET "${findings}" findings ${i} analyzer)
    if(analyzer STREQUAL "hello")
      string(JSON category GET "${findings}" findings ${i} category)
      string(JSON key GET "${findings}" findings ${i} key)
      string(JSON tier GET "${findings}" findings ${i} tier)
      string(JSON title GET "${findings}" findings ${i} title)
      break()
    endif()
  endforeach()
endif()
if(NOT title MATCHES "^Hello from an out-of-tree plugin: [1-9][0-9]* kernels seen$")
  fail("findings.json has no hello finding with the expected title (got '${title}')")
endif()
if(NOT category STREQUAL "hello" OR NOT key STREQUAL "hello")
  fail("the hello finding has category '${category}' and key '${key}'")
endif()
file(READ ${out}/analysis.md report)
string(FIND "${report}" "${title}" at)
if(at EQUAL -1)
  fail("analysis.md does not contain '${title}'")
endif()

message(STATUS "sdk_consumer: ok (${title}; tier ${tier})")
file(REMOVE_RECURSE ${WORK_DIR})
