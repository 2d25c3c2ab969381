# pitot_add_benchmark(<name> <source>... [LIBRARIES <lib>...])
# Builds one benchmark program linked to pitot's main and records it in the build's
# manifest (pitot-manifest.json), which `pitot run` reads.
include_guard(GLOBAL)

function(pitot_add_benchmark name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "LIBRARIES")
  set(sources ${arg_UNPARSED_ARGUMENTS})
  if(NOT sources)
    message(FATAL_ERROR "pitot_add_benchmark(${name}): give at least one source file")
  endif()
  add_executable(${name} ${sources})
  target_link_libraries(${name} PRIVATE pitot::main ${arg_LIBRARIES})
  set(uses_cuda OFF)
  foreach(src IN LISTS sources)
    if(src MATCHES "\\.cu$")
      set(uses_cuda ON)
    endif()
  endforeach()
  if(uses_cuda)
    if(NOT TARGET pitot::cuda)
      message(FATAL_ERROR "pitot_add_benchmark(${name}): CUDA sources need pitot's CUDA backend, which this build lacks")
    endif()
    target_link_libraries(${name} PRIVATE pitot::cuda)
  endif()
  # The benchmark's own build type, recorded by PITOT_BENCHMARK in its sources (asv env name,
  # the table's warning for an unoptimized build): not the one pitot itself was built with.
  target_compile_definitions(${name} PRIVATE PITOT_PROGRAM_NAME="${name}" PITOT_BENCHMARK_BUILD_TYPE="$<CONFIG>")
  pitot_register_program(${name})
endfunction()

# Lists a program target in the build's manifest (pitot_add_benchmark and the HIP flavour's
# pitot_add_hip_benchmark call it).
function(pitot_register_program target)
  set_property(GLOBAL APPEND PROPERTY PITOT_BENCHMARK_PROGRAMS ${target})
  # The manifest is written once, after the whole project is configured.
  get_property(deferred GLOBAL PROPERTY PITOT_MANIFEST_DEFERRED)
  if(NOT deferred)
    set_property(GLOBAL PROPERTY PITOT_MANIFEST_DEFERRED ON)
    cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _pitot_write_manifest_now)
  endif()
endfunction()

# Writes <build>/pitot-manifest.json listing every program's name and path.

function(_pitot_write_manifest_now)
  get_property(programs GLOBAL PROPERTY PITOT_BENCHMARK_PROGRAMS)
  set(entries "")
  foreach(p IN LISTS programs)
    list(APPEND entries "    {\"name\": \"${p}\", \"path\": \"$<TARGET_FILE:${p}>\"}")
  endforeach()
  list(JOIN entries ",\n" body)
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/pitot-manifest.json
       CONTENT "{\n  \"version\": 1,\n  \"programs\": [\n${body}\n  ]\n}\n")
endfunction()
