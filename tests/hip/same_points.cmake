# cmake -DFIRST=<program> -DSECOND=<program> -DOUT=<dir> -P same_points.cmake
# Fails unless both programs' `--list --json` are the same (program name, benchmarks, points) apart
# from the backend each was built for and that backend's toolkit in its requirements (a program's
# env names its own toolkit only, so a CUDA program's requirements never name HIP nor a HIP
# program's CUDA: with the other's toolkit left in, the texts differ and this fails).
file(MAKE_DIRECTORY ${OUT})
foreach(which FIRST SECOND)
  execute_process(COMMAND ${${which}} --list --json ${OUT}/${which}.json RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${${which}} --list --json exited ${rc}")
  endif()
  file(READ ${OUT}/${which}.json text)
  string(JSON ${which}_backend ERROR_VARIABLE no_backend GET "${text}" backend)
  string(JSON text ERROR_VARIABLE ignored REMOVE "${text}" backend)
  string(JSON ${which}_text ERROR_VARIABLE ignored REMOVE "${text}" requirements ${${which}_backend})
endforeach()
if(NOT FIRST_text STREQUAL SECOND_text)
  message(FATAL_ERROR "the two builds list different points:\n${FIRST}:\n${FIRST_text}\n${SECOND}:\n${SECOND_text}")
endif()
if(FIRST_backend STREQUAL SECOND_backend AND NOT FIRST_backend STREQUAL "")
  message(FATAL_ERROR "both builds say backend ${FIRST_backend}")
endif()
string(LENGTH "${FIRST_text}" length)
if(length LESS 100)
  message(FATAL_ERROR "suspiciously short listing: ${FIRST_text}")
endif()
message(STATUS "same points in both builds (backends: ${FIRST_backend}, ${SECOND_backend})")
