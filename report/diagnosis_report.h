#pragma once
/// \file diagnosis_report.h
/// Writers of `gpuplan diagnose` (models/diagnosis/diagnose_result.h in, text out; report/
/// knows nothing of the engine). Every output starts with the answer in words; then per GPU
/// the bottleneck with its evidence line by line; with a scenario, measured beside simulated
/// and the remedies by simulated gain. JSON carries the same figures in SI units (null where
/// a log did not measure a figure).

#include <string>

#include "models/diagnosis/diagnose_result.h"

namespace gpuplan::report {

/// The short answer: first a warning per mismatch of the logs and the scenario, then what holds
/// each GPU back and what to do, one sentence per bottleneck class found, then, when a scenario
/// was given, whether the job as it ran fits in the simulator and the best simulated remedy
/// over the baseline (DiagnoseResult::baseline).
std::string diagnosis_summary(const models::DiagnoseResult& result);

/// Terminal text (fits 120 columns for names of ordinary length).
std::string render_diagnosis_text(const models::DiagnoseResult& result);
/// Markdown: the same content with headings and tables.
std::string render_diagnosis_markdown(const models::DiagnoseResult& result);
/// JSON object: summary, logs, gpus (figures and finding), host, profile, baseline, simulated,
/// remedies, left_out, notes, warnings. Deterministic: keys sorted, input order kept in arrays.
std::string render_diagnosis_json(const models::DiagnoseResult& result);

}  // namespace gpuplan::report
