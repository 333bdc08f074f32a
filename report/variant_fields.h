#pragma once
/// \file variant_fields.h
/// The one table of a scenario's result fields (STYLE.md S4): every column of the terminal
/// table, Markdown, CSV and JSON of `gpuplan run`, and the metrics `gpuplan validate`
/// compares, in output order. Adding a column is adding one entry in variant_fields.cpp
/// (docs/extending.md).

#include <vector>

#include "models/results.h"
#include "report/result_field.h"

namespace gpuplan::report {

/// The fields of a models::VariantResult, in the order every format writes them.
const std::vector<ResultField<models::VariantResult>>& variant_fields();

/// The field an `expected:` metric of a validation case measures (ResultField::measured_as);
/// nullptr for a name no field is measured by.
const ResultField<models::VariantResult>* field_measured_as(const std::string& metric);

}  // namespace gpuplan::report
