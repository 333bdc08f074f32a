#include "config/nvidia_smi_query_log.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "config/gpu_series_builder.h"
#include "core/units.h"

namespace gpuplan::config {

namespace {

enum class Field { kTimestamp, kIndex, kName, kBusId, kUuid, kUtil, kMemUtil, kMemUsed, kMemTotal, kPower, kPowerLimit, kSmClock, kOther };

/// Field names as nvidia-smi prints them in the header, and as --query-gpu accepts them
/// (`nvidia-smi --help-query-gpu` lists both spellings, e.g. gpu_name and name).
const std::map<std::string, Field>& known_fields() {
  static const std::map<std::string, Field> fields = {
      {"timestamp", Field::kTimestamp}, {"index", Field::kIndex}, {"name", Field::kName}, {"gpu_name", Field::kName},
      {"pci.bus_id", Field::kBusId}, {"gpu_bus_id", Field::kBusId}, {"uuid", Field::kUuid}, {"gpu_uuid", Field::kUuid},
      {"utilization.gpu", Field::kUtil}, {"utilization.memory", Field::kMemUtil}, {"memory.used", Field::kMemUsed},
      {"memory.total", Field::kMemTotal}, {"power.draw", Field::kPower}, {"power.draw.average", Field::kPower},
      {"power.draw.instant", Field::kPower}, {"power.limit", Field::kPowerLimit},
      {"enforced.power.limit", Field::kPowerLimit}, {"clocks.sm", Field::kSmClock}, {"clocks.current.sm", Field::kSmClock},
      // Accepted and not used.
      {"driver_version", Field::kOther}, {"pstate", Field::kOther}, {"temperature.gpu", Field::kOther},
      {"temperature.memory", Field::kOther}, {"fan.speed", Field::kOther}, {"memory.free", Field::kOther},
      {"memory.reserved", Field::kOther}, {"clocks.mem", Field::kOther}, {"clocks.current.memory", Field::kOther},
      {"clocks.gr", Field::kOther}, {"clocks.current.graphics", Field::kOther}, {"clocks.max.sm", Field::kOther},
      {"clocks.max.mem", Field::kOther}, {"clocks.max.gr", Field::kOther}, {"pcie.link.gen.current", Field::kOther},
      {"pcie.link.gen.max", Field::kOther}, {"pcie.link.width.current", Field::kOther},
      {"pcie.link.width.max", Field::kOther}, {"compute_mode", Field::kOther}, {"persistence_mode", Field::kOther},
      {"count", Field::kOther}, {"serial", Field::kOther}, {"vbios_version", Field::kOther},
      {"clocks_throttle_reasons.active", Field::kOther}, {"clocks_event_reasons.active", Field::kOther},
      {"power.default_limit", Field::kOther}, {"power.max_limit", Field::kOther}, {"power.min_limit", Field::kOther},
      {"ecc.errors.corrected.volatile.total", Field::kOther}, {"ecc.errors.uncorrected.volatile.total", Field::kOther},
      {"encoder.stats.sessionCount", Field::kOther}, {"mig.mode.current", Field::kOther}, {"display_mode", Field::kOther},
      {"display_active", Field::kOther}};
  return fields;
}

/// "utilization.gpu [%]" -> "utilization.gpu".
std::string field_name(const std::string& header_cell) {
  const std::size_t bracket = header_cell.find(" [");
  return std::string(trim_view(bracket == std::string::npos ? header_cell : header_cell.substr(0, bracket)));
}

struct Column {
  std::string name;
  Field field = Field::kOther;
};

std::vector<Column> columns_of(const LogText& log, int line, const std::vector<LogCell>& cells) {
  std::vector<Column> columns;
  for (const auto& cell : cells) {
    const std::string name = field_name(cell.text);
    const auto it = known_fields().find(name);
    if (it == known_fields().end()) {
      throw_log_error(log, line, cell.column, "header", "unknown nvidia-smi --query-gpu field '" + name + "'",
                      "; the fields gpuplan reads are timestamp, index, name, pci.bus_id, uuid, utilization.gpu, "
                      "utilization.memory, memory.used, memory.total, power.draw, power.limit, clocks.sm");
    }
    columns.push_back({name, it->second});
  }
  return columns;
}

struct Row {
  std::string key;  // which GPU
  int index = -1;
  std::string name;
  models::GpuReading reading;
};

Row parse_row(const LogText& log, int line, const std::vector<LogCell>& cells, const std::vector<Column>& columns) {
  Row row;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const LogCell& cell = cells[i];
    const std::string& what = columns[i].name;
    auto number = [&](const char* unit) { return cell_number(log, line, cell, what, unit); };
    switch (columns[i].field) {
      case Field::kTimestamp: {
        const auto t = timestamp_seconds(cell.text);
        if (!t) {
          throw_log_error(log, line, cell.column, what, "'" + cell.text + "' is not a timestamp",
                          "; expected YYYY/MM/DD HH:MM:SS.mmm as nvidia-smi prints it");
        }
        row.reading.time_s = *t;
        break;
      }
      case Field::kIndex: {
        const double v = number("");
        if (std::isnan(v) || v < 0 || v != std::floor(v)) {
          throw_log_error(log, line, cell.column, what, "'" + cell.text + "' is not a GPU index", "; expected 0, 1, ...");
        }
        row.index = static_cast<int>(v);
        row.key = "index " + cell.text;
        break;
      }
      case Field::kName: row.name = cell.text; break;
      case Field::kBusId:
        if (row.key.empty() || row.key.rfind("index", 0) != 0) row.key = "bus " + cell.text;
        break;
      case Field::kUuid:
        if (row.key.empty()) row.key = "uuid " + cell.text;
        break;
      case Field::kUtil: row.reading.utilization = cell_share(log, line, cell, what, "%", 100.0); break;
      case Field::kMemUtil: row.reading.memory_utilization = cell_share(log, line, cell, what, "%", 100.0); break;
      case Field::kMemUsed: row.reading.memory_used_bytes = core::mebibytes(number("MiB")); break;
      case Field::kMemTotal: row.reading.memory_total_bytes = core::mebibytes(number("MiB")); break;
      case Field::kPower: row.reading.power_w = number("W"); break;
      case Field::kPowerLimit: row.reading.power_limit_w = number("W"); break;
      case Field::kSmClock: row.reading.sm_clock_hz = number("MHz") * core::kMega; break;
      case Field::kOther: break;
    }
  }
  return row;
}

}  // namespace

bool looks_like_nvidia_smi_query(const std::string& first_line) {
  const auto cells = split_on(first_line, ',');
  return !cells.empty() && known_fields().count(field_name(cells[0].text)) != 0U;
}

std::vector<models::GpuSeries> read_nvidia_smi_query(const LogText& log, const std::vector<std::string>& fields,
                                                     std::vector<std::string>& notes) {
  std::vector<Column> columns;
  std::string header_text;
  std::size_t first = 0;
  while (first < log.lines.size() && trim_view(log.lines[first].text).empty()) ++first;
  if (first == log.lines.size()) throw_log_error(log, 1, 1, "", "the log is empty", kEmptyLogFix);
  if (looks_like_nvidia_smi_query(log.lines[first].text)) {
    header_text = log.lines[first].text;
    columns = columns_of(log, log.lines[first].number, split_on(header_text, ','));
    ++first;
  } else if (!fields.empty()) {
    std::vector<LogCell> cells;
    for (const auto& f : fields) cells.push_back({f, 1});
    columns = columns_of(log, 0, cells);
  } else {
    throw_log_error(log, log.lines[first].number, 1, "header",
                    "a headerless nvidia-smi CSV (--format=csv,noheader) does not say its fields",
                    "; pass the --query-gpu list with --fields (e.g. --fields timestamp,index,utilization.gpu,memory.used)");
  }

  GpuSeriesBuilder series(log.path, "nvidia_smi_query");
  std::map<double, int> rows_at_time;     // for logs without an id column
  std::map<std::string, int> ordinal_of;  // GPU key -> order of first appearance
  const std::size_t last_nonempty = last_nonblank_line(log);
  for (std::size_t i = first; i < log.lines.size(); ++i) {
    const LogLine& line = log.lines[i];
    if (trim_view(line.text).empty() || line.text == header_text) continue;
    const auto cells = split_on(line.text, ',');
    Row row;
    try {
      if (cells.size() != columns.size()) {
        throw_log_error(log, line.number, 1, "row",
                        fmt::format("the row has {} cells where the header has {}", cells.size(), columns.size()),
                        "; every row of --query-gpu output has one cell per queried field");
      }
      row = parse_row(log, line.number, cells, columns);
    } catch (const std::exception&) {
      // Only a last row with fewer cells than the header can be one the logger was stopped
      // in the middle of; a complete row with an impossible reading (250 %, -5 %) is an error.
      if (i != last_nonempty || cells.size() >= columns.size()) throw;
      note_cut_short(log, line, notes);
      continue;
    }
    if (row.key.empty()) {
      // No index, bus id or uuid: the n-th row of one timestamp is the n-th GPU.
      const int n = std::isnan(row.reading.time_s) ? 0 : rows_at_time[row.reading.time_s]++;
      row.key = "position " + std::to_string(n);
      row.index = n;
    }
    // A bus id or uuid without an index: the GPU's order of first appearance.
    const int ordinal = ordinal_of.try_emplace(row.key, static_cast<int>(ordinal_of.size())).first->second;
    series.add(row.key, row.index >= 0 ? row.index : ordinal, row.name, row.reading);
  }
  return std::move(series).finish(std::numeric_limits<double>::quiet_NaN());
}

}  // namespace gpuplan::config
