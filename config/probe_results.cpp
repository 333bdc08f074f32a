#include "config/probe_results.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "config/config_error.h"
#include "config/input_text.h"
#include "config/json_reader.h"
#include "config/probe_provenance.h"

namespace gpuplan::config {
namespace {

constexpr const char* kFormat = "gpuplan-probe/v1";
constexpr const char* kFix = "; produce it again with cuda_probe -o FILE";

std::vector<models::ProbePoint> read_points(const nlohmann::json* array, const std::string& path,
                                            const std::string& size_key, JsonErrors& errors) {
  std::vector<models::ProbePoint> points;
  if (array == nullptr) {
    return points;
  }
  if (!array->is_array()) {
    errors.add("expected an array of points, found " + describe_json(*array), path);
    return points;
  }
  std::set<double> sizes;
  for (std::size_t i = 0; i < array->size(); ++i) {
    JsonObjectReader p((*array)[i], path + "[" + std::to_string(i) + "]", errors);
    p.declare({"m", "n", "k", "flop_per_s", "bytes_per_s", "algbw_bytes_per_s", "busbw_bytes_per_s"});
    const auto size = p.number(size_key, true, true);
    const auto median = p.number("median_s", true, true);
    const auto min = p.number("min_s", false, true);
    const auto max = p.number("max_s", false, true);
    p.finish();
    if (size && median) {
      points.push_back({*size, *median, min.value_or(*median), max.value_or(*median)});
      sizes.insert(*size);
    }
  }
  if (!array->empty() && sizes.size() < 2) {
    errors.add("needs at least two distinct sizes to fit a line, found " + std::to_string(sizes.size()), path);
  }
  return points;
}

models::ProbeProvenance read_provenance(JsonObjectReader& root) {
  const nlohmann::json* node = root.raw("provenance", true, "{\"gpu_name\": ..., \"date\": ...}");
  if (node == nullptr) {
    return {};
  }
  JsonObjectReader r(*node, root.path_of("provenance"), root.errors());
  return read_probe_provenance(r);
}

}  // namespace

models::ProbeResults parse_probe_results(const std::string& text, const std::string& file) {
  const nlohmann::json j = parse_json_text(text, file, kFix);
  JsonErrors errors(file);
  JsonObjectReader root(j, "", errors);
  models::ProbeResults out;
  if (!root.valid()) {
    errors.throw_if_any();
  }
  if (const auto format = root.string("format", true); format && *format != kFormat) {
    root.error("format", "unsupported probe format '" + *format + "', expected '" + kFormat + "'", kFix);
  }
  root.declare({"summary", "skipped"});  // for people: headline rates, unsupported series
  out.provenance = read_provenance(root);
  if (const nlohmann::json* gemm = root.raw("gemm", false, "{}")) {
    JsonObjectReader g(*gemm, "gemm", errors);
    for (const char* precision : {"fp32", "tf32", "fp16", "bf16", "fp8"}) {
      if (const nlohmann::json* series = g.raw(precision, false, "[]")) {
        out.gemm[precision] = read_points(series, g.path_of(precision), "flop", errors);
      }
    }
    g.finish();
  }
  out.memory_stream = read_points(root.raw("memory_stream", false, "[]"), "memory_stream", "bytes", errors);
  out.memory_copy = read_points(root.raw("memory_copy", false, "[]"), "memory_copy", "bytes", errors);
  out.h2d_pinned = read_points(root.raw("h2d_pinned", false, "[]"), "h2d_pinned", "bytes", errors);
  out.h2d_pageable = read_points(root.raw("h2d_pageable", false, "[]"), "h2d_pageable", "bytes", errors);
  out.d2h_pinned = read_points(root.raw("d2h_pinned", false, "[]"), "d2h_pinned", "bytes", errors);
  out.d2h_pageable = read_points(root.raw("d2h_pageable", false, "[]"), "d2h_pageable", "bytes", errors);
  if (const nlohmann::json* launch = root.raw("launch", false, "{}")) {
    JsonObjectReader l(*launch, "launch", errors);
    for (const char* key : {"launch_latency_s", "small_kernel_dispatch_s"}) {
      if (const nlohmann::json* stat = l.raw(key, false, "{\"median_s\": ...}")) {
        JsonObjectReader s(*stat, l.path_of(key), errors);
        const double median = s.number("median_s", true, true).value_or(0.0);
        s.declare({"min_s", "max_s"});
        s.finish();
        (std::string(key) == "launch_latency_s" ? out.launch_latency_s : out.small_kernel_dispatch_s) = median;
      }
    }
    l.finish();
  }
  if (const nlohmann::json* p2p = root.raw("p2p", false, "[]")) {
    if (!p2p->is_array()) {
      errors.add("expected an array of pairs, found " + describe_json(*p2p), "p2p");
    } else {
      for (std::size_t i = 0; i < p2p->size(); ++i) {
        const std::string path = "p2p[" + std::to_string(i) + "]";
        JsonObjectReader pr((*p2p)[i], path, errors);
        pr.declare({"peer_access"});
        models::P2pSeries s;
        s.src = static_cast<int>(pr.integer("src", true, 0).value_or(0));
        s.dst = static_cast<int>(pr.integer("dst", true, 0).value_or(0));
        s.points = read_points(pr.raw("points", true, "[]"), pr.path_of("points"), "bytes", errors);
        pr.finish();
        out.p2p.push_back(s);
      }
    }
  }
  if (const nlohmann::json* ar = root.raw("all_reduce", false, "{}")) {
    JsonObjectReader a(*ar, "all_reduce", errors);
    a.declare({"nccl_version"});
    out.all_reduce_gpus = static_cast<int>(a.integer("gpus", true, 2).value_or(0));
    out.all_reduce = read_points(a.raw("points", true, "[]"), a.path_of("points"), "bytes", errors);
    a.finish();
  }
  root.finish();
  errors.throw_if_any();
  return out;
}

models::ProbeResults load_probe_results(const std::string& path) {
  return parse_probe_results(read_text_file(path, "probe output"), path);
}

}  // namespace gpuplan::config
