#include "config/scenario_diagnostics.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

namespace gpuplan::config {
namespace {

/// Reads a decimal number at `pos`; advances `pos`. -1 when there is none.
int read_number(const std::string& s, std::size_t& pos) {
  const std::size_t start = pos;
  int value = 0;
  while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])) != 0 && pos - start < 9) {
    value = value * 10 + (s[pos] - '0');
    ++pos;
  }
  return pos == start ? -1 : value;
}

ScenarioDiagnostic split_one(const std::string& message, const std::string& file) {
  ScenarioDiagnostic d;
  const std::string marker = " at " + file;
  std::size_t search = 0;
  while (true) {
    const std::size_t at = message.find(marker, search);
    if (at == std::string::npos || file.empty()) {
      d.problem = message;
      return d;
    }
    std::size_t pos = at + marker.size();
    SourceMark mark{file, 0, 0};
    if (pos < message.size() && message[pos] == ':') {
      std::size_t p = pos + 1;
      const int line = read_number(message, p);
      if (line > 0 && p < message.size() && message[p] == ':') {
        ++p;
        const int column = read_number(message, p);
        if (column > 0) {
          mark.line = line;
          mark.column = column;
          pos = p;
        }
      }
      if (mark.line == 0) {
        search = at + 1;  // ":" that is not a position: not our marker
        continue;
      }
    }
    std::string key_path;
    if (message.compare(pos, 2, " (") == 0) {
      // The key path ends at the ")" that is followed by the end or by "; ".
      std::size_t close = message.find(')', pos + 2);
      while (close != std::string::npos && close + 1 != message.size() &&
             message.compare(close + 1, 2, "; ") != 0) {
        close = message.find(')', close + 1);
      }
      if (close == std::string::npos) {
        search = at + 1;
        continue;
      }
      key_path = message.substr(pos + 2, close - pos - 2);
      pos = close + 1;
    }
    if (pos != message.size() && message.compare(pos, 2, "; ") != 0) {
      search = at + 1;
      continue;
    }
    d.problem = message.substr(0, at);
    d.mark = mark;
    d.key_path = key_path;
    d.fix = message.substr(pos);
    return d;
  }
}

}  // namespace

std::string ScenarioDiagnostic::text() const {
  if (mark.file.empty()) {
    return problem;
  }
  return format_diagnostic(problem, mark, key_path, fix);
}

std::vector<ScenarioDiagnostic> split_diagnostics(const std::vector<std::string>& messages,
                                                  const std::string& file) {
  std::vector<ScenarioDiagnostic> out;
  out.reserve(messages.size());
  for (const std::string& message : messages) {
    out.push_back(split_one(message, file));
  }
  return out;
}

std::vector<std::string> sorted_unique_messages(const std::vector<ScenarioDiagnostic>& diagnostics) {
  std::vector<const ScenarioDiagnostic*> order;
  for (const ScenarioDiagnostic& d : diagnostics) {
    order.push_back(&d);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return std::tie(a->mark.line, a->mark.column) < std::tie(b->mark.line, b->mark.column);
  });
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const ScenarioDiagnostic* d : order) {
    std::string text = d->text();
    if (seen.insert(text).second) {
      out.push_back(std::move(text));
    }
  }
  return out;
}

}  // namespace gpuplan::config
