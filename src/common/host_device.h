// RB_HOST_DEVICE marks a function that both the CPU and the CUDA code call (the arithmetic that
// must give the same bits on both: DESIGN.md, GPU). Plain inline C++ where nvcc is not compiling.
#pragma once

#if defined(__CUDACC__)
#define RB_HOST_DEVICE __host__ __device__
#else
#define RB_HOST_DEVICE
#endif
