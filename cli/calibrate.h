#pragma once
/// \file calibrate.h
/// `gpuplan calibrate [--from FILE] [-o FILE] [--gpu NAME] [--probe FILE]`: runs cuda_probe on
/// this machine's GPU (or reads its JSON), fits the series (models/calibration/calibration_fit.h)
/// and writes a calibration profile that a scenario names with `hardware.gpu: {profile: ...}`.

#include <string>

#include "config/catalogs.h"
#include "models/calibration/calibration_profile.h"

namespace gpuplan::cli {

/// The exit code with which cuda_probe says "no CUDA GPU here" (cuda_probe/README.md).
inline constexpr int kProbeExitNoGpu = 3;

struct CalibrateOptions {
  std::string from;         ///< probe JSON to fit; empty = run the probe
  std::string output;       ///< profile path; empty = <catalog_dir>/calibrations/<gpu>-<date>.json
  std::string gpu;          ///< catalog GPU name; empty = match the probe's GPU name to the catalog
  std::string probe;        ///< cuda_probe executable; empty = find_probe()
  std::string catalog_dir;  ///< for the default output folder
};

struct CalibrateResult {
  models::CalibrationProfile profile;
  std::string profile_path;  ///< where the profile was written
  std::string probe_path;    ///< the probe JSON that was fitted (written beside the profile when run)
  std::string summary;       ///< human table of the fits
};

/// The cuda_probe executable: next to the running gpuplan in its build tree
/// (<dir of gpuplan>/../cuda_probe/cuda_probe), in gpuplan's own folder, then on PATH.
/// Empty when none is found.
std::string find_probe();

/// Runs `probe -o json_path`. Throws config::ConfigError "no NVIDIA GPU found: ..." when the
/// probe exits with kProbeExitNoGpu, and "cuda_probe failed (exit N): <its stderr>" otherwise.
void run_probe(const std::string& probe, const std::string& json_path);

/// The catalog name of the GPU the probe ran on: `explicit_gpu` when given (it must be in the
/// catalog), else the probe's gpu_name looked up among catalog names and aliases (with and
/// without the "NVIDIA " prefix). Throws config::ConfigError with a fix naming --gpu.
std::string catalog_gpu_for(const std::string& probe_gpu_name, const std::string& explicit_gpu,
                            const std::string& probe_file, const config::Catalogs& catalogs);

/// The whole command. Throws config::ConfigError for every input problem (exit code 2).
CalibrateResult calibrate(const CalibrateOptions& options, const config::Catalogs& catalogs);

}  // namespace gpuplan::cli
