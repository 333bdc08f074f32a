#include "config/host_stat_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "core/units.h"

namespace gpuplan::config {

namespace {

int find_column(const std::vector<LogCell>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i].text == name) return static_cast<int>(i);
  }
  return -1;
}

double value_at(const LogText& log, int line, const std::vector<LogCell>& cells, int column, const std::string& name) {
  if (column < 0) return std::numeric_limits<double>::quiet_NaN();
  return cell_number(log, line, cells[static_cast<std::size_t>(column)], name, "");
}

/// "(16 CPU)" in the sysstat banner; 0 without one. A count past 10^6 CPUs is an error at the
/// banner (it once overflowed std::stoi: found by fuzz_monitoring_log).
int banner_cpus(const LogText& log) {
  static const std::regex cpus(R"(\((\d+) CPU\))");
  constexpr long kMaxCpus = 1'000'000;
  for (const auto& l : log.lines) {
    std::smatch m;
    if (!std::regex_search(l.text, m, cpus)) continue;
    const std::string digits = m[1].str();
    if (digits.size() > 7 || std::stol(digits) > kMaxCpus) {
      throw_log_error(log, l.number, static_cast<int>(m.position(1)) + 1, "banner",
                      "a CPU count of " + digits + " is past 1000000",
                      "; keep the banner as sysstat printed it");
    }
    return static_cast<int>(std::stol(digits));
  }
  return 0;
}

void check_width(const LogText& log, const LogLine& line, const std::vector<LogCell>& cells, std::size_t width) {
  if (cells.size() != width) {
    throw_log_error(log, line.number, 1, "row",
                    fmt::format("the row has {} cells where the header has {}", cells.size(), width),
                    "; keep the output as the tool printed it");
  }
}

void read_mpstat(const LogText& log, models::HostSeries& s, std::vector<std::string>& notes) {
  std::vector<LogCell> header;
  const std::size_t last = last_nonblank_line(log);
  for (std::size_t i = 0; i < log.lines.size(); ++i) {
    const LogLine& line = log.lines[i];
    const auto cells = split_blanks(line.text);
    if (cells.empty()) continue;
    if (find_column(cells, "%idle") >= 0 && find_column(cells, "CPU") >= 0) {
      header = cells;
      continue;
    }
    if (header.empty() || cells[0].text.rfind("Average", 0) == 0 || line.text.rfind("Linux", 0) == 0) continue;
    try {
      check_width(log, line, cells, header.size());
      const double idle = value_at(log, line.number, cells, find_column(header, "%idle"), "%idle");
      const double iowait = value_at(log, line.number, cells, find_column(header, "%iowait"), "%iowait");
      const double busy = (100.0 - idle - (std::isnan(iowait) ? 0.0 : iowait)) / 100.0;
      if (cells[static_cast<std::size_t>(find_column(header, "CPU"))].text != "all") {
        // mpstat -P ALL: the per-CPU rows follow the "all" row of their interval.
        if (!s.cpu.empty()) {
          double& core = s.cpu.back().busiest_core;
          core = std::isnan(core) ? busy : std::max(core, busy);
        }
        continue;
      }
      models::CpuReading r;
      r.iowait = iowait / 100.0;
      r.busy = busy;
      s.cpu.push_back(r);
    } catch (const std::exception&) {
      if (!cut_short(i, last, cells.size(), header.size())) throw;
      note_cut_short(log, line, notes);
    }
  }
}

void read_vmstat(const LogText& log, models::HostSeries& s, std::vector<std::string>& notes) {
  std::vector<LogCell> header;
  const std::size_t last = last_nonblank_line(log);
  bool since_boot = true;
  for (std::size_t i = 0; i < log.lines.size(); ++i) {
    const LogLine& line = log.lines[i];
    const auto cells = split_blanks(line.text);
    if (cells.empty() || line.text.find("procs") != std::string::npos) continue;
    if (find_column(cells, "us") >= 0 && find_column(cells, "r") >= 0) {
      header = cells;
      continue;
    }
    if (header.empty()) throw_log_error(log, line.number, 1, "row", "a vmstat row before its ' r  b ...' header");
    try {
      check_width(log, line, cells, header.size());
      models::CpuReading r;
      const double us = value_at(log, line.number, cells, find_column(header, "us"), "us");
      const double sy = value_at(log, line.number, cells, find_column(header, "sy"), "sy");
      r.busy = (us + sy) / 100.0;
      r.iowait = value_at(log, line.number, cells, find_column(header, "wa"), "wa") / 100.0;
      r.run_queue = value_at(log, line.number, cells, find_column(header, "r"), "r");
      if (since_boot) {
        since_boot = false;  // averages since boot (vmstat(8))
        continue;
      }
      s.cpu.push_back(r);
    } catch (const std::exception&) {
      if (!cut_short(i, last, cells.size(), header.size())) throw;
      note_cut_short(log, line, notes);
    }
  }
}

void read_iostat(const LogText& log, models::HostSeries& s, std::vector<std::string>& notes) {
  const std::size_t last = last_nonblank_line(log);
  std::vector<LogCell> cpu_header;
  std::vector<LogCell> device_header;
  enum class State { kNone, kCpu, kDevices } state = State::kNone;
  int report = 0;
  std::vector<models::CpuReading> cpu;
  std::vector<std::pair<int, models::DiskReading>> disks;
  for (std::size_t i = 0; i < log.lines.size(); ++i) {
    const LogLine& line = log.lines[i];
    auto cells = split_blanks(line.text);
    if (cells.empty()) {
      state = State::kNone;
      continue;
    }
    if (cells[0].text == "avg-cpu:") {
      cells.erase(cells.begin());
      cpu_header = cells;
      state = State::kCpu;
      ++report;
      continue;
    }
    if (cells[0].text == "Device" || cells[0].text == "Device:") {
      device_header = cells;
      state = State::kDevices;
      continue;
    }
    try {
      if (state == State::kCpu) {
        check_width(log, line, cells, cpu_header.size());
        models::CpuReading r;
        const double idle = value_at(log, line.number, cells, find_column(cpu_header, "%idle"), "%idle");
        const double iowait = value_at(log, line.number, cells, find_column(cpu_header, "%iowait"), "%iowait");
        r.iowait = iowait / 100.0;
        r.busy = (100.0 - idle - iowait) / 100.0;
        cpu.push_back(r);
      } else if (state == State::kDevices) {
        check_width(log, line, cells, device_header.size());
        models::DiskReading d;
        d.device = cells[0].text;
        d.utilization = value_at(log, line.number, cells, find_column(device_header, "%util"), "%util") / 100.0;
        const int kb = find_column(device_header, "rkB/s");
        const int mb = find_column(device_header, "rMB/s");
        if (kb >= 0) d.read_bytes_per_s = core::kibibytes(value_at(log, line.number, cells, kb, "rkB/s"));
        if (mb >= 0) d.read_bytes_per_s = core::mebibytes(value_at(log, line.number, cells, mb, "rMB/s"));
        disks.emplace_back(report, d);
      }
    } catch (const std::exception&) {
      if (!cut_short(i, last, cells.size(), (state == State::kCpu ? cpu_header : device_header).size())) throw;
      note_cut_short(log, line, notes);
    }
  }
  // The first report averages since boot (iostat(1)); keep it only when it is the only one.
  const int first_kept = report > 1 ? 2 : 1;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    if (static_cast<int>(i) + 1 >= first_kept) s.cpu.push_back(cpu[i]);
  }
  for (const auto& [r, d] : disks) {
    if (r >= first_kept || r == 0) s.disks.push_back(d);
  }
}

}  // namespace

std::string host_stat_format(const LogText& log) {
  for (const auto& l : log.lines) {
    const auto cells = split_blanks(l.text);
    if (find_column(cells, "%usr") >= 0 && find_column(cells, "%idle") >= 0) return "mpstat";
    if (!cells.empty() && cells[0].text == "avg-cpu:") return "iostat";
    if (!cells.empty() && (cells[0].text == "Device" || cells[0].text == "Device:") && find_column(cells, "%util") >= 0) return "iostat";
    if (find_column(cells, "r") == 0 && find_column(cells, "us") >= 0 && find_column(cells, "wa") >= 0) return "vmstat";
  }
  return "";
}

models::HostSeries read_host_stat(const LogText& log, const std::string& format, std::vector<std::string>& notes) {
  models::HostSeries s;
  s.source = log.path;
  s.format = format;
  s.cpus = banner_cpus(log);
  if (format == "mpstat") read_mpstat(log, s, notes);
  else if (format == "vmstat") read_vmstat(log, s, notes);
  else if (format == "iostat") read_iostat(log, s, notes);
  else throw std::logic_error("read_host_stat: unknown format '" + format + "'");
  return s;
}

}  // namespace gpuplan::config
