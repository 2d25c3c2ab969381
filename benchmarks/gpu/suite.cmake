# The bundled GPU suite: one program per op family, shapes from common/shapes.cpp.
# Included by benchmarks/gpu/CMakeLists.txt (only when CUDA is on).

# The CPU side (shapes, number formats, references): also compiled into tests/suite/.
add_library(pitot_suite_common STATIC
  ${CMAKE_CURRENT_LIST_DIR}/common/shapes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/common/numerics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/common/reference.cpp
  ${CMAKE_CURRENT_LIST_DIR}/common/check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/common/plan_cache.cpp)
target_include_directories(pitot_suite_common PUBLIC ${CMAKE_CURRENT_LIST_DIR}/common)
target_compile_options(pitot_suite_common PRIVATE ${PITOT_WARNINGS})

# Device helpers (fills, copies); links pitot's CUDA backend for PITOT_GPU_CHECK.
add_library(pitot_suite_device STATIC ${CMAKE_CURRENT_LIST_DIR}/common/device.cu)
target_link_libraries(pitot_suite_device PUBLIC pitot_suite_common pitot::cuda)

pitot_add_benchmark(bench_memory ${CMAKE_CURRENT_LIST_DIR}/bench_memory.cu LIBRARIES pitot_suite_device)
pitot_add_benchmark(bench_norm ${CMAKE_CURRENT_LIST_DIR}/bench_norm.cu LIBRARIES pitot_suite_device)
pitot_add_benchmark(bench_cast ${CMAKE_CURRENT_LIST_DIR}/bench_cast.cu LIBRARIES pitot_suite_device)
pitot_add_benchmark(bench_gemm ${CMAKE_CURRENT_LIST_DIR}/bench_gemm.cu LIBRARIES pitot_suite_device CUDA::cublasLt)

# Attention needs cuDNN 9 (the graph API); without it the program is left out, not the build.
find_path(PITOT_CUDNN_INCLUDE_DIR cudnn_graph.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
find_library(PITOT_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib
             ${CUDAToolkit_LIBRARY_ROOT}/lib64)
if(PITOT_CUDNN_INCLUDE_DIR AND PITOT_CUDNN_LIBRARY)
  pitot_add_benchmark(bench_attention ${CMAKE_CURRENT_LIST_DIR}/bench_attention.cu
                      LIBRARIES pitot_suite_device ${PITOT_CUDNN_LIBRARY})
  target_include_directories(bench_attention PRIVATE ${PITOT_CUDNN_INCLUDE_DIR})
  message(STATUS "pitot suite: bench_attention uses cuDNN ${PITOT_CUDNN_LIBRARY}")
else()
  message(STATUS "pitot suite: cuDNN 9 (cudnn_graph.h, libcudnn) not found; bench_attention is left out")
endif()
