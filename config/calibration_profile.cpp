#include "config/calibration_profile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/config_error.h"
#include "config/input_text.h"
#include "config/json_reader.h"
#include "config/probe_provenance.h"
#include "config/scenario_reading.h"

namespace gpuplan::config {
namespace {

constexpr const char* kFormat = "gpuplan-calibration/v1";
constexpr const char* kFix = "; write the profile again with gpuplan calibrate";
constexpr const char* kFitForm =
    "t(n) = fixed_s + n / rate_per_s (Hockney & Jesshope, Parallel Computers 2, 1988); "
    "weighted least squares on relative residuals";

template <class Calibration>
auto* gemm_slot(Calibration& c, const std::string& precision) {
  if (precision == "fp32") return &c.gemm_fp32;
  if (precision == "tf32") return &c.gemm_tf32;
  if (precision == "fp16") return &c.gemm_fp16;
  if (precision == "bf16") return &c.gemm_bf16;
  return &c.gemm_fp8;
}

constexpr const char* kGemmPrecisions[] = {"fp32", "tf32", "fp16", "bf16", "fp8"};
constexpr const char* kCopies[] = {"h2d_pinned", "h2d_pageable", "d2h_pinned", "d2h_pageable"};

template <class Calibration>
auto* copy_slot(Calibration& c, const std::string& name) {
  if (name == "h2d_pinned") return &c.h2d_pinned;
  if (name == "h2d_pageable") return &c.h2d_pageable;
  if (name == "d2h_pinned") return &c.d2h_pinned;
  return &c.d2h_pageable;
}

// The unit of a line's size: "flop" for GEMM, "bytes" for copies.
nlohmann::ordered_json line_json(const models::HockneyLine& line, const std::string& unit) {
  nlohmann::ordered_json j;
  j["fixed_s"] = line.fixed_s;
  j["rate_" + unit + "_per_s"] = line.rate_per_s;
  j["half_" + unit] = line.half_size();
  return j;
}

std::optional<models::HockneyLine> read_line(const nlohmann::json& node, const std::string& path,
                                             const std::string& unit, JsonErrors& errors) {
  JsonObjectReader r(node, path, errors);
  const auto fixed = r.number("fixed_s", true, false);
  const auto rate = r.number("rate_" + unit + "_per_s", true, true);
  r.declare({"half_" + unit});  // derived, written for people
  r.finish();
  if (!fixed || !rate) {
    return std::nullopt;
  }
  return models::HockneyLine{*fixed, *rate};
}

models::ProbeProvenance read_provenance(const nlohmann::json& node, JsonErrors& errors) {
  JsonObjectReader r(node, "provenance", errors);
  return read_probe_provenance(r);
}

nlohmann::ordered_json provenance_json(const models::ProbeProvenance& pv) {
  nlohmann::ordered_json j;
  j["gpu_name"] = pv.gpu_name;
  j["compute_capability"] = pv.compute_capability;
  j["gpu_count"] = pv.gpu_count;
  j["driver_version"] = pv.driver_version;
  j["cuda_runtime_version"] = pv.cuda_runtime_version;
  j["cuda_driver_version"] = pv.cuda_driver_version;
  j["sm_clock_hz"] = pv.sm_clock_hz;
  j["memory_clock_hz"] = pv.memory_clock_hz;
  j["memory_bytes"] = pv.memory_bytes;
  j["date"] = pv.date;
  j["probe_git_sha"] = pv.probe_git_sha;
  j["repeats"] = pv.repeats;
  j["warmup"] = pv.warmup;
  return j;
}

std::string read_file(const std::string& path) {
  return read_text_file(path, "calibration profile");
}

}  // namespace

models::CalibrationProfile parse_calibration_profile(const std::string& text, const std::string& file) {
  const nlohmann::json j = parse_json_text(text, file, kFix);
  JsonErrors errors(file);
  JsonObjectReader root(j, "", errors);
  errors.throw_if_any();
  models::CalibrationProfile p;
  models::GpuCalibration& c = p.rates;
  if (const auto format = root.string("format", true); format && *format != kFormat) {
    root.error("format", "unsupported calibration profile format '" + *format + "', expected '" + kFormat + "'",
               kFix);
  }
  p.gpu = root.string("gpu", true).value_or("");
  root.declare({"fit"});
  if (const nlohmann::json* pv = root.raw("provenance", true, "{\"gpu_name\": ..., \"date\": ...}")) {
    p.provenance = read_provenance(*pv, errors);
  }
  if (const nlohmann::json* gemm = root.raw("gemm", false, "{}")) {
    JsonObjectReader g(*gemm, "gemm", errors);
    for (const char* precision : kGemmPrecisions) {
      if (const nlohmann::json* line = g.raw(precision, false, "{}")) {
        *gemm_slot(c, precision) = read_line(*line, g.path_of(precision), "flop", errors);
      }
    }
    g.finish();
  }
  if (const nlohmann::json* memory = root.raw("memory", false, "{}")) {
    c.memory = read_line(*memory, "memory", "bytes", errors);
  }
  for (const char* copy : kCopies) {
    if (const nlohmann::json* line = root.raw(copy, false, "{}")) {
      *copy_slot(c, copy) = read_line(*line, copy, "bytes", errors);
    }
  }
  c.launch_latency_s = root.number("launch_latency_s", false, false).value_or(0.0);
  c.small_kernel_dispatch_s = root.number("small_kernel_dispatch_s", false, false).value_or(0.0);
  if (const nlohmann::json* p2p = root.raw("p2p", false, "[]")) {
    if (!p2p->is_array()) {
      errors.add("expected an array, found " + describe_json(*p2p), "p2p");
    } else {
      for (std::size_t i = 0; i < p2p->size(); ++i) {
        const std::string path = "p2p[" + std::to_string(i) + "]";
        JsonObjectReader r((*p2p)[i], path, errors);
        const auto src = r.integer("src", true, 0);
        const auto dst = r.integer("dst", true, 0);
        const auto fixed = r.number("fixed_s", true, false);
        const auto rate = r.number("rate_bytes_per_s", true, true);
        r.declare({"half_bytes"});
        r.finish();
        if (src && dst && fixed && rate) {
          c.p2p.push_back({static_cast<int>(*src), static_cast<int>(*dst), {*fixed, *rate}});
        }
      }
    }
  }
  if (const nlohmann::json* ar = root.raw("all_reduce", false, "{}")) {
    JsonObjectReader r(*ar, "all_reduce", errors);
    const auto gpus = r.integer("gpus", true, 2);
    const auto fixed = r.number("fixed_s", true, false);
    const auto algbw = r.number("algbw_bytes_per_s", true, true);
    const auto busbw = r.number("busbw_bytes_per_s", true, true);
    r.finish();
    if (gpus && fixed && algbw && busbw) {
      c.all_reduce = models::AllReduceLine{static_cast<int>(*gpus), {*fixed, *algbw}, *busbw};
    }
  }
  if (const nlohmann::json* fits = root.raw("fits", false, "[]")) {
    if (!fits->is_array()) {
      errors.add("expected an array, found " + describe_json(*fits), "fits");
    } else {
      for (std::size_t i = 0; i < fits->size(); ++i) {
        JsonObjectReader r((*fits)[i], "fits[" + std::to_string(i) + "]", errors);
        models::FitQuality q;
        q.series = r.string("series", true).value_or("");
        q.points = static_cast<int>(r.integer("points", true, 0).value_or(0));
        q.max_relative_residual = r.number("max_relative_residual", true, false).value_or(0.0);
        r.finish();
        p.fits.push_back(q);
      }
    }
  }
  root.finish();
  errors.throw_if_any();
  c.profile = file + (p.provenance.date.empty() ? "" : " (measured " + p.provenance.date + ")");
  return p;
}

models::CalibrationProfile load_calibration_profile(const std::string& path) {
  return parse_calibration_profile(read_file(path), path);
}

std::string calibration_profile_to_json(const models::CalibrationProfile& p) {
  const models::GpuCalibration& c = p.rates;
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["gpu"] = p.gpu;
  j["provenance"] = provenance_json(p.provenance);
  j["fit"] = kFitForm;
  nlohmann::ordered_json gemm = nlohmann::ordered_json::object();
  for (const char* precision : kGemmPrecisions) {
    const auto& slot = *gemm_slot(c, precision);
    if (slot) {
      gemm[precision] = line_json(*slot, "flop");
    }
  }
  j["gemm"] = gemm;
  if (c.memory) {
    j["memory"] = line_json(*c.memory, "bytes");
  }
  for (const char* copy : kCopies) {
    const auto& slot = *copy_slot(c, copy);
    if (slot) {
      j[copy] = line_json(*slot, "bytes");
    }
  }
  j["launch_latency_s"] = c.launch_latency_s;
  j["small_kernel_dispatch_s"] = c.small_kernel_dispatch_s;
  if (!c.p2p.empty()) {
    nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
    for (const models::P2pLine& l : c.p2p) {
      nlohmann::ordered_json e;
      e["src"] = l.src;
      e["dst"] = l.dst;
      e["fixed_s"] = l.line.fixed_s;
      e["rate_bytes_per_s"] = l.line.rate_per_s;
      e["half_bytes"] = l.line.half_size();
      pairs.push_back(e);
    }
    j["p2p"] = pairs;
  }
  if (c.all_reduce) {
    nlohmann::ordered_json e;
    e["gpus"] = c.all_reduce->gpus;
    e["fixed_s"] = c.all_reduce->algbw.fixed_s;
    e["algbw_bytes_per_s"] = c.all_reduce->algbw.rate_per_s;
    e["busbw_bytes_per_s"] = c.all_reduce->busbw_bytes_per_s;
    j["all_reduce"] = e;
  }
  nlohmann::ordered_json fits = nlohmann::ordered_json::array();
  for (const models::FitQuality& q : p.fits) {
    fits.push_back({{"series", q.series}, {"points", q.points}, {"max_relative_residual", q.max_relative_residual}});
  }
  j["fits"] = fits;
  return j.dump(2) + "\n";
}

models::GpuSpec calibrated_gpu(const models::GpuSpec& catalog, const models::CalibrationProfile& profile) {
  models::GpuSpec g = catalog;
  g.calibrated = true;
  g.calibration = profile.rates;
  return g;
}

std::vector<ProfileFile> find_calibration_profiles(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<ProfileFile> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return out;
  }
  std::vector<std::string> paths;
  for (const auto& entry : fs::directory_iterator(dir)) {
    // A profile is <gpu>-<date>.json; the raw measurements kept beside it carry a second
    // suffix (<gpu>-<date>.probe.json, the probe output it was fitted from;
    // <gpu>-<date>.torch-steps.json, cuda_probe/torch_steps.py's training steps).
    if (entry.is_regular_file() && entry.path().extension() == ".json" && entry.path().stem().extension().empty()) {
      paths.push_back(entry.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> errors;
  for (const std::string& path : paths) {
    try {
      out.push_back({path, load_calibration_profile(path)});
    } catch (const ConfigError& e) {
      errors.insert(errors.end(), e.messages().begin(), e.messages().end());
    }
  }
  if (!errors.empty()) {
    throw ConfigError(errors);
  }
  return out;
}

const ProfileFile* profile_for_gpu(const std::vector<ProfileFile>& profiles, const std::string& gpu_name) {
  const ProfileFile* best = nullptr;
  for (const ProfileFile& f : profiles) {
    if (f.profile.gpu != gpu_name) {
      continue;
    }
    if (best == nullptr || f.profile.provenance.date > best->profile.provenance.date ||
        (f.profile.provenance.date == best->profile.provenance.date && f.path > best->path)) {
      best = &f;
    }
  }
  return best;
}

CalibrationRefusal calibration_refusal(const models::GpuSpec& gpu) {
  if (!gpu.is_amd()) {
    return {};
  }
  return {gpu.name + " is an AMD GPU (" + gpu.architecture_text() + ")",
          "; cuda_probe measures CUDA GPUs only and gpuplan has no ROCm probe, so no calibration profile can "
          "describe it: use " + gpu.name + " without a profile (its predictions are prediction-only)"};
}

}  // namespace gpuplan::config
