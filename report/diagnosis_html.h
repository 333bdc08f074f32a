#pragma once
/// \file diagnosis_html.h
/// `gpuplan diagnose --format html`: the answer in words; the measured utilization, memory
/// and power of each GPU over the log; with a scenario, the simulated utilization over its
/// first steps beside them and the strategies' simulated gains; the evidence per GPU.

#include <string>

#include "models/diagnosis/diagnose_result.h"

namespace gpuplan::report {

/// The page (html_page.h).
std::string render_diagnosis_html(const models::DiagnoseResult& result);

}  // namespace gpuplan::report
