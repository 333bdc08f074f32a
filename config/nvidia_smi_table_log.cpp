#include "config/nvidia_smi_table_log.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <map>
#include <regex>

#include "config/gpu_series_builder.h"
#include "core/units.h"

namespace gpuplan::config {

namespace {

/// "Mon Jan 15 10:23:45 2024" (C asctime layout) as seconds since 1970-01-01.
std::optional<double> asctime_seconds(const std::string& line) {
  static const std::array<const char*, 12> months = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const auto cells = split_blanks(line);
  if (cells.size() != 5) return std::nullopt;
  unsigned month = 0;
  for (unsigned m = 0; m < months.size(); ++m) {
    if (cells[1].text == months[m]) month = m + 1;
  }
  const auto day = split_number(cells[2].text);
  const auto year = split_number(cells[4].text);
  const auto clock = clock_seconds(cells[3].text);
  if (month == 0 || !day || !year || !clock || !day->unit.empty() || !year->unit.empty()) return std::nullopt;
  // Checked before the casts below: a year of 50 digits is not a date (found by fuzz_monitoring_log).
  if (!(year->value >= 1970.0 && year->value <= 9999.0) || !(day->value >= 1.0 && day->value <= 31.0)) {
    return std::nullopt;
  }
  const auto days = days_since_epoch(static_cast<int>(year->value), month, static_cast<unsigned>(day->value));
  if (!days) return std::nullopt;
  return core::days(*days) + *clock;
}

}  // namespace

bool looks_like_nvidia_smi_table(const LogText& log) {
  for (const auto& l : log.lines) {
    if (l.text.find("| NVIDIA-SMI ") != std::string::npos) return true;
  }
  return false;
}

std::vector<models::GpuSeries> read_nvidia_smi_table(const LogText& log, std::vector<std::string>& notes) {
  // "|   0  NVIDIA A100-SXM4-80GB   On  | ..." : index and name of a GPU.
  static const std::regex index_line(R"(^\|\s+(\d+)\s+(.*?)\s+(On|Off)\s*\|)");
  // "| N/A   34C    P0    61W / 400W |  40536MiB / 81920MiB |     98%      Default |"
  static const std::regex figures_line(
      R"(^\|\s*(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*/\s*(\S+)\s*\|\s*(\S+?)\s*/\s*(\S+?)\s*\|\s*(\S+)\s+\S+.*\|)");
  GpuSeriesBuilder series(log.path, "nvidia_smi_table");
  double now = std::numeric_limits<double>::quiet_NaN();
  bool in_gpus = false;
  for (std::size_t i = 0; i < log.lines.size(); ++i) {
    const LogLine& line = log.lines[i];
    if (const auto t = asctime_seconds(std::string(trim_view(line.text)))) {
      now = *t;
      continue;
    }
    if (line.text.rfind("|====", 0) == 0) {
      in_gpus = true;
      continue;
    }
    if (line.text.find("Processes:") != std::string::npos || trim_view(line.text).empty()) in_gpus = false;
    std::smatch m;
    if (!in_gpus || !std::regex_search(line.text, m, index_line)) continue;
    // A GPU index past 4 digits is no nvidia-smi row (std::stoi would overflow on 11).
    if (m[1].length() > 4) {
      throw_log_error(log, line.number, static_cast<int>(m.position(1)) + 1, "GPU index",
                      "the GPU index " + m[1].str() + " is past 9999", "; keep the table as nvidia-smi printed it");
    }
    const int index = std::stoi(m[1].str());
    const std::string name = m[2].str();
    if (i + 1 >= log.lines.size()) {
      notes.push_back(fmt::format("{}:{}: the last snapshot is cut short and was skipped", log.path, line.number));
      break;
    }
    const LogLine& next = log.lines[i + 1];
    std::smatch f;
    if (!std::regex_search(next.text, f, figures_line)) {
      if (i + 2 >= log.lines.size()) {
        notes.push_back(fmt::format("{}:{}: the last snapshot is cut short and was skipped", log.path, next.number));
        break;
      }
      throw_log_error(log, next.number, 1, fmt::format("GPU {}", index),
                      "expected the figures line of GPU " + std::to_string(index) +
                          " ('| Fan Temp Perf Pwr:Usage/Cap | Memory-Usage | GPU-Util ... |')",
                      "; keep the nvidia-smi table as printed");
    }
    auto cell = [&](int group, const std::string& what, const std::string& unit) {
      LogCell c{f[group].str(), static_cast<int>(f.position(group)) + 1};
      return cell_number(log, next.number, c, what, unit);
    };
    models::GpuReading r;
    r.time_s = now;
    r.power_w = cell(4, "Pwr:Usage", "W");
    r.power_limit_w = cell(5, "Pwr:Cap", "W");
    r.memory_used_bytes = core::mebibytes(cell(6, "Memory-Usage", "MiB"));
    r.memory_total_bytes = core::mebibytes(cell(7, "Memory-Usage", "MiB"));
    r.utilization = cell_share(log, next.number, LogCell{f[8].str(), static_cast<int>(f.position(8)) + 1}, "GPU-Util", "%", 100.0);
    series.add(std::to_string(index), index, name, r);
    ++i;
  }
  return std::move(series).finish(std::numeric_limits<double>::quiet_NaN());
}

}  // namespace gpuplan::config
