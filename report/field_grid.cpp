#include "report/field_grid.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "report/human_units.h"
#include "report/text_table.h"

namespace gpuplan::report {
namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : "; ") + s;
  return out;
}

std::string quoted_csv(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

nlohmann::ordered_json json_of(const std::optional<FieldValue>& value) {
  if (!value) return nullptr;
  return std::visit([](const auto& v) { return nlohmann::ordered_json(v); }, *value);
}

// The shortest text that reads back as the same double (fmt's default for a double:
// Dragonbox shortest round-trip), so a CSV cell loses nothing of the JSON value.
std::string number_text(double x) { return fmt::format("{}", x); }

/// `key<sep>value` pairs joined with `between`.
template <typename Map, typename Text>
std::string joined_map(const Map& map, const char* sep, const char* between, Text text) {
  std::string out;
  for (const auto& [key, value] : map) out += (out.empty() ? "" : between) + key + sep + text(value);
  return out;
}

std::string same(const std::string& s) { return s; }

}  // namespace

std::string human_value(const std::string& unit, const FieldValue& value) {
  if (const double* x = std::get_if<double>(&value)) {
    if (unit == "s") return human_duration(*x);
    if (unit == "B") return human_bytes(*x);
    if (unit == "B/s") return human_bytes(*x) + "/s";
    if (unit == "USD") return human_usd(*x);
    if (unit == "J") return human_energy(*x);
    if (unit == "1") return human_percent(*x);
    if (unit == "samples/s" || unit == "tokens/s") return human_rate(*x);
    return fmt::format("{:.1f}", *x);
  }
  if (const bool* b = std::get_if<bool>(&value)) return *b ? "yes" : "no";
  if (const std::int64_t* n = std::get_if<std::int64_t>(&value)) return std::to_string(*n);
  if (const std::string* s = std::get_if<std::string>(&value)) return *s;
  if (const TextMap* m = std::get_if<TextMap>(&value)) return joined_map(*m, ": ", "; ", same);
  if (const NumberMap* m = std::get_if<NumberMap>(&value)) return joined_map(*m, ": ", "; ", human_percent);
  return joined(std::get<std::vector<std::string>>(value));
}

std::string csv_value(const std::optional<FieldValue>& value) {
  if (!value) return "";
  if (const double* x = std::get_if<double>(&*value)) return number_text(*x);
  if (const bool* b = std::get_if<bool>(&*value)) return *b ? "true" : "false";
  if (const std::int64_t* n = std::get_if<std::int64_t>(&*value)) return std::to_string(*n);
  if (const std::string* s = std::get_if<std::string>(&*value)) return quoted_csv(*s);
  if (const TextMap* m = std::get_if<TextMap>(&*value)) return quoted_csv(joined_map(*m, "=", ";", same));
  if (const NumberMap* m = std::get_if<NumberMap>(&*value)) return quoted_csv(joined_map(*m, "=", ";", number_text));
  return quoted_csv(joined(std::get<std::vector<std::string>>(*value)));
}

std::string grid_csv(const FieldGrid& grid) {
  std::string out;
  for (std::size_t i = 0; i < grid.columns.size(); ++i) out += (i == 0 ? "" : ",") + grid.columns[i].name;
  out += "\n";
  for (const auto& row : grid.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) out += (i == 0 ? "" : ",") + csv_value(row[i].value);
    out += "\n";
  }
  return out;
}

std::string grid_table(const FieldGrid& grid, bool markdown) {
  std::vector<std::string> header;
  for (const GridColumn& c : grid.columns) {
    if (c.shown) header.push_back(c.heading);
  }
  TextTable table(header);
  for (const auto& row : grid.rows) {
    std::vector<std::string> cells;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (grid.columns[i].shown) cells.push_back(row[i].human);
    }
    table.add_row(std::move(cells));
  }
  return markdown ? table.to_markdown() : table.to_text(kTerminalColumns);
}

std::string grid_json(const JsonHead& head, const std::string& rows_key, const FieldGrid& grid) {
  nlohmann::ordered_json root = nlohmann::ordered_json::object();
  for (const auto& [key, value] : head) root[key] = json_of(value);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& row : grid.rows) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < row.size(); ++i) j[grid.columns[i].name] = json_of(row[i].value);
    rows.push_back(std::move(j));
  }
  root[rows_key] = std::move(rows);
  return root.dump(2) + "\n";
}

}  // namespace gpuplan::report
