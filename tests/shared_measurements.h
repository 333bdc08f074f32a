#pragma once
// Reading ../shared/data (the public measurements beside the repository) from tests: a file's
// path, one CSV line split, and the `value` of a measurement row by its id.

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace gpuplan::testing {

/// `relative` under the shared folder (GPUPLAN_SHARED_DIR, ../shared beside the repository).
inline std::string shared_file(const std::string& relative) {
  return std::string(GPUPLAN_SHARED_DIR) + "/" + relative;
}

/// Splits one CSV line with double-quoted fields (RFC 4180: "" inside quotes is one quote).
inline std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

/// The `value` column of row `id` (first column) of the shared CSV `relative`
/// ("data/published-measurements.csv"), '~' stripped, as a number in the row's own unit.
/// Fails the test when the file or the row is missing.
inline double measurement_value(const std::string& relative, const std::string& id) {
  std::ifstream in(shared_file(relative));
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split_csv(line);
  const auto column = std::find(header.begin(), header.end(), "value") - header.begin();
  while (std::getline(in, line)) {
    const std::vector<std::string> f = split_csv(line);
    if (!f.empty() && f[0] == id) {
      std::string v = f.at(static_cast<std::size_t>(column));
      v.erase(std::remove(v.begin(), v.end(), '~'), v.end());
      return std::stod(v);
    }
  }
  FAIL("row " << id << " not found in " << relative);
  return 0.0;
}

}  // namespace gpuplan::testing
