#include "config/log_text.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "config/config_error.h"
#include "config/input_text.h"
#include "core/units.h"

namespace gpuplan::config {

LogText log_text_of(const std::string& content, const std::string& path) {
  check_input_text(content, path);
  LogText log;
  log.path = path;
  std::string current;
  int number = 1;
  for (std::size_t i = 0; i < content.size(); ++i) {
    const char c = content[i];
    if (c == '\n' || c == '\r') {
      log.lines.push_back({number++, current});
      current.clear();
      if (c == '\r' && i + 1 < content.size() && content[i + 1] == '\n') ++i;
    } else {
      current += c;
    }
  }
  if (!current.empty()) log.lines.push_back({number, current});
  return log;
}

LogText read_log_text(const std::string& path) { return log_text_of(read_text_file(path), path); }

std::size_t last_nonblank_line(const LogText& log) {
  std::size_t last = 0;
  for (std::size_t i = 0; i < log.lines.size(); ++i) {
    if (!trim_view(log.lines[i].text).empty()) last = i;
  }
  return last;
}

bool cut_short(std::size_t i, std::size_t last, std::size_t cells, std::size_t columns) {
  return i == last && cells < columns;
}

void note_cut_short(const LogText& log, const LogLine& line, std::vector<std::string>& notes) {
  notes.push_back(log.path + ":" + std::to_string(line.number) + ": the last line is cut short and was skipped");
}

void throw_log_error(const LogText& log, int line, int column, const std::string& what, const std::string& problem,
                     const std::string& fix) {
  throw ConfigError(format_diagnostic(problem, SourceMark{log.path, line, column}, what, fix));
}

std::string_view trim_view(std::string_view s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<LogCell> split_blanks(const std::string& line) {
  std::vector<LogCell> cells;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    cells.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return cells;
}

std::vector<LogCell> split_on(const std::string& line, char separator) {
  std::vector<LogCell> cells;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = line.find(separator, start);
    const std::string_view raw = std::string_view(line).substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::string_view cell = trim_view(raw);
    const std::size_t lead = cell.empty() ? 0 : static_cast<std::size_t>(cell.data() - raw.data());
    cells.push_back({std::string(cell), static_cast<int>(start + lead) + 1});
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return cells;
}

bool not_available(std::string_view cell) {
  cell = trim_view(cell);
  return cell.empty() || cell == "-" || cell == "N/A" || cell == "[N/A]" || cell == "[Not Supported]" ||
         cell == "[Unknown Error]" || cell == "[Insufficient Permissions]" || cell == "[GPU is lost]";
}

std::optional<NumberWithUnit> split_number(std::string_view cell) {
  cell = trim_view(cell);
  double value = 0.0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (ec != std::errc{} || !std::isfinite(value)) return std::nullopt;
  return NumberWithUnit{value, std::string(trim_view(std::string_view(end, cell.data() + cell.size() - end)))};
}

double cell_number(const LogText& log, int line, const LogCell& cell, const std::string& what, const std::string& unit) {
  if (not_available(cell.text)) return std::numeric_limits<double>::quiet_NaN();
  const auto n = split_number(cell.text);
  if (!n) {
    throw_log_error(log, line, cell.column, what, "'" + cell.text + "' is not a number",
                    "; expected a number" + (unit.empty() ? std::string() : " in " + unit) + ", or [N/A]");
  }
  if (!n->unit.empty() && n->unit != unit) {
    throw_log_error(log, line, cell.column, what, "'" + cell.text + "' has unit '" + n->unit + "'",
                    unit.empty() ? std::string("; expected a plain number") : "; expected " + unit);
  }
  if (n->value < 0.0) {
    throw_log_error(log, line, cell.column, what, "'" + cell.text + "' is negative", "; expected a value of at least 0");
  }
  if (n->value > kMaxLogReading) {
    throw_log_error(log, line, cell.column, what, "'" + cell.text + "' is out of range",
                    "; no reading of a monitoring tool reaches 1e15 (W, %, MiB, MHz, MB/s, bytes/s)");
  }
  return n->value;
}

double cell_share(const LogText& log, int line, const LogCell& cell, const std::string& what, const std::string& unit,
                  double full) {
  const double v = cell_number(log, line, cell, what, unit);
  if (v > full) {
    throw_log_error(log, line, cell.column, what, "'" + cell.text + "' is above " + (full == 1.0 ? "1" : "100 %"),
                    full == 1.0 ? "; expected a ratio from 0 to 1" : "; expected a share from 0 to 100 %");
  }
  return v / full;
}

std::optional<double> clock_seconds(std::string_view text) {
  text = trim_view(text);
  if (text.size() < 8 || text[2] != ':' || text[5] != ':') return std::nullopt;
  auto two = [&](std::size_t at) -> int {
    if (!std::isdigit(static_cast<unsigned char>(text[at])) || !std::isdigit(static_cast<unsigned char>(text[at + 1]))) return -1;
    return (text[at] - '0') * 10 + (text[at + 1] - '0');
  };
  const int h = two(0), m = two(3), s = two(6);
  if (h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 60) return std::nullopt;
  double fraction = 0.0;
  if (text.size() > 8) {
    if (text[8] != '.' || text.size() == 9) return std::nullopt;
    double scale = 0.1;
    for (std::size_t i = 9; i < text.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
      fraction += (text[i] - '0') * scale;
      scale /= 10.0;
    }
  }
  return core::hours(h) + core::minutes(m) + s + fraction;
}

std::optional<double> days_since_epoch(int year, unsigned month, unsigned day) {
  const std::chrono::year_month_day ymd{std::chrono::year{year}, std::chrono::month{month}, std::chrono::day{day}};
  if (!ymd.ok()) return std::nullopt;
  return static_cast<double>(std::chrono::sys_days{ymd}.time_since_epoch().count());
}

std::optional<double> timestamp_seconds(std::string_view text) {
  text = trim_view(text);
  const std::size_t space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view date = text.substr(0, space);
  const auto clock = clock_seconds(text.substr(space + 1));
  if (!clock) return std::nullopt;
  int y = 0;
  unsigned m = 0, d = 0;
  auto number = [](std::string_view s, auto& out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc{} && end == s.data() + s.size();
  };
  if (date.size() == 10 && date[4] == '/' && date[7] == '/') {  // 2024/01/15
    if (!number(date.substr(0, 4), y) || !number(date.substr(5, 2), m) || !number(date.substr(8, 2), d)) return std::nullopt;
  } else if (date.size() == 8) {  // 20240115
    if (!number(date.substr(0, 4), y) || !number(date.substr(4, 2), m) || !number(date.substr(6, 2), d)) return std::nullopt;
  } else {
    return std::nullopt;
  }
  const auto days = days_since_epoch(y, m, d);
  if (!days) return std::nullopt;
  return core::days(*days) + *clock;
}

double median_interval_s(const std::vector<double>& times_s) {
  std::vector<double> steps;
  double previous = std::numeric_limits<double>::quiet_NaN();
  for (double t : times_s) {
    if (std::isnan(t)) continue;
    if (!std::isnan(previous) && t > previous) steps.push_back(t - previous);
    previous = t;
  }
  if (steps.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(steps.begin(), steps.end());
  const std::size_t n = steps.size();
  return n % 2 == 1 ? steps[n / 2] : 0.5 * (steps[n / 2 - 1] + steps[n / 2]);
}

}  // namespace gpuplan::config
