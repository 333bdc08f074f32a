#pragma once
/// \file suggestion_fields.h
/// How a row's checked suggestion (models::SuggestedChange) and critical path are written:
/// the words of the table's notes, the CSV columns and the JSON keys. Internal to report/
/// (report_format.cpp calls it); kept apart so that the output columns can move to a table
/// of result fields in one piece.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "models/results.h"

namespace gpuplan::report {

/// The simulated effect, for people: "+84 % samples/s, time to train -46 %, -$41.20 per run"
/// (", ranked on cost" for a cost remedy).
std::string suggestion_effect(const models::SuggestedChange& change);

/// The CSV columns after the others: suggestion_overrides (path=value;path=value),
/// suggestion_goal, suggestion_gain, suggested_throughput_samples_per_s,
/// suggested_time_to_train_s, suggested_cost_usd.
std::vector<std::string> suggestion_csv_header();
/// The cells of those columns for `row` (empty without a checked suggestion).
std::vector<std::string> suggestion_csv_cells(const models::VariantResult& row);

/// JSON: "critical_path_share" {resource: share} of a fitting row, and "suggested" {overrides
/// {path: value}, relieves, goal, gain, throughput_samples_per_s, throughput_change,
/// time_to_train_s, time_change, cost_usd, cost_change_usd} when there is one.
void add_suggestion_json(const models::VariantResult& row, nlohmann::ordered_json& j);

}  // namespace gpuplan::report
