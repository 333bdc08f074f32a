// cuda_probe: microbenchmarks of the GPU it runs on, for `gpuplan calibrate` (README.md).
// Every CUDA, cuBLAS and NCCL call is checked; timings are CUDA events after warm-up, median
// and spread over repeats; inputs are pseudo-random, never zeros. Raw milliseconds stay raw
// until probe_writer.cpp (STYLE.md G3).

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#ifdef CUDA_PROBE_HAVE_NCCL
#include <nccl.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/units.h"
#include "probe_results.h"

namespace cuda_probe {
namespace {

constexpr int kExitNoGpu = 3;  // gpuplan calibrate turns this into "no NVIDIA GPU found"
// Binary sizes from the one place that holds scale factors (STYLE.md U2).
using gpuplan::core::gibibytes;
using gpuplan::core::kibibytes;
using gpuplan::core::mebibytes;

[[noreturn]] void fail(const char* what, const char* file, int line, const std::string& detail) {
  std::fprintf(stderr, "cuda_probe: %s failed at %s:%d: %s\n", what, file, line, detail.c_str());
  std::exit(1);
}

#define CUDA_CHECK(call)                                                              \
  do {                                                                                \
    const cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) fail(#call, __FILE__, __LINE__, cudaGetErrorString(err_)); \
  } while (0)

#define CUBLAS_CHECK(call)                                                                         \
  do {                                                                                             \
    const cublasStatus_t st_ = (call);                                                             \
    if (st_ != CUBLAS_STATUS_SUCCESS) fail(#call, __FILE__, __LINE__, cublasGetStatusString(st_)); \
  } while (0)

#ifdef CUDA_PROBE_HAVE_NCCL
#define NCCL_CHECK(call)                                                                   \
  do {                                                                                     \
    const ncclResult_t r_ = (call);                                                        \
    if (r_ != ncclSuccess) fail(#call, __FILE__, __LINE__, ncclGetErrorString(r_));        \
  } while (0)
#endif

struct Options {
  std::string output;   // empty = stdout
  int repeats = 10;
  int warmup = 3;
  bool quick = false;   // fewer sizes (smoke runs)
};

// ---- kernels ---------------------------------------------------------------------------

__device__ float hash_unit(unsigned long long i, unsigned seed) {
  unsigned long long x = i * 6364136223846793005ULL + seed * 1442695040888963407ULL + 1ULL;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return static_cast<float>(x & 0xffffff) / static_cast<float>(0xffffff) - 0.5f;  // [-0.5, 0.5]
}

template <class T>
__global__ void fill_kernel(T* data, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    float v = hash_unit(i, seed);
    if (v > -0.01f && v < 0.01f) v = 0.25f;  // never zero
    data[i] = static_cast<T>(v);
  }
}

// Streaming copy with a scale (STREAM "Scale"): reads n, writes n float4s.
__global__ void stream_kernel(float4* __restrict__ dst, const float4* __restrict__ src, size_t n, float s) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float4 v = src[i];
    dst[i] = make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
  }
}

__global__ void empty_kernel() {}

__global__ void small_kernel(float* out) {
  if (threadIdx.x == 0) out[blockIdx.x] += 1.0f;
}

constexpr int kFillBlocks = 4 * 256;  // grid-stride: enough blocks to fill every SM

template <class T>
void fill(T* data, size_t n, unsigned seed) {
  fill_kernel<T><<<kFillBlocks, 256>>>(data, n, seed);
  CUDA_CHECK(cudaGetLastError());
}

// ---- timing ----------------------------------------------------------------------------

TimingMs summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  TimingMs t;
  const size_t n = ms.size();
  t.median_ms = n % 2 == 1 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  return t;
}

// Times `op` (which enqueues work on `stream`) with events: `warmup` untimed calls, then
// `repeats` timed ones; `per_call` divides each sample (bursts of several calls).
TimingMs time_events(const std::function<void()>& op, cudaStream_t stream, int warmup, int repeats,
                     int per_call = 1) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < warmup; ++i) op();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> samples;
  for (int i = 0; i < repeats; ++i) {
    CUDA_CHECK(cudaEventRecord(start, stream));
    op();
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    samples.push_back(static_cast<double>(ms) / per_call);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return summarize(samples);
}

// ---- GEMM ------------------------------------------------------------------------------

struct GemmPath {
  const char* name;
  cudaDataType_t ab_type;
  cudaDataType_t c_type;
  cublasComputeType_t compute;
  int element_bytes;
  int min_cc;  // major*10 + minor
};

RawSeries gemm_series(const GemmPath& path, int cc, const std::vector<int>& sizes, const Options& o,
                      cublasHandle_t handle, cudaStream_t stream) {
  RawSeries s;
  s.name = path.name;
  if (cc < path.min_cc) {
    s.skipped = "needs compute capability " + std::to_string(path.min_cc / 10) + "." +
                std::to_string(path.min_cc % 10);
    return s;
  }
  const int n_max = sizes.back();
  const size_t elems = static_cast<size_t>(n_max) * n_max;
  void *a, *b, *c;
  CUDA_CHECK(cudaMalloc(&a, elems * path.element_bytes));
  CUDA_CHECK(cudaMalloc(&b, elems * path.element_bytes));
  CUDA_CHECK(cudaMalloc(&c, elems * 4));
  if (path.ab_type == CUDA_R_32F) {
    fill(static_cast<float*>(a), elems, 1);
    fill(static_cast<float*>(b), elems, 2);
  } else if (path.ab_type == CUDA_R_16F) {
    fill(static_cast<__half*>(a), elems, 1);
    fill(static_cast<__half*>(b), elems, 2);
  } else {
    fill(static_cast<__nv_bfloat16*>(a), elems, 1);
    fill(static_cast<__nv_bfloat16*>(b), elems, 2);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  const float alpha = 1.0f, beta = 0.0f;
  for (const int n : sizes) {
    auto op = [&] {
      CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, path.ab_type, n, b,
                                path.ab_type, n, &beta, c, path.c_type, n, path.compute, CUBLAS_GEMM_DEFAULT));
    };
    RawPoint p;
    p.m = p.n = p.k = n;
    p.size = 2.0 * n * static_cast<double>(n) * n;  // 2mnk FLOP
    p.time = time_events(op, stream, o.warmup, o.repeats);
    s.points.push_back(p);
  }
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(b));
  CUDA_CHECK(cudaFree(c));
  return s;
}

// FP8 (E4M3 inputs, BF16 output, FP32 accumulate) through cuBLASLt; A transposed ("TN"), the
// layout cuBLASLt requires for FP8 (cuBLAS docs, cublasLtMatmul FP8 requirements).
RawSeries gemm_fp8_series(int cc, const std::vector<int>& sizes, const Options& o, cudaStream_t stream) {
  RawSeries s;
  s.name = "fp8";
  if (cc < 89) {
    s.skipped = "needs compute capability 8.9";
    return s;
  }
  cublasLtHandle_t lt;
  CUBLAS_CHECK(cublasLtCreate(&lt));
  const int n_max = sizes.back();
  const size_t elems = static_cast<size_t>(n_max) * n_max;
  __nv_fp8_e4m3 *a, *b;
  __nv_bfloat16* d;
  float* scale;
  CUDA_CHECK(cudaMalloc(&a, elems));
  CUDA_CHECK(cudaMalloc(&b, elems));
  CUDA_CHECK(cudaMalloc(&d, elems * 2));
  CUDA_CHECK(cudaMalloc(&scale, sizeof(float)));
  const float one = 1.0f;
  CUDA_CHECK(cudaMemcpy(scale, &one, sizeof one, cudaMemcpyHostToDevice));
  fill(a, elems, 3);
  fill(b, elems, 4);
  const size_t workspace_bytes = static_cast<size_t>(mebibytes(32));
  void* workspace;
  CUDA_CHECK(cudaMalloc(&workspace, workspace_bytes));
  CUDA_CHECK(cudaDeviceSynchronize());
  for (const int n : sizes) {
    cublasLtMatmulDesc_t desc;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale, sizeof scale));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale, sizeof scale));
    cublasLtMatrixLayout_t la, lb, ld;
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, n, n, n));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, n, n, n));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, n, n, n));
    cublasLtMatmulPreference_t pref;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                      &workspace_bytes, sizeof workspace_bytes));
    cublasLtMatmulHeuristicResult_t heuristic;
    int found = 0;
    CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 1, &heuristic, &found));
    if (found == 0) {
      s.skipped = "cuBLASLt offers no FP8 algorithm for n = " + std::to_string(n);
    } else {
      const float alpha = 1.0f, beta = 0.0f;
      auto op = [&] {
        CUBLAS_CHECK(cublasLtMatmul(lt, desc, &alpha, a, la, b, lb, &beta, d, ld, d, ld, &heuristic.algo, workspace,
                                    workspace_bytes, stream));
      };
      RawPoint p;
      p.m = p.n = p.k = n;
      p.size = 2.0 * n * static_cast<double>(n) * n;
      p.time = time_events(op, stream, o.warmup, o.repeats);
      s.points.push_back(p);
    }
    CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(la));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(lb));
    CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(ld));
    CUBLAS_CHECK(cublasLtMatmulDescDestroy(desc));
  }
  CUDA_CHECK(cudaFree(workspace));
  CUDA_CHECK(cudaFree(scale));
  CUDA_CHECK(cudaFree(d));
  CUDA_CHECK(cudaFree(b));
  CUDA_CHECK(cudaFree(a));
  CUBLAS_CHECK(cublasLtDestroy(lt));
  return s;
}

// ---- memory ----------------------------------------------------------------------------

void device_memory(const std::vector<double>& sizes, const Options& o, cudaStream_t stream, RawResults& r) {
  const size_t max_bytes = static_cast<size_t>(sizes.back());
  float *src, *dst;
  CUDA_CHECK(cudaMalloc(&src, max_bytes));
  CUDA_CHECK(cudaMalloc(&dst, max_bytes));
  fill(src, max_bytes / sizeof(float), 5);
  CUDA_CHECK(cudaDeviceSynchronize());
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  r.memory_stream.name = "memory_stream";
  r.memory_copy.name = "memory_copy";
  for (const double bytes : sizes) {
    const size_t n4 = static_cast<size_t>(bytes) / sizeof(float4);
    const int blocks = static_cast<int>(std::min<size_t>((n4 + 255) / 256, static_cast<size_t>(sms) * 32));
    auto stream_op = [&] {
      stream_kernel<<<blocks, 256, 0, stream>>>(reinterpret_cast<float4*>(dst), reinterpret_cast<const float4*>(src),
                                                n4, 1.0001f);
      CUDA_CHECK(cudaGetLastError());
    };
    r.memory_stream.points.push_back({2.0 * bytes, time_events(stream_op, stream, o.warmup, o.repeats)});
    auto copy_op = [&] {
      CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice, stream));
    };
    r.memory_copy.points.push_back({2.0 * bytes, time_events(copy_op, stream, o.warmup, o.repeats)});
  }
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(dst));
}

void host_copies(const std::vector<double>& sizes, const Options& o, cudaStream_t stream, RawResults& r) {
  size_t max_bytes = static_cast<size_t>(sizes.back());
  void* device;
  CUDA_CHECK(cudaMalloc(&device, max_bytes));
  void* pinned = nullptr;
  CUDA_CHECK(cudaMallocHost(&pinned, max_bytes));
  char* pageable = static_cast<char*>(std::malloc(max_bytes));
  if (pageable == nullptr) fail("malloc", __FILE__, __LINE__, "cannot allocate the pageable host buffer");
  for (size_t i = 0; i < max_bytes; ++i) pageable[i] = static_cast<char>(i * 131 + 7);  // touched, non-zero
  std::memcpy(pinned, pageable, max_bytes);
  r.h2d_pinned.name = "h2d_pinned";
  r.h2d_pageable.name = "h2d_pageable";
  r.d2h_pinned.name = "d2h_pinned";
  r.d2h_pageable.name = "d2h_pageable";
  for (const double bytes : sizes) {
    const size_t b = static_cast<size_t>(bytes);
    // Small copies are cheap: more repeats where the spread matters most.
    const int repeats = bytes <= mebibytes(1) ? 5 * o.repeats : o.repeats;
    auto h2d = [&](void* host) {
      return [&, host] { CUDA_CHECK(cudaMemcpyAsync(device, host, b, cudaMemcpyHostToDevice, stream)); };
    };
    auto d2h = [&](void* host) {
      return [&, host] { CUDA_CHECK(cudaMemcpyAsync(host, device, b, cudaMemcpyDeviceToHost, stream)); };
    };
    r.h2d_pinned.points.push_back({bytes, time_events(h2d(pinned), stream, o.warmup, repeats)});
    r.h2d_pageable.points.push_back({bytes, time_events(h2d(pageable), stream, o.warmup, repeats)});
    r.d2h_pinned.points.push_back({bytes, time_events(d2h(pinned), stream, o.warmup, repeats)});
    r.d2h_pageable.points.push_back({bytes, time_events(d2h(pageable), stream, o.warmup, repeats)});
  }
  std::free(pageable);
  CUDA_CHECK(cudaFreeHost(pinned));
  CUDA_CHECK(cudaFree(device));
}

void launches(const Options& o, cudaStream_t stream, RawResults& r) {
  auto one = [&] {
    empty_kernel<<<1, 1, 0, stream>>>();
    CUDA_CHECK(cudaGetLastError());
  };
  r.launch_latency = time_events(one, stream, 10 * o.warmup, 20 * o.repeats);
  float* out;
  constexpr int kSmallBlocks = 8;  // one float per block
  CUDA_CHECK(cudaMalloc(&out, kSmallBlocks * sizeof(float)));
  CUDA_CHECK(cudaMemset(out, 0, kSmallBlocks * sizeof(float)));
  constexpr int kBurst = 1000;
  auto burst = [&] {
    for (int i = 0; i < kBurst; ++i) small_kernel<<<kSmallBlocks, 32, 0, stream>>>(out);
    CUDA_CHECK(cudaGetLastError());
  };
  r.small_kernel_dispatch = time_events(burst, stream, o.warmup, o.repeats, kBurst);
  CUDA_CHECK(cudaFree(out));
}

// ---- multi-GPU -------------------------------------------------------------------------

void peer_to_peer(int gpus, const std::vector<double>& sizes, const Options& o, RawResults& r) {
  const size_t max_bytes = static_cast<size_t>(sizes.back());
  std::vector<void*> buffers(gpus);
  for (int g = 0; g < gpus; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    CUDA_CHECK(cudaMalloc(&buffers[g], max_bytes));
    fill(static_cast<float*>(buffers[g]), max_bytes / sizeof(float), 10 + g);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  for (int src = 0; src < gpus; ++src) {
    for (int dst = 0; dst < gpus; ++dst) {
      if (src == dst) continue;
      RawP2p pair;
      pair.src = src;
      pair.dst = dst;
      int can = 0;
      CUDA_CHECK(cudaDeviceCanAccessPeer(&can, src, dst));
      pair.peer_access = can != 0;
      CUDA_CHECK(cudaSetDevice(src));
      if (can != 0) {
        const cudaError_t e = cudaDeviceEnablePeerAccess(dst, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled) {
          (void)cudaGetLastError();  // already enabled is fine; clear the recorded error
        } else {
          CUDA_CHECK(e);
        }
      }
      cudaStream_t stream;
      CUDA_CHECK(cudaStreamCreate(&stream));
      for (const double bytes : sizes) {
        auto op = [&] {
          CUDA_CHECK(cudaMemcpyPeerAsync(buffers[dst], dst, buffers[src], src, static_cast<size_t>(bytes), stream));
        };
        pair.points.push_back({bytes, time_events(op, stream, o.warmup, o.repeats)});
      }
      CUDA_CHECK(cudaStreamDestroy(stream));
      r.p2p.push_back(pair);
    }
  }
  for (int g = 0; g < gpus; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    CUDA_CHECK(cudaFree(buffers[g]));
  }
  CUDA_CHECK(cudaSetDevice(0));
}

void all_reduce(int gpus, const std::vector<double>& sizes, const Options& o, RawResults& r) {
  r.all_reduce.name = "all_reduce";
#ifdef CUDA_PROBE_HAVE_NCCL
  r.all_reduce_gpus = gpus;
  int version = 0;
  NCCL_CHECK(ncclGetVersion(&version));
  r.nccl_version = std::to_string(version);
  std::vector<ncclComm_t> comms(gpus);
  std::vector<int> devices(gpus);
  for (int g = 0; g < gpus; ++g) devices[g] = g;
  NCCL_CHECK(ncclCommInitAll(comms.data(), gpus, devices.data()));
  const size_t max_bytes = static_cast<size_t>(sizes.back());
  std::vector<float*> buffers(gpus);
  std::vector<cudaStream_t> streams(gpus);
  std::vector<cudaEvent_t> starts(gpus), stops(gpus);
  for (int g = 0; g < gpus; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    CUDA_CHECK(cudaMalloc(&buffers[g], max_bytes));
    fill(buffers[g], max_bytes / sizeof(float), 20 + g);
    CUDA_CHECK(cudaStreamCreate(&streams[g]));
    CUDA_CHECK(cudaEventCreate(&starts[g]));
    CUDA_CHECK(cudaEventCreate(&stops[g]));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  auto run = [&](size_t count) {
    NCCL_CHECK(ncclGroupStart());
    for (int g = 0; g < gpus; ++g) {
      NCCL_CHECK(ncclAllReduce(buffers[g], buffers[g], count, ncclFloat, ncclSum, comms[g], streams[g]));
    }
    NCCL_CHECK(ncclGroupEnd());
  };
  for (const double bytes : sizes) {
    const size_t count = static_cast<size_t>(bytes) / sizeof(float);
    for (int i = 0; i < o.warmup; ++i) run(count);
    for (int g = 0; g < gpus; ++g) {
      CUDA_CHECK(cudaSetDevice(g));
      CUDA_CHECK(cudaStreamSynchronize(streams[g]));
    }
    // The collective ends when its slowest rank does: the sample is the longest rank's time.
    std::vector<double> samples;
    for (int rep = 0; rep < o.repeats; ++rep) {
      for (int g = 0; g < gpus; ++g) {
        CUDA_CHECK(cudaSetDevice(g));
        CUDA_CHECK(cudaEventRecord(starts[g], streams[g]));
      }
      run(count);
      double longest = 0.0;
      for (int g = 0; g < gpus; ++g) {
        CUDA_CHECK(cudaSetDevice(g));
        CUDA_CHECK(cudaEventRecord(stops[g], streams[g]));
      }
      for (int g = 0; g < gpus; ++g) {
        CUDA_CHECK(cudaSetDevice(g));
        CUDA_CHECK(cudaEventSynchronize(stops[g]));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, starts[g], stops[g]));
        longest = std::max(longest, static_cast<double>(ms));
      }
      samples.push_back(longest);
    }
    r.all_reduce.points.push_back({bytes, summarize(samples)});
  }
  for (int g = 0; g < gpus; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    CUDA_CHECK(cudaEventDestroy(starts[g]));
    CUDA_CHECK(cudaEventDestroy(stops[g]));
    CUDA_CHECK(cudaStreamDestroy(streams[g]));
    CUDA_CHECK(cudaFree(buffers[g]));
    NCCL_CHECK(ncclCommDestroy(comms[g]));
  }
  CUDA_CHECK(cudaSetDevice(0));
#else
  (void)gpus;
  (void)sizes;
  (void)o;
  r.all_reduce.skipped = "built without NCCL";
#endif
}

// ---- provenance ------------------------------------------------------------------------

std::string driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  std::getline(in, line);
  // The first word made of digits and dots, whatever precedes it:
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 ..." and
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..."
  // (the open module's line, seen on an H200 machine on 2026-12-04).
  std::istringstream words(line);
  std::string word;
  while (words >> word) {
    const bool numeric = word.find_first_not_of("0123456789.") == std::string::npos;
    if (numeric && word.find('.') != std::string::npos) return word;
  }
  return "";
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::vector<double> geometric(double from, double to, double factor) {
  std::vector<double> v;
  for (double x = from; x <= to * 1.0000001; x *= factor) v.push_back(x);
  return v;
}

int usage(const char* self) {
  std::fprintf(stderr,
               "usage: %s [-o FILE] [--repeats N] [--warmup N] [--quick]\n"
               "Measures the CUDA GPU(s) of this machine and writes JSON for gpuplan calibrate\n"
               "(stdout without -o). Exit codes: 0 ok, 1 a CUDA error, 2 bad arguments, 3 no GPU.\n",
               self);
  return 2;
}

}  // namespace
}  // namespace cuda_probe

int main(int argc, char** argv) {
  using namespace cuda_probe;
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "-o" || a == "--output") && i + 1 < argc) {
      o.output = argv[++i];
    } else if (a == "--repeats" && i + 1 < argc) {
      o.repeats = std::max(3, std::atoi(argv[++i]));
    } else if (a == "--warmup" && i + 1 < argc) {
      o.warmup = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--quick") {
      o.quick = true;
    } else {
      return usage(argv[0]);
    }
  }
  int gpus = 0;
  const cudaError_t count_error = cudaGetDeviceCount(&gpus);
  if (count_error != cudaSuccess || gpus == 0) {
    std::fprintf(stderr, "cuda_probe: no CUDA GPU found (cudaGetDeviceCount: %s)\n",
                 count_error != cudaSuccess ? cudaGetErrorString(count_error) : "0 devices");
    return kExitNoGpu;
  }
  RawResults r;
  RawProvenance& pv = r.provenance;
  CUDA_CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  pv.gpu_name = prop.name;
  pv.cc_major = prop.major;
  pv.cc_minor = prop.minor;
  pv.gpu_count = gpus;
  pv.memory_bytes = static_cast<double>(prop.totalGlobalMem);
  int khz = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  pv.sm_clock_khz = khz;
  CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, 0));
  pv.memory_clock_khz = khz;
  CUDA_CHECK(cudaDeviceGetAttribute(&pv.memory_bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  CUDA_CHECK(cudaRuntimeGetVersion(&pv.cuda_runtime_version));
  CUDA_CHECK(cudaDriverGetVersion(&pv.cuda_driver_version));
  pv.driver_version = driver_version();
  pv.date = utc_now();
  pv.git_sha = CUDA_PROBE_GIT_SHA;
  pv.repeats = o.repeats;
  pv.warmup = o.warmup;
  const int cc = prop.major * 10 + prop.minor;

  // Sizes: squares 256..8192 (quick: ..2048); device buffers 1 MiB..1 GiB; host copies
  // 4 KiB..1 GiB by x4; each capped at a quarter of device memory.
  const double quarter = static_cast<double>(prop.totalGlobalMem) / 4.0;
  std::vector<int> gemm_sizes = {256, 512, 1024, 2048};
  if (!o.quick) {
    gemm_sizes.push_back(4096);
    gemm_sizes.push_back(8192);
  }
  const double device_max = std::min(o.quick ? mebibytes(64) : gibibytes(1), quarter / 2.0);
  const double host_max = std::min(o.quick ? mebibytes(64) : gibibytes(1), quarter);
  const std::vector<double> device_sizes = geometric(mebibytes(1), device_max, 4.0);
  const std::vector<double> host_sizes = geometric(kibibytes(4), host_max, 4.0);
  const std::vector<double> multi_sizes = geometric(mebibytes(1), o.quick ? mebibytes(16) : mebibytes(256), 4.0);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  const GemmPath paths[] = {
      {"fp32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, 4, 0},
      {"tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 80},
      {"fp16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 0},
      {"bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 80},
  };
  for (const GemmPath& path : paths) {
    std::fprintf(stderr, "cuda_probe: GEMM %s\n", path.name);
    r.gemm.push_back(gemm_series(path, cc, gemm_sizes, o, handle, stream));
  }
  std::fprintf(stderr, "cuda_probe: GEMM fp8\n");
  r.gemm.push_back(gemm_fp8_series(cc, gemm_sizes, o, stream));
  CUBLAS_CHECK(cublasDestroy(handle));
  std::fprintf(stderr, "cuda_probe: device memory\n");
  device_memory(device_sizes, o, stream, r);
  std::fprintf(stderr, "cuda_probe: host copies\n");
  host_copies(host_sizes, o, stream, r);
  std::fprintf(stderr, "cuda_probe: launches\n");
  launches(o, stream, r);
  CUDA_CHECK(cudaStreamDestroy(stream));
  if (gpus >= 2) {
    std::fprintf(stderr, "cuda_probe: peer to peer over %d GPUs\n", gpus);
    peer_to_peer(gpus, multi_sizes, o, r);
    std::fprintf(stderr, "cuda_probe: NCCL all-reduce over %d GPUs\n", gpus);
    all_reduce(gpus, multi_sizes, o, r);
  }
  const std::string json = to_json(r);
  if (o.output.empty()) {
    std::fwrite(json.data(), 1, json.size(), stdout);
  } else {
    std::ofstream out(o.output, std::ios::binary);
    out << json;
    if (!out) {
      std::fprintf(stderr, "cuda_probe: cannot write '%s'\n", o.output.c_str());
      return 1;
    }
  }
  return 0;
}
