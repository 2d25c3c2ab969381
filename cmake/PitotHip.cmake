# pitot's HIP (ROCm) flavour: finds hipcc and the HIP runtime, and sets PITOT_HAS_HIP.
#
# Include it from the top-level CMakeLists.txt after project(); it defines
#   pitot_hip_sources(<target> <source>...)   compile HIP sources (.hip, .cu) of a target with hipcc
#   pitot_add_hip_benchmark(<name> <source>... [LIBRARIES <lib>...])
#                                             a benchmark program whose sources are HIP
#
# Why not CMake's HIP language: CMake (3.25 at least) wants ROCm's clang and looks for
# <rocm>/lib/cmake/hip-lang, while Debian and Ubuntu ship hipcc on their clang with the config in
# lib/<multiarch>/cmake. So HIP sources are compiled by hipcc through custom commands into object
# files, and everything else (the core, the backend's host code) stays with the C++ compiler;
# the HIP runtime library (libamdhip64) is linked like any other library.
include_guard(GLOBAL)

option(PITOT_ENABLE_HIP "Build the HIP (ROCm) backend when hipcc is found" ON)
set(PITOT_HAS_HIP OFF)
if(NOT PITOT_ENABLE_HIP)
  return()
endif()

set(_pitot_rocm_hints $ENV{ROCM_PATH} $ENV{HIP_PATH} /opt/rocm)
find_program(PITOT_HIPCC hipcc HINTS ${_pitot_rocm_hints} PATH_SUFFIXES bin DOC "hipcc, the HIP compiler driver")
find_path(PITOT_HIP_INCLUDE_DIR hip/hip_runtime_api.h HINTS ${_pitot_rocm_hints} PATH_SUFFIXES include
          DOC "Directory holding hip/hip_runtime_api.h")
find_library(PITOT_AMDHIP64_LIBRARY amdhip64 HINTS ${_pitot_rocm_hints} PATH_SUFFIXES lib lib64
             DOC "The HIP runtime library (libamdhip64)")
if(NOT PITOT_HIPCC OR NOT PITOT_HIP_INCLUDE_DIR OR NOT PITOT_AMDHIP64_LIBRARY)
  message(STATUS "pitot: no HIP toolchain found (hipcc: ${PITOT_HIPCC}, headers: ${PITOT_HIP_INCLUDE_DIR}, "
                 "libamdhip64: ${PITOT_AMDHIP64_LIBRARY}); the HIP backend is left out. "
                 "On Debian/Ubuntu: apt-get install hipcc libamdhip64-dev")
  return()
endif()

# HIP version from the headers (hip_version.h: HIP_VERSION_MAJOR/MINOR/PATCH).
file(STRINGS ${PITOT_HIP_INCLUDE_DIR}/hip/hip_version.h _pitot_hip_version_lines REGEX "#define HIP_VERSION_(MAJOR|MINOR|PATCH) ")
set(PITOT_HIP_VERSION "")
foreach(part MAJOR MINOR PATCH)
  string(REGEX MATCH "HIP_VERSION_${part} ([0-9]+)" _m "${_pitot_hip_version_lines}")
  list(APPEND PITOT_HIP_VERSION ${CMAKE_MATCH_1})
endforeach()
list(JOIN PITOT_HIP_VERSION "." PITOT_HIP_VERSION)

# GPU architectures. By default: those of AMD's data-center GPUs that this hipcc can compile for
# (Debian 12's ROCm 5.2 knows gfx90a but not gfx942, the MI300's).
set(PITOT_HIP_ARCHITECTURES "" CACHE STRING
    "AMD GPU architectures to compile for (e.g. gfx90a;gfx942); empty: every one of gfx90a;gfx942;gfx950 hipcc accepts")
if(PITOT_HIP_ARCHITECTURES)
  set(PITOT_HIP_ARCHS_IN_USE ${PITOT_HIP_ARCHITECTURES})
else()
  set(PITOT_HIP_ARCHS_IN_USE "")
  set(_probe_dir ${CMAKE_BINARY_DIR}/CMakeFiles/pitot-hip-probe)
  file(WRITE ${_probe_dir}/probe.hip "#include <hip/hip_runtime.h>\n__global__ void probe(int* p) { *p = 1; }\n")
  foreach(arch gfx90a gfx942 gfx950)
    execute_process(COMMAND ${PITOT_HIPCC} -x hip --offload-arch=${arch} -c probe.hip -o probe-${arch}.o
                    WORKING_DIRECTORY ${_probe_dir} RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
    if(_rc EQUAL 0)
      list(APPEND PITOT_HIP_ARCHS_IN_USE ${arch})
    endif()
  endforeach()
  if(NOT PITOT_HIP_ARCHS_IN_USE)
    message(STATUS "pitot: hipcc (${PITOT_HIPCC}) compiled none of gfx90a, gfx942, gfx950; the HIP backend is left out. "
                   "Set PITOT_HIP_ARCHITECTURES to the architectures this hipcc supports.")
    return()
  endif()
endif()

set(PITOT_HAS_HIP ON)
message(STATUS "pitot: HIP backend ON (hipcc ${PITOT_HIPCC}, HIP ${PITOT_HIP_VERSION}, archs ${PITOT_HIP_ARCHS_IN_USE})")

# hipcc's flags for the build type, as the C++ compiler gets them.
string(TOUPPER "${CMAKE_BUILD_TYPE}" _pitot_build_type)
separate_arguments(PITOT_HIPCC_FLAGS UNIX_COMMAND "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_pitot_build_type}}")
list(APPEND PITOT_HIPCC_FLAGS -std=c++20 -fPIE -Wall -Wextra)
foreach(arch IN LISTS PITOT_HIP_ARCHS_IN_USE)
  list(APPEND PITOT_HIPCC_FLAGS --offload-arch=${arch})
endforeach()

# The HIP runtime as an imported target: headers, the platform macro the headers need when a
# plain C++ compiler reads them, and libamdhip64.
if(NOT TARGET pitot_hip_runtime)
  add_library(pitot_hip_runtime INTERFACE IMPORTED GLOBAL)
  target_include_directories(pitot_hip_runtime SYSTEM INTERFACE ${PITOT_HIP_INCLUDE_DIR})
  target_compile_definitions(pitot_hip_runtime INTERFACE __HIP_PLATFORM_AMD__)
  target_link_libraries(pitot_hip_runtime INTERFACE ${PITOT_AMDHIP64_LIBRARY})
endif()

# Compiles each HIP source with hipcc into an object of <target>, with the target's include
# directories and compile definitions (its own and those of what it links).
function(pitot_hip_sources target)
  # /usr/include is hipcc's own system directory: given again with -I it would come before the C++
  # library's headers and break their #include_next.
  set(includes "$<FILTER:$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>,EXCLUDE,^/usr/include/?$>")
  set(definitions "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  foreach(source IN LISTS ARGN)
    get_filename_component(source ${source} ABSOLUTE)
    get_filename_component(stem ${source} NAME)
    set(object_dir ${CMAKE_CURRENT_BINARY_DIR}/${target}.hip)
    set(object ${object_dir}/${stem}.o)
    file(RELATIVE_PATH shown ${PROJECT_SOURCE_DIR} ${source})
    # The rule makes its own folder: Ninja creates an output's folder, the Makefile generators do
    # not, and hipcc will not open the depfile (-MF) in a folder that is not there. A compiler
    # launcher (ccache) given for C++ wraps hipcc too, as CMake does for its own languages.
    add_custom_command(
      OUTPUT ${object}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${object_dir}
      COMMAND ${CMAKE_CXX_COMPILER_LAUNCHER} ${PITOT_HIPCC} -x hip ${PITOT_HIPCC_FLAGS}
              "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>"
              "$<$<BOOL:${definitions}>:-D$<JOIN:${definitions},;-D>>"
              -MD -MF ${object}.d -c ${source} -o ${object}
      DEPENDS ${source}
      DEPFILE ${object}.d
      COMMENT "Building HIP object ${shown}"
      COMMAND_EXPAND_LISTS VERBATIM)
    target_sources(${target} PRIVATE ${object})
  endforeach()
endfunction()

include(${CMAKE_CURRENT_LIST_DIR}/PitotBenchmark.cmake)

# A benchmark program built from HIP sources (portable .cu files or .hip files) plus any C++ ones.
# When the same build also has the CUDA backend (CI builds both), the CUDA programs keep the plain
# names: the HIP target is <name>_hip, written to <build>/hip/<name>, and left out of the
# manifest, whose program names must be unique. In a HIP-only build it is simply <name>.
function(pitot_add_hip_benchmark name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "LIBRARIES")
  set(hip_sources "")
  set(cxx_sources "")
  foreach(src IN LISTS arg_UNPARSED_ARGUMENTS)
    if(src MATCHES "\\.(cu|hip)$")
      list(APPEND hip_sources ${src})
    else()
      list(APPEND cxx_sources ${src})
    endif()
  endforeach()
  if(NOT hip_sources)
    message(FATAL_ERROR "pitot_add_hip_benchmark(${name}): give at least one .cu or .hip source")
  endif()
  set(target ${name})
  if(TARGET pitot::cuda)
    set(target ${name}_hip)
  endif()
  add_executable(${target} ${cxx_sources})
  target_link_libraries(${target} PRIVATE pitot::main pitot::hip ${arg_LIBRARIES})
  target_compile_definitions(${target} PRIVATE PITOT_PROGRAM_NAME="${name}" PITOT_BENCHMARK_BUILD_TYPE="${CMAKE_BUILD_TYPE}")
  # The linker driver is the C++ compiler: the objects from hipcc carry their GPU code inside.
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX OUTPUT_NAME ${name})
  pitot_hip_sources(${target} ${hip_sources})
  if(TARGET pitot::cuda)
    set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/hip)
  else()
    pitot_register_program(${target})  # from PitotBenchmark.cmake
  endif()
endfunction()
