#include "saxpy.cuh"

namespace {
// float4s each thread has in flight per loop trip: enough independent 16-byte loads to cover
// HBM latency (Little's law). It costs 48 registers (gpubench --info), so fewer blocks are
// resident per SM; the grid is sized from the occupancy the compiler's code allows.
constexpr int unroll = 4;

__device__ __forceinline__ float4 axpy4(float alpha, float4 a, float4 b) {
  return make_float4(fmaf(alpha, a.x, b.x), fmaf(alpha, a.y, b.y), fmaf(alpha, a.z, b.z),
                     fmaf(alpha, a.w, b.w));
}
} // namespace

// 16-byte loads and stores over a grid sized to the SM count: fewer, wider memory transactions
// and no tail of half-empty blocks. Each thread walks the float4 range with a grid stride,
// issuing all of a trip's loads before its first store; the 0-3 elements past the last full
// float4 are done by the first threads.
//
// When the grid covers every float4 at once (small N, where the launcher sizes the grid to the
// work) the first branch does it with a handful of instructions: after an L2 flush even the
// kernel's code comes from memory, and the unrolled loop's would cost tenths of a microsecond.
__global__ void saxpy_vec4(float alpha, const float* __restrict__ x, float* __restrict__ y,
                           int64_t n) {
  const int64_t vectors = n / 4;
  const auto* x4 = reinterpret_cast<const float4*>(x);
  auto* y4 = reinterpret_cast<float4*>(y);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (vectors <= stride) {
    if (first < vectors) {
      y4[first] = axpy4(alpha, x4[first], y4[first]);
    }
  } else {
    int64_t i = first;
    for (; i + (unroll - 1) * stride < vectors; i += unroll * stride) {
      float4 a[unroll];
      float4 b[unroll];
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
        a[u] = x4[i + u * stride];
        b[u] = y4[i + u * stride];
      }
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
        y4[i + u * stride] = axpy4(alpha, a[u], b[u]);
      }
    }
    for (; i < vectors; i += stride) {
      y4[i] = axpy4(alpha, x4[i], y4[i]);
    }
  }
  const int64_t tail = vectors * 4 + first;
  if (tail < n) {
    y[tail] = fmaf(alpha, x[tail], y[tail]);
  }
}

namespace {
enum class CacheHint { none, streaming };

template <CacheHint Hint> __device__ __forceinline__ float4 load4(const float4* p) {
  if constexpr (Hint == CacheHint::streaming) {
    return __ldcs(p);
  } else {
    return *p;
  }
}

template <CacheHint Hint> __device__ __forceinline__ void store4(float4* p, float4 v) {
  if constexpr (Hint == CacheHint::streaming) {
    __stcs(p, v);
  } else {
    *p = v;
  }
}

// One tile of saxpy_tile_threads * saxpy_tile_vectors_per_thread float4s per block over an exact
// grid: blocks run in launch order, so the memory system sees x and y as two streams walked
// front to back, and no thread loops. A full tile issues every load of x and y (8 independent
// 16-byte loads per thread) before its first store; the last, partial tile checks each float4.
// Block 0 does the 0-3 elements past the last full float4.
template <CacheHint Hint>
__device__ __forceinline__ void saxpy_vec4_tile_body(float alpha, const float* __restrict__ x,
                                                     float* __restrict__ y, int64_t n) {
  constexpr int threads = saxpy_tile_threads;
  constexpr int per_thread = saxpy_tile_vectors_per_thread;
  const int64_t vectors = n / 4;
  const auto* x4 = reinterpret_cast<const float4*>(x);
  auto* y4 = reinterpret_cast<float4*>(y);
  const int64_t first = static_cast<int64_t>(blockIdx.x) * (threads * per_thread) + threadIdx.x;
  if (first + (per_thread - 1) * threads < vectors) {
    float4 a[per_thread];
    float4 b[per_thread];
#pragma unroll
    for (int u = 0; u < per_thread; ++u) {
      a[u] = load4<Hint>(x4 + first + u * threads);
    }
#pragma unroll
    for (int u = 0; u < per_thread; ++u) {
      b[u] = load4<Hint>(y4 + first + u * threads);
    }
#pragma unroll
    for (int u = 0; u < per_thread; ++u) {
      store4<Hint>(y4 + first + u * threads, axpy4(alpha, a[u], b[u]));
    }
  } else {
#pragma unroll
    for (int u = 0; u < per_thread; ++u) {
      const int64_t i = first + u * threads;
      if (i < vectors) {
        store4<Hint>(y4 + i, axpy4(alpha, load4<Hint>(x4 + i), load4<Hint>(y4 + i)));
      }
    }
  }
  if (blockIdx.x == 0) {
    const int64_t tail = vectors * 4 + threadIdx.x;
    if (tail < n) {
      y[tail] = fmaf(alpha, x[tail], y[tail]);
    }
  }
}
} // namespace

// At least 6 resident blocks of 256 threads per SM caps ptxas at 40 registers, and with them it
// issues all 8 loads before the first multiply-add. Left to itself it fits the kernel in 32 at
// full occupancy by doing the first two float4s' multiply-adds (waiting for their loads) before
// the last three loads are issued (cuobjdump --dump-sass: docs/performance.md). sm_75 holds
// 1024 threads per SM, so 4 blocks there.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int saxpy_tile_min_blocks_per_sm = 4;
#else
constexpr int saxpy_tile_min_blocks_per_sm = 6;
#endif

__global__ void __launch_bounds__(saxpy_tile_threads, saxpy_tile_min_blocks_per_sm)
    saxpy_vec4_tile(float alpha, const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  saxpy_vec4_tile_body<CacheHint::none>(alpha, x, y, n);
}

// The same with the streaming cache operator (ld.global.cs / st.global.cs, __ldcs / __stcs):
// every byte is touched once, so its lines are the first the caches give up.
__global__ void __launch_bounds__(saxpy_tile_threads, saxpy_tile_min_blocks_per_sm)
    saxpy_vec4_tile_streaming(float alpha, const float* __restrict__ x, float* __restrict__ y,
                              int64_t n) {
  saxpy_vec4_tile_body<CacheHint::streaming>(alpha, x, y, n);
}
