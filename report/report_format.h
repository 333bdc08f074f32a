#pragma once
/// \file report_format.h
/// Writers of a scenario's comparison (report/ consumes models/results.h only; it knows
/// nothing of the engine: STYLE.md L1). Machine formats (CSV, JSON) carry SI units in their
/// column and key names; human formats (table, Markdown) use SI prefixes (STYLE.md U6).

#include <string>
#include <string_view>

#include "models/results.h"

namespace gpuplan::report {

enum class Format { kTable, kMarkdown, kCsv, kJson };

/// Said under every report with cloud dollars (run and plan): the instance catalog's prices
/// are those of the SkyPilot catalog commit each row cites, not today's (catalogs/README.md
/// names the rows known to be stale since).
inline const std::string kCatalogPricesNote =
    "Cloud prices are the instance catalog's, as of the SkyPilot catalog commit each row cites, not today's "
    "(catalogs/README.md names rows known to be stale, such as AWS P4/P5 before the June 2025 cuts); "
    "--catalog ~/.sky/catalogs/v7/<provider>/vms.csv prices with a fresh one.";

/// "table", "markdown", "csv", "json" -> Format; throws std::invalid_argument naming the
/// accepted values otherwise.
Format format_from_name(std::string_view name);

/// The whole report of `result` in `format`. Deterministic: fixed precision, input order.
std::string render(const models::ScenarioResult& result, Format format);

std::string render_table(const models::ScenarioResult& result);
std::string render_markdown(const models::ScenarioResult& result);
/// CSV: one column per field of report/variant_fields.h, in its order. Empty cells for
/// values that do not apply (an OOM row has no throughput; no instance, no dollars).
std::string render_csv(const models::ScenarioResult& result);
/// JSON: {"scenario", "scenario_path", "variants": [one object per row]}; each row has the
/// keys of the CSV header, with the same SI units, null where a value does not apply.
std::string render_json(const models::ScenarioResult& result);

}  // namespace gpuplan::report
