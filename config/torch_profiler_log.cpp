#include "config/torch_profiler_log.h"

#include <fmt/format.h>

#include <cmath>

#include "core/units.h"

namespace gpuplan::config {

namespace {

struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string name;
};

bool is_rule(const std::string& line) {
  const std::string_view t = trim_view(line);
  return t.size() >= 10 && t.find_first_not_of("- ") == std::string_view::npos;
}

std::vector<Span> spans_of(const std::string& rule) {
  std::vector<Span> spans;
  std::size_t i = 0;
  while (i < rule.size()) {
    if (rule[i] != '-') {
      ++i;
      continue;
    }
    const std::size_t begin = i;
    while (i < rule.size() && rule[i] == '-') ++i;
    spans.push_back({begin, i, ""});
  }
  return spans;
}

/// Cells separated by two or more blanks (names hold single spaces; columns are padded by at
/// least two), with their 1-based columns.
std::vector<LogCell> split_wide(const std::string& line) {
  std::vector<LogCell> cells;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    if (i >= line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && !(line[i] == ' ' && (i + 1 >= line.size() || line[i + 1] == ' '))) ++i;
    cells.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return cells;
}

LogCell cell_at(const std::string& line, const Span& s) {
  if (s.begin >= line.size()) return {"", static_cast<int>(s.begin) + 1};
  const std::string_view raw = std::string_view(line).substr(s.begin, s.end - s.begin);
  return {std::string(trim_view(raw)), static_cast<int>(s.begin) + 1};
}

/// "78.632s", "68.203ms", "0.000us", "12ns" as seconds.
double profiler_seconds(const LogText& log, int line, const LogCell& cell, const std::string& what) {
  if (not_available(cell.text)) return std::numeric_limits<double>::quiet_NaN();
  const auto n = split_number(cell.text);
  if (n) {
    if (n->unit == "s") return n->value;
    if (n->unit == "ms") return core::milliseconds(n->value);
    if (n->unit == "us") return core::microseconds(n->value);
    if (n->unit == "ns") return core::nanoseconds(n->value);
  }
  throw_log_error(log, line, cell.column, what, "'" + cell.text + "' is not a time", "; expected a number with s, ms, us or ns");
}

double profiler_share(const LogText& log, int line, const LogCell& cell, const std::string& what) {
  return cell_share(log, line, cell, what, "%", 100.0);
}

}  // namespace

bool looks_like_torch_profiler(const LogText& log) {
  for (const auto& l : log.lines) {
    if (l.text.find("Self CPU %") != std::string::npos && l.text.find("Name") != std::string::npos) return true;
  }
  return false;
}

models::ProfilerTable read_torch_profiler(const LogText& log, std::vector<std::string>& notes) {
  models::ProfilerTable table;
  table.source = log.path;
  std::vector<Span> spans;
  int rules = 0;
  const std::size_t last = last_nonblank_line(log);
  for (std::size_t i = 0; i < log.lines.size(); ++i) {
    const LogLine& line = log.lines[i];
    if (is_rule(line.text)) {
      if (rules == 0) spans = spans_of(line.text);
      ++rules;
      continue;
    }
    if (rules == 0 || trim_view(line.text).empty()) continue;
    const auto footer = line.text.find("time total:");
    if (footer != std::string::npos) {
      const LogCell c{std::string(trim_view(line.text.substr(footer + 11))), static_cast<int>(footer) + 12};
      const double s = profiler_seconds(log, line.number, c, "time total");
      if (line.text.find("Self CPU") != std::string::npos) table.self_cpu_total_s = s;
      if (line.text.find("Self CUDA") != std::string::npos) table.self_cuda_total_s = s;
      continue;
    }
    if (rules == 1) {  // the header
      bool has_name = false;
      const auto names = split_wide(line.text);
      for (std::size_t c = 0; c < spans.size(); ++c) {
        spans[c].name = names.size() == spans.size() ? names[c].text : cell_at(line.text, spans[c]).text;
        has_name = has_name || spans[c].name == "Name";
      }
      if (!has_name) throw_log_error(log, line.number, 1, "header", "the profiler table header has no Name column");
      continue;
    }
    if (rules != 2) continue;
    try {
      models::ProfilerRow row;
      const auto wide = split_wide(line.text);
      // Text past the last column's rule: a row wider than its header.
      if (!spans.empty() && line.text.size() > spans.back().end &&
          !trim_view(std::string_view(line.text).substr(spans.back().end)).empty()) {
        throw_log_error(log, line.number, static_cast<int>(spans.back().end) + 1, "row",
                        fmt::format("the row has {} cells where the header has {}", wide.size(), spans.size()),
                        "; keep the table as the profiler printed it");
      }
      for (std::size_t k = 0; k < spans.size(); ++k) {
        const Span& s = spans[k];
        // Cells by blank runs where the row has one per column; by the rule's spans otherwise.
        const LogCell c = wide.size() == spans.size() ? wide[k] : cell_at(line.text, s);
        if (s.name == "Name") row.name = c.text;
        else if (s.name == "Self CPU %") row.self_cpu_share = profiler_share(log, line.number, c, s.name);
        else if (s.name == "Self CPU") row.self_cpu_s = profiler_seconds(log, line.number, c, s.name);
        else if (s.name == "CPU total %") row.cpu_total_share = profiler_share(log, line.number, c, s.name);
        else if (s.name == "CPU total") row.cpu_total_s = profiler_seconds(log, line.number, c, s.name);
        else if (s.name == "Self CUDA") row.self_cuda_s = profiler_seconds(log, line.number, c, s.name);
        else if (s.name == "Self CUDA %") row.self_cuda_share = profiler_share(log, line.number, c, s.name);
        else if (s.name == "# of Calls") row.calls = cell_number(log, line.number, c, s.name, "");
      }
      if (std::isnan(row.calls) && !spans.empty() && spans.back().name == "# of Calls") {
        throw_log_error(log, line.number, static_cast<int>(spans.back().begin) + 1, "# of Calls", "the row has no call count");
      }
      table.rows.push_back(row);
    } catch (const std::exception&) {
      if (!cut_short(i, last, split_wide(line.text).size(), spans.size())) throw;
      note_cut_short(log, line, notes);
    }
  }
  if (spans.empty()) throw_log_error(log, 0, 0, "", "no profiler table (a dashed rule, a header, rows) in the log");
  return table;
}

}  // namespace gpuplan::config
