#include "config/dcgmi_dmon_log.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "config/gpu_series_builder.h"
#include "core/units.h"

namespace gpuplan::config {

namespace {

std::vector<LogCell> tags_of(const std::string& line) {
  std::string rest = line;
  rest[0] = ' ';
  auto cells = split_blanks(rest);
  if (!cells.empty() && cells[0].text == "Entity") cells.erase(cells.begin());
  return cells;
}

}  // namespace

bool looks_like_dcgmi_dmon(const std::string& first_line) {
  if (first_line.empty() || first_line[0] != '#') return false;
  const auto cells = split_blanks(first_line.substr(1));
  return !cells.empty() && cells[0].text == "Entity";
}

std::vector<models::GpuSeries> read_dcgmi_dmon(const LogText& log, std::vector<std::string>& notes) {
  std::vector<std::string> tags;
  GpuSeriesBuilder series(log.path, "dcgmi_dmon");
  const std::size_t last = last_nonblank_line(log);
  bool skipped_entities = false;
  for (std::size_t i = 0; i < log.lines.size(); ++i) {
    const LogLine& line = log.lines[i];
    const std::string_view text = trim_view(line.text);
    if (text.empty()) continue;
    if (text[0] == '#') {
      tags.clear();
      for (const auto& c : tags_of(line.text)) tags.push_back(c.text);
      continue;
    }
    if (text == "ID" || text == "Id") continue;
    if (tags.empty()) {
      throw_log_error(log, line.number, 1, "row", "a dcgmi dmon row before the '#Entity ...' header",
                      "; keep the header lines dcgmi dmon prints");
    }
    auto cells = split_blanks(line.text);
    if (!cells.empty() && cells[0].text != "GPU") {
      if (!skipped_entities) notes.push_back(fmt::format("{}:{}: rows of entity '{}' skipped (GPU rows only)", log.path, line.number, cells[0].text));
      skipped_entities = true;
      continue;
    }
    try {
      if (cells.size() != tags.size() + 2) {
        throw_log_error(log, line.number, 1, "row",
                        fmt::format("the row has {} values where the header has {} fields", cells.size() < 2 ? 0 : cells.size() - 2, tags.size()),
                        "; every dcgmi dmon row is 'GPU <id>' and one value per field");
      }
      const double id = cell_number(log, line.number, cells[1], "Entity", "");
      if (std::isnan(id) || id < 0 || id != std::floor(id)) {
        throw_log_error(log, line.number, cells[1].column, "Entity", "'" + cells[1].text + "' is not a GPU id", "; expected GPU 0, GPU 1, ...");
      }
      models::GpuReading r;
      for (std::size_t c = 0; c < tags.size(); ++c) {
        const std::string& t = tags[c];
        const bool percent = t == "GPUTL" || t == "MCUTL";
        const bool ratio = t == "SMACT" || t == "TENSO" || t == "DRAMA" || t == "SMOCC" || t == "GRACT";
        const double v = percent ? cell_share(log, line.number, cells[c + 2], t, "", 100.0)
                         : ratio ? cell_share(log, line.number, cells[c + 2], t, "", 1.0)
                                 : cell_number(log, line.number, cells[c + 2], t, "");
        if (t == "GPUTL") r.utilization = v;
        else if (t == "MCUTL") r.memory_utilization = v;
        else if (t == "POWER") r.power_w = v;
        else if (t == "FBUSD") r.memory_used_bytes = core::mebibytes(v);
        else if (t == "FBTTL") r.memory_total_bytes = core::mebibytes(v);
        else if (t == "SMCLK") r.sm_clock_hz = v * core::kMega;
        else if (t == "SMACT") r.sm_active = v;
        else if (t == "TENSO") r.tensor_active = v;
        else if (t == "DRAMA") r.dram_active = v;
        else if (t == "PCITX") r.pcie_tx_bytes_per_s = v;
        else if (t == "PCIRX") r.pcie_rx_bytes_per_s = v;
        else if (t == "NVLTX") r.nvlink_tx_bytes_per_s = v;
        else if (t == "NVLRX") r.nvlink_rx_bytes_per_s = v;
      }
      series.add(cells[1].text, static_cast<int>(id), "", r);
    } catch (const std::exception&) {
      if (!cut_short(i, last, cells.size(), tags.size() + 2)) throw;
      note_cut_short(log, line, notes);
    }
  }
  return std::move(series).finish(kDcgmiDefaultInterval_s);
}

}  // namespace gpuplan::config
