# cmake -P script behind the consumer build tests (see examples/CMakeLists.txt).
#
#   cmake -DMODE=install|find_package|add_subdirectory|fetchcontent
#         -DROWWISE_SOURCE_DIR=... -DCONSUMER_SOURCE_DIR=... -DWORK_DIR=... -DPREFIX=...
#         [-DGENERATOR=...] [-DMAKE_PROGRAM=...] [-DCXX_COMPILER=...] [-DCUDA_COMPILER=...]
#         [-DCUDA_ARCHITECTURES=90 (comma-separated list)] [-DBUILD_TYPE=Release]
#         -P run_consumer_test.cmake
#
# install: configure rowwise alone into WORK_DIR (no tests/bench/examples, so no CUDA language)
#          and install it into PREFIX.
# others:  configure examples/consumer with CONSUMER_MODE=MODE into WORK_DIR, build it, run it.
# Every step must succeed; the first failure ends the script with an error.
cmake_minimum_required(VERSION 3.21)

foreach(_var MODE ROWWISE_SOURCE_DIR CONSUMER_SOURCE_DIR WORK_DIR PREFIX)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer_test.cmake: -D${_var}=... is required")
  endif()
endforeach()
if(NOT DEFINED BUILD_TYPE OR BUILD_TYPE STREQUAL "")
  set(BUILD_TYPE Release)
endif()
if(NOT DEFINED CUDA_ARCHITECTURES OR CUDA_ARCHITECTURES STREQUAL "")
  set(CUDA_ARCHITECTURES 90)
endif()
# "80,90" -> one argument -DCMAKE_CUDA_ARCHITECTURES=80;90 (the escaped ';' survives list expansion)
string(REPLACE "," "\\;" _archs_arg "${CUDA_ARCHITECTURES}")

set(_tool_args "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
if(GENERATOR)
  list(APPEND _tool_args -G "${GENERATOR}")
endif()
if(MAKE_PROGRAM)
  list(APPEND _tool_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(CXX_COMPILER)
  list(APPEND _tool_args "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
if(CUDA_COMPILER)
  list(APPEND _tool_args "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}")
endif()

function(step name)
  string(REPLACE ";" " " _shown "${ARGN}")
  message(STATUS "[${MODE}] ${name}: ${_shown}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "[${MODE}] ${name} FAILED (${_rc})")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")

if(MODE STREQUAL "install")
  file(REMOVE_RECURSE "${PREFIX}")
  step(configure ${CMAKE_COMMAND} -S "${ROWWISE_SOURCE_DIR}" -B "${WORK_DIR}" ${_tool_args}
       "-DCMAKE_INSTALL_PREFIX=${PREFIX}"
       -DROWWISE_BUILD_TESTS=OFF -DROWWISE_BUILD_BENCHMARKS=OFF -DROWWISE_BUILD_EXAMPLES=OFF)
  step(build ${CMAKE_COMMAND} --build "${WORK_DIR}" --config ${BUILD_TYPE})
  step(install ${CMAKE_COMMAND} --install "${WORK_DIR}" --config ${BUILD_TYPE})
  foreach(_f include/rowwise/version.hpp share/cmake/rowwise/rowwise-config.cmake
             share/cmake/rowwise/rowwise-config-version.cmake share/cmake/rowwise/rowwise-targets.cmake)
    if(NOT EXISTS "${PREFIX}/${_f}")
      message(FATAL_ERROR "[install] ${PREFIX}/${_f} was not installed")
    endif()
  endforeach()
  message(STATUS "[install] rowwise installed into ${PREFIX}")
  return()
endif()

if(NOT MODE MATCHES "^(find_package|add_subdirectory|fetchcontent)$")
  message(FATAL_ERROR "run_consumer_test.cmake: unknown MODE '${MODE}'")
endif()

set(_consumer_args "-DCONSUMER_MODE=${MODE}" "-DCMAKE_CUDA_ARCHITECTURES=${_archs_arg}")
if(MODE STREQUAL "find_package")
  # Only the install prefix: the test must not find rowwise anywhere else.
  list(APPEND _consumer_args "-DCMAKE_PREFIX_PATH=${PREFIX}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
else()
  list(APPEND _consumer_args "-DROWWISE_SOURCE_DIR=${ROWWISE_SOURCE_DIR}")
endif()

step(configure ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}" ${_tool_args} ${_consumer_args})
step(build ${CMAKE_COMMAND} --build "${WORK_DIR}" --config ${BUILD_TYPE})

# Run it: it must link and load; without a GPU it reports so and exits 0.
set(_exe "${WORK_DIR}/consumer")
if(NOT EXISTS "${_exe}" AND EXISTS "${WORK_DIR}/${BUILD_TYPE}/consumer")
  set(_exe "${WORK_DIR}/${BUILD_TYPE}/consumer")
endif()
step(run "${_exe}")
message(STATUS "[${MODE}] consumer configured, built and ran")
