#include "models/gpu/gemm_tiles.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::models {

GemmTile gemm_tile(bool tensor_cores) { return tensor_cores ? GemmTile{256.0, 128.0} : GemmTile{128.0, 128.0}; }

double tile_quantization_efficiency(const GemmShape& shape, const GemmTile& tile) {
  const double padded_m = std::ceil(shape.m / tile.m) * tile.m;
  const double padded_n = std::ceil(shape.n / tile.n) * tile.n;
  return shape.m * shape.n / (padded_m * padded_n);
}

int split_k_factor(double tiles, double k, int sm_count) {
  if (tiles >= sm_count) {
    return 1;
  }
  const double by_sms = std::floor(sm_count / tiles);
  const double by_depth = std::floor(k / kSplitKMinDepth);
  return static_cast<int>(std::max(1.0, std::min(by_sms, by_depth)));
}

double wave_efficiency(double work_units, int sm_count) {
  const double waves = std::ceil(work_units / sm_count);
  return work_units / (waves * sm_count);
}

double gemm_shape_efficiency(const GemmShape& shape, const GpuSpec& gpu, bool tensor_cores) {
  if (shape.m <= 0.0 || shape.n <= 0.0 || shape.k <= 0.0 || gpu.sm_count <= 0) {
    return 1.0;
  }
  const GemmTile tile = gemm_tile(tensor_cores);
  const GemmTile used{std::min(tile.m, std::max(shape.m, 1.0)), std::min(tile.n, std::max(shape.n, 1.0))};
  const double tiles = std::ceil(shape.m / used.m) * std::ceil(shape.n / used.n);
  const int splits = split_k_factor(tiles, shape.k, gpu.sm_count);
  return tile_quantization_efficiency(shape, used) * wave_efficiency(tiles * splits, gpu.sm_count);
}

}  // namespace gpuplan::models
