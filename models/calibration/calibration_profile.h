#pragma once
/// \file calibration_profile.h
/// A calibration profile: the fitted rates of one GPU (GpuCalibration), the catalog GPU they
/// belong to (datasheet facts such as memory size and TDP still come from
/// catalogs/gpus.yaml), the probe's provenance and the quality of each fit. Written by
/// `gpuplan calibrate` under catalogs/calibrations/, read by config/calibration_profile.h.

#include <string>
#include <vector>

#include "models/calibration/gpu_calibration.h"
#include "models/calibration/probe_results.h"

namespace gpuplan::models {

/// How well one Hockney line fits its series.
struct FitQuality {
  std::string series;                 ///< "gemm.fp16", "h2d_pinned", "memory", ...
  int points = 0;
  double max_relative_residual = 0.0; ///< max |t_fit - t_measured| / t_measured
};

struct CalibrationProfile {
  std::string gpu;                    ///< catalog name, e.g. "a100-80gb"
  ProbeProvenance provenance;
  GpuCalibration rates;
  std::vector<FitQuality> fits;
};

}  // namespace gpuplan::models
