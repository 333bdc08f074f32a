#include "report/report_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "report/display_width.h"
#include "report/field_grid.h"
#include "report/human_units.h"
#include "report/run_summary.h"
#include "report/suggestion_fields.h"
#include "report/text_table.h"
#include "report/text_wrap.h"
#include "report/variant_fields.h"

namespace gpuplan::report {
namespace {

using models::ScenarioResult;
using models::VariantResult;

/// The variant fields, then after `strategy` one machine column per sweep key (named by its
/// path, the value as written), so a sweep point is not only packed into the strategy name.
FieldGrid comparison_grid(const ScenarioResult& result) {
  FieldGrid grid =
      make_grid<VariantResult>(variant_fields(), result.variants, [](const VariantResult& v) { return v.fits; });
  std::vector<std::string> keys;
  for (const VariantResult& v : result.variants) {
    for (const auto& [path, value] : v.sweep_settings) {
      if (std::find(keys.begin(), keys.end(), path) == keys.end()) keys.push_back(path);
    }
  }
  const auto at = static_cast<std::ptrdiff_t>(std::min<std::size_t>(1, grid.columns.size()));
  for (std::size_t k = keys.size(); k-- > 0;) {
    grid.columns.insert(grid.columns.begin() + at, GridColumn{keys[k], "", "", false});
    for (std::size_t r = 0; r < grid.rows.size(); ++r) {
      GridCell cell;
      for (const auto& [path, value] : result.variants[r].sweep_settings) {
        if (path == keys[k]) cell.value = FieldValue(value);
      }
      grid.rows[r].insert(grid.rows[r].begin() + at, std::move(cell));
    }
  }
  return grid;
}

std::string notes(const ScenarioResult& result, bool markdown) {
  const std::string bullet = markdown ? "- " : "  ";
  const std::string note_bullet = markdown ? "  - note: " : "    note: ";
  // A note every strategy carries (the same text on each of several rows) is printed once,
  // after the strategies, instead of under each of them.
  std::vector<std::string> shared;
  if (result.variants.size() > 1) {
    for (const std::string& n : result.variants.front().notes) {
      const bool everywhere = std::all_of(result.variants.begin(), result.variants.end(), [&n](const VariantResult& v) {
        return std::find(v.notes.begin(), v.notes.end(), n) != v.notes.end();
      });
      if (everywhere && std::find(shared.begin(), shared.end(), n) == shared.end()) shared.push_back(n);
    }
  }
  const auto is_shared = [&shared](const std::string& n) {
    return std::find(shared.begin(), shared.end(), n) != shared.end();
  };
  std::string out = markdown ? "\n**Next step per strategy**\n\n" : "\nNext step per strategy:\n";
  // A note some strategies share is printed under the first of them; the others point to it.
  std::vector<std::pair<std::string, std::string>> printed;  // note, strategy it is under
  for (const VariantResult& v : result.variants) {
    // How far out of memory beside the word memory, before the remedy and its own check.
    const std::string shortfall =
        v.fits ? "" : " (needs " + human_bytes(v.peak_memory_bytes) + ", has " + human_bytes(v.memory_capacity_bytes) + ")";
    out += bullet + one_line(v.strategy) + ": " + v.bottleneck + shortfall + " -> " + v.suggestion;
    if (v.suggested) out += " (simulated: " + suggestion_effect(*v.suggested) + ")";
    out += "\n";
    std::vector<std::string> as_under;  // the strategy of each note printed before, in order
    for (const auto& n : v.notes) {
      if (is_shared(n)) continue;
      const auto before = std::find_if(printed.begin(), printed.end(), [&n](const auto& p) { return p.first == n; });
      if (before != printed.end()) {
        as_under.push_back(before->second);
        continue;
      }
      out += note_bullet + n + "\n";
      printed.emplace_back(n, one_line(v.strategy));
    }
    for (std::size_t i = 0; i < as_under.size();) {
      std::size_t j = i;
      while (j < as_under.size() && as_under[j] == as_under[i]) ++j;
      out += note_bullet + (j - i == 1 ? std::string("the same note as under ")
                                       : std::to_string(j - i) + " notes the same as under ") +
             as_under[i] + "\n";
      i = j;
    }
  }
  if (!shared.empty()) {
    out += markdown ? "\n**Notes on every strategy**\n\n" : "\nNotes on every strategy:\n";
    for (const std::string& n : shared) out += bullet + n + "\n";
  }
  bool calibrated = false;
  for (const auto& v : result.variants) calibrated |= v.calibrated;
  out += markdown ? "\n" : "\n";
  out += (markdown ? "" : "") + std::string(
      "Times are simulated. GPU util = share of time a kernel runs (nvidia-smi); MFU = model "
      "FLOP/s / dense peak of the precision. GB = 10^9 B (an 80 GiB GPU holds 85.9 GB). ");
  out += calibrated ? "Calibrated GPU profile.\n" : "GPU figures from the datasheet catalog (uncalibrated).\n";
  if (std::any_of(result.variants.begin(), result.variants.end(),
                  [](const models::VariantResult& v) { return v.cost_on_demand_usd.has_value(); })) {
    out += kCatalogPricesNote + "\n";
  }
  std::vector<const models::VariantResult*> unmeasured;
  for (const auto& v : result.variants) {
    if (v.gpu_prediction_only &&
        std::none_of(unmeasured.begin(), unmeasured.end(), [&v](const models::VariantResult* u) { return u->gpu == v.gpu; })) {
      unmeasured.push_back(&v);
    }
  }
  for (const models::VariantResult* v : unmeasured) {
    out += v->gpu + ": prediction only; no validation case measures this GPU, so its error is unknown " +
           (v->gpu_uncalibratable ? std::string("(an AMD GPU: cuda_probe measures CUDA GPUs only, so no calibration "
                                                "profile narrows it yet).\n")
                                  : std::string("(gpuplan calibrate on one narrows it).\n"));
  }
  bool any_multi = false;
  for (const auto& v : result.variants) any_multi |= v.gpus > 1;
  if (any_multi) {
    out += "comm = communication per step not hidden behind compute; scaling = samples/s / (GPUs x samples/s "
           "of one such GPU alone on the node, same per-GPU batch; - where the job does not fit on one). step = one optimizer step, all accumulation "
           "micro-steps included. Links and network per row: --format csv or json.\n";
  }
  // Where a row shows both, say which time is which (a spot row's two times read as a conflict).
  if (std::any_of(result.variants.begin(), result.variants.end(),
                  [](const models::VariantResult& v) { return v.fits && v.time_p90_s && *v.time_p90_s != v.time_to_train_s; })) {
    out += "time to train = without preemptions or hardware failures; time p50/p90 = with them (on spot over the "
           "Monte Carlo trials).\n";
  }
  return out;
}

}  // namespace

Format format_from_name(std::string_view name) {
  if (name == "table") return Format::kTable;
  if (name == "markdown") return Format::kMarkdown;
  if (name == "csv") return Format::kCsv;
  if (name == "json") return Format::kJson;
  throw std::invalid_argument("unknown format '" + std::string(name) + "'; expected table, markdown, csv or json");
}

std::string render_table(const ScenarioResult& result) {
  return result.scenario_name + "\n\n" + wrap_text(run_summary(result), kTerminalColumns) + "\n" +
         grid_table(comparison_grid(result), false) + notes(result, false);
}

std::string render_markdown(const ScenarioResult& result) {
  return "## " + result.scenario_name + "\n\n" + run_summary(result) + "\n" + grid_table(comparison_grid(result), true) +
         notes(result, true);
}

std::string render_csv(const ScenarioResult& result) { return grid_csv(comparison_grid(result)); }

std::string render_json(const ScenarioResult& result) {
  return grid_json({{"scenario", result.scenario_name},
                    {"scenario_path", result.scenario_path},
                    {"summary", run_summary(result)}},
                   "variants", comparison_grid(result));
}

std::string render(const ScenarioResult& result, Format format) {
  switch (format) {
    case Format::kTable: return render_table(result);
    case Format::kMarkdown: return render_markdown(result);
    case Format::kCsv: return render_csv(result);
    case Format::kJson: return render_json(result);
  }
  return render_table(result);
}

}  // namespace gpuplan::report
