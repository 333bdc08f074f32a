#include "config/nvidia_smi_dmon_log.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "config/gpu_series_builder.h"
#include "core/units.h"

namespace gpuplan::config {

namespace {

/// The names of a `#` header line: "# gpu pwr" and "#Date Time gpu" alike.
std::vector<LogCell> header_names(const std::string& line) {
  std::string rest = line;
  rest[0] = ' ';  // the '#'
  return split_blanks(rest);
}

bool is_units_line(const std::vector<LogCell>& names) {
  return !names.empty() && (names[0].text == "Idx" || names[0].text == "YYYYMMDD" || names[0].text == "HH:MM:SS");
}

}  // namespace

bool looks_like_nvidia_smi_dmon(const std::string& first_line) {
  if (first_line.empty() || first_line[0] != '#') return false;
  const auto names = header_names(first_line);
  for (const auto& n : names) {
    if (n.text == "gpu") return true;
    if (n.text != "Date" && n.text != "Time") return false;
  }
  return false;
}

std::vector<models::GpuSeries> read_nvidia_smi_dmon(const LogText& log, std::vector<std::string>& notes) {
  std::vector<std::string> names;
  GpuSeriesBuilder series(log.path, "nvidia_smi_dmon");
  double day_offset_s = 0.0;  // -o T prints the time of day only: add a day at each wrap
  double previous_time = std::numeric_limits<double>::quiet_NaN();
  const std::size_t last = last_nonblank_line(log);
  for (std::size_t i = 0; i < log.lines.size(); ++i) {
    const LogLine& line = log.lines[i];
    if (trim_view(line.text).empty()) continue;
    if (line.text[0] == '#') {
      const auto header = header_names(line.text);
      if (!is_units_line(header)) {
        names.clear();
        for (const auto& c : header) names.push_back(c.text);
      }
      continue;
    }
    if (names.empty()) {
      throw_log_error(log, line.number, 1, "row", "a dmon row before any '# gpu ...' header",
                      "; keep the header lines nvidia-smi dmon prints");
    }
    const auto cells = split_blanks(line.text);
    try {
      if (cells.size() != names.size()) {
        throw_log_error(log, line.number, 1, "row",
                        fmt::format("the row has {} cells where the header has {}", cells.size(), names.size()),
                        "; every dmon row has one cell per column of its header");
      }
      models::GpuReading r;
      int index = -1;
      std::string date;
      for (std::size_t c = 0; c < names.size(); ++c) {
        const std::string& n = names[c];
        auto number = [&](const char* unit) { return cell_number(log, line.number, cells[c], n, unit); };
        if (n == "Date") {
          date = cells[c].text;
        } else if (n == "Time") {
          const auto clock = clock_seconds(cells[c].text);
          std::optional<double> t = date.empty() ? clock : timestamp_seconds(date + " " + cells[c].text);
          if (!t) {
            throw_log_error(log, line.number, cells[c].column, n, "'" + cells[c].text + "' is not a time",
                            "; expected HH:MM:SS (and YYYYMMDD in the Date column)");
          }
          if (date.empty()) {
            if (!std::isnan(previous_time) && *t + day_offset_s < previous_time) day_offset_s += core::days(1);
            *t += day_offset_s;
          }
          r.time_s = *t;
          previous_time = *t;
        } else if (n == "gpu") {
          const double v = number("");
          if (std::isnan(v) || v < 0 || v != std::floor(v)) {
            throw_log_error(log, line.number, cells[c].column, n, "'" + cells[c].text + "' is not a GPU index",
                            "; expected 0, 1, ...");
          }
          index = static_cast<int>(v);
        } else if (n == "pwr") {
          r.power_w = number("");
        } else if (n == "sm") {
          r.utilization = cell_share(log, line.number, cells[c], n, "", 100.0);
        } else if (n == "mem") {
          r.memory_utilization = cell_share(log, line.number, cells[c], n, "", 100.0);
        } else if (n == "fb") {
          r.memory_used_bytes = core::mebibytes(number(""));
        } else if (n == "pclk") {
          r.sm_clock_hz = number("") * core::kMega;
        } else if (n == "rxpci") {
          r.pcie_rx_bytes_per_s = core::megabytes(number(""));
        } else if (n == "txpci") {
          r.pcie_tx_bytes_per_s = core::megabytes(number(""));
        } else {
          number("");  // every other dmon column is a number too
        }
      }
      if (index < 0) throw_log_error(log, line.number, 1, "gpu", "the header has no gpu column");
      series.add(std::to_string(index), index, "", r);
    } catch (const std::exception&) {
      if (!cut_short(i, last, cells.size(), names.size())) throw;
      note_cut_short(log, line, notes);
    }
  }
  return std::move(series).finish(kDmonDefaultInterval_s);
}

}  // namespace gpuplan::config
