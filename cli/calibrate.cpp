#include "cli/calibrate.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/output_file.h"
#include "config/calibration_profile.h"
#include "config/config_error.h"
#include "config/input_text.h"
#include "config/probe_results.h"
#include "core/units.h"
#include "models/calibration/calibration_fit.h"
#include "report/text_table.h"

namespace gpuplan::cli {
namespace fs = std::filesystem;
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

bool is_executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string date_part(const std::string& iso) { return iso.size() >= 10 ? iso.substr(0, 10) : "undated"; }

std::string summary_of(const models::CalibrationProfile& p, const models::GpuSpec* catalog) {
  report::TextTable t({"series", "points", "fixed", "rate", "half size", "of datasheet", "max residual"});
  const auto peak_of = [&](const std::string& series) -> double {
    if (catalog == nullptr) return 0.0;
    if (series == "gemm.fp32") return catalog->peak_fp32_flop_per_s;
    if (series == "gemm.tf32") return catalog->peak_tf32_flop_per_s;
    if (series == "gemm.fp16") return catalog->peak_fp16_flop_per_s;
    if (series == "gemm.bf16") return catalog->peak_bf16_flop_per_s;
    if (series == "gemm.fp8") return catalog->peak_fp8_flop_per_s;
    if (series.starts_with("memory")) return catalog->memory_bytes_per_s;
    return 0.0;
  };
  const auto line_of = [&](const std::string& series) -> const models::HockneyLine* {
    const models::GpuCalibration& c = p.rates;
    const auto opt = [](const std::optional<models::HockneyLine>& l) { return l ? &*l : nullptr; };
    if (series == "gemm.fp32") return opt(c.gemm_fp32);
    if (series == "gemm.tf32") return opt(c.gemm_tf32);
    if (series == "gemm.fp16") return opt(c.gemm_fp16);
    if (series == "gemm.bf16") return opt(c.gemm_bf16);
    if (series == "gemm.fp8") return opt(c.gemm_fp8);
    if (series.starts_with("memory")) return opt(c.memory);
    if (series == "h2d_pinned") return opt(c.h2d_pinned);
    if (series == "h2d_pageable") return opt(c.h2d_pageable);
    if (series == "d2h_pinned") return opt(c.d2h_pinned);
    if (series == "d2h_pageable") return opt(c.d2h_pageable);
    if (series == "all_reduce" && c.all_reduce) return &c.all_reduce->algbw;
    for (const auto& l : c.p2p) {
      if (series == fmt::format("p2p.{}-{}", l.src, l.dst)) return &l.line;
    }
    return nullptr;
  };
  for (const models::FitQuality& q : p.fits) {
    const models::HockneyLine* line = line_of(q.series);
    if (line == nullptr) continue;
    const bool gemm = q.series.starts_with("gemm");
    const double peak = peak_of(q.series);
    t.add_row({q.series, std::to_string(q.points), fmt::format("{:.2f} us", line->fixed_s / core::microseconds(1.0)),
               gemm ? fmt::format("{:.1f} TFLOP/s", core::to_teraflop_per_s(line->rate_per_s))
                    : fmt::format("{:.2f} GB/s", core::to_gigabytes_per_s(line->rate_per_s)),
               gemm ? fmt::format("{:.3g} GFLOP", line->half_size() / core::kGiga)
                    : fmt::format("{:.3g} MB", core::to_megabytes(line->half_size())),
               peak > 0.0 ? fmt::format("{:.0f} %", 100.0 * line->rate_per_s / peak) : std::string("-"),
               fmt::format("{:.1f} %", 100.0 * q.max_relative_residual)});
  }
  std::string out = t.to_text();
  out += fmt::format("launch latency {:.2f} us; small-kernel dispatch {:.2f} us\n",
                     p.rates.launch_latency_s / core::microseconds(1.0),
                     p.rates.small_kernel_dispatch_s / core::microseconds(1.0));
  out += "Fit: t(n) = fixed + n / rate (Hockney); half size = fixed x rate. GB = 10^9 B.\n";
  return out;
}

}  // namespace

std::string find_probe() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const fs::path& candidate : {self.parent_path().parent_path() / "cuda_probe" / "cuda_probe",
                                      self.parent_path() / "cuda_probe"}) {
      if (is_executable(candidate)) {
        return candidate.string();
      }
    }
  }
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (!dir.empty() && is_executable(fs::path(dir) / "cuda_probe")) {
        return (fs::path(dir) / "cuda_probe").string();
      }
    }
  }
  return "";
}

void run_probe(const std::string& probe, const std::string& json_path) {
  const std::string err_path = json_path + ".stderr";
  const std::string command = shell_quote(probe) + " -o " + shell_quote(json_path) + " 2>" + shell_quote(err_path);
  const int status = std::system(command.c_str());
  std::string err = slurp(err_path);
  std::remove(err_path.c_str());
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == kProbeExitNoGpu) {
    throw config::ConfigError("no NVIDIA GPU found: " + probe + " says \"" + err +
                              "\"; run gpuplan calibrate on a machine with a CUDA GPU, or fit a probe file "
                              "recorded there with --from FILE");
  }
  if (code != 0) {
    throw config::ConfigError("cuda_probe failed (exit " + std::to_string(code) + "): " + err);
  }
}

std::string catalog_gpu_for(const std::string& probe_gpu_name, const std::string& explicit_gpu,
                            const std::string& probe_file, const config::Catalogs& catalogs) {
  std::string known;
  for (const std::string& n : catalogs.gpus.names()) known += (known.empty() ? "" : ", ") + n;
  if (!explicit_gpu.empty()) {
    const models::GpuSpec* g = catalogs.gpus.find(explicit_gpu);
    if (g == nullptr) {
      throw config::ConfigError("unknown --gpu '" + explicit_gpu + "'; known GPUs: " + known);
    }
    return g->name;
  }
  std::string name = probe_gpu_name;
  const models::GpuSpec* g = catalogs.gpus.find(name);
  if (g == nullptr && name.starts_with("NVIDIA ")) {
    g = catalogs.gpus.find(name.substr(7));
  }
  if (g == nullptr) {
    throw config::ConfigError(config::format_diagnostic(
        "GPU '" + probe_gpu_name + "' is not in the GPU catalog", config::SourceMark{probe_file, 0, 0},
        "provenance.gpu_name",
        "; pass --gpu NAME with the catalog GPU it is (" + known + "), or add '" + probe_gpu_name +
            "' to its aliases in catalogs/gpus.yaml"));
  }
  return g->name;
}

CalibrateResult calibrate(const CalibrateOptions& o, const config::Catalogs& catalogs) {
  CalibrateResult r;
  std::string probe_json = o.from;
  fs::path scratch;
  if (probe_json.empty()) {
    const std::string probe = o.probe.empty() ? find_probe() : o.probe;
    if (probe.empty()) {
      throw config::ConfigError(
          "cuda_probe not found next to gpuplan's build tree or on PATH; build it where nvcc is installed "
          "(cuda_probe/README.md), pass --probe FILE, or fit a recorded probe file with --from FILE");
    }
    scratch = fs::temp_directory_path() / ("gpuplan-probe-" + std::to_string(::getpid()) + ".json");
    run_probe(probe, scratch.string());
    probe_json = scratch.string();
  }
  const std::string probe_text = config::read_text_file(probe_json);
  if (!scratch.empty()) std::remove(scratch.c_str());
  const models::ProbeResults probe = config::parse_probe_results(probe_text, o.from.empty() ? "cuda_probe output" : o.from);
  const std::string gpu = catalog_gpu_for(probe.provenance.gpu_name, o.gpu, o.from.empty() ? "cuda_probe output" : o.from, catalogs);
  if (const config::CalibrationRefusal refused = config::calibration_refusal(*catalogs.gpus.find(gpu));
      !refused.problem.empty()) {
    throw config::ConfigError("cannot calibrate: " + refused.problem + refused.fix);
  }
  // The name comes from the probe's contents: sanitized, so it cannot leave the folder.
  r.profile_path = !o.output.empty()
                       ? o.output
                       : (fs::path(o.catalog_dir) / "calibrations" /
                          sanitized_file_name(gpu + "-" + date_part(probe.provenance.date) + ".json"))
                             .string();
  try {
    r.profile = models::fit_calibration(probe, gpu, r.profile_path);
  } catch (const std::invalid_argument& e) {  // measurements no line fits: an input error
    throw config::ConfigError(config::format_diagnostic(
        std::string("cannot fit the probe's measurements: ") + e.what(),
        config::SourceMark{o.from.empty() ? "cuda_probe output" : o.from, 0, 0}, "",
        "; times must grow with size: run cuda_probe again on an idle GPU"));
  }
  try {
    if (o.output.empty()) {
      fs::create_directories(fs::path(r.profile_path).parent_path());  // the default folder
    }
    write_file_atomically(r.profile_path, config::calibration_profile_to_json(r.profile));
    if (o.from.empty()) {
      // Keep what was measured beside the profile (catalogs/calibrations/README.md).
      fs::path raw = fs::path(r.profile_path);
      raw.replace_extension(".probe.json");
      write_file_atomically(raw.string(), probe_text);
      r.probe_path = raw.string();
    } else {
      r.probe_path = o.from;
    }
  } catch (const config::ConfigError&) {
    throw;
  } catch (const std::exception& e) {  // write_file_atomically, create_directories: unwritable place
    throw config::ConfigError(e.what());
  }
  r.summary = summary_of(r.profile, catalogs.gpus.find(gpu));
  return r;
}

}  // namespace gpuplan::cli
