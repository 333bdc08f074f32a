#pragma once
/// \file calibration_profile.h
/// Reads and writes calibration profiles (format "gpuplan-calibration/v1"), the JSON that
/// `gpuplan calibrate` writes under catalogs/calibrations/ and a scenario names with
/// `hardware.gpu: {profile: path}`. Models know nothing of files: this is the only code that
/// does (STYLE.md L1, G2). The layout is documented in catalogs/calibrations/README.md.

#include <string>
#include <vector>

#include "config/catalogs.h"
#include "models/calibration/calibration_profile.h"
#include "models/gpu/gpu_spec.h"

namespace gpuplan::config {

/// Parses profile JSON `text` read from `file`. Throws ConfigError with every problem:
/// `<problem> at <file> (<key.path>)[; <fix>]`, syntax errors at `<file>:<line>:<column>`.
models::CalibrationProfile parse_calibration_profile(const std::string& text, const std::string& file);

/// Reads and parses `path`. ConfigError "cannot read calibration profile '<path>': <reason>"
/// when the file cannot be opened.
models::CalibrationProfile load_calibration_profile(const std::string& path);

/// The profile as JSON text (2-space indent, keys in a fixed order, trailing newline);
/// parse_calibration_profile(calibration_profile_to_json(p)) == p up to rounding of %.17g.
std::string calibration_profile_to_json(const models::CalibrationProfile& profile);

/// The catalog GPU `catalog` with the profile's measured rates attached (calibrated = true,
/// calibration = profile.rates). Datasheet facts (memory, TDP, peaks) stay the catalog's.
models::GpuSpec calibrated_gpu(const models::GpuSpec& catalog, const models::CalibrationProfile& profile);

/// A profile found in a folder.
struct ProfileFile {
  std::string path;
  models::CalibrationProfile profile;
};

/// Every *.json profile directly in `dir` (not *.probe.json, the raw probe outputs), sorted
/// by path; an absent folder gives none.
/// Throws ConfigError for a file that is not a valid profile.
std::vector<ProfileFile> find_calibration_profiles(const std::string& dir);

/// The newest profile (by provenance date, then path) whose `gpu` is `gpu_name`, or nullptr.
const ProfileFile* profile_for_gpu(const std::vector<ProfileFile>& profiles, const std::string& gpu_name);

/// Whether a calibration profile can describe `gpu`: NVIDIA only. cuda_probe runs CUDA
/// kernels and a profile's provenance records a CUDA compute capability; no ROCm probe
/// exists, so an AMD GPU has no profile. Returns the problem and fix to report for an AMD GPU
/// ({"mi300x is an AMD GPU (gfx942 (CDNA 3))", "; cuda_probe measures CUDA GPUs only ..."}),
/// both empty for an NVIDIA one.
struct CalibrationRefusal {
  std::string problem;
  std::string fix;
};
CalibrationRefusal calibration_refusal(const models::GpuSpec& gpu);

}  // namespace gpuplan::config
