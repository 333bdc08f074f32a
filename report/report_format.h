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

/// "table", "markdown", "csv", "json" -> Format; throws std::invalid_argument naming the
/// accepted values otherwise.
Format format_from_name(std::string_view name);

/// The whole report of `result` in `format`. Deterministic: fixed precision, input order.
std::string render(const models::ScenarioResult& result, Format format);

std::string render_table(const models::ScenarioResult& result);
std::string render_markdown(const models::ScenarioResult& result);
/// CSV columns: strategy, throughput_samples_per_s, step_time_s, data_wait_s, h2d_s,
/// gpu_compute_s, optimizer_s, gpu_utilization, mfu, peak_memory_bytes,
/// memory_capacity_bytes, fits, epoch_time_s, time_to_train_s, cost_on_demand_usd,
/// energy_kwh, bottleneck, suggestion, then throughput_tokens_per_s, host_dispatch_s,
/// cost_on_premises_usd, gpus, global_batch_samples, gpu. Empty cells for values that do not
/// apply (an OOM row has no throughput; no instance, no dollars).
std::string render_csv(const models::ScenarioResult& result);
std::string render_json(const models::ScenarioResult& result);

}  // namespace gpuplan::report
