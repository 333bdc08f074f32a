#pragma once
/// \file suggestion_fields.h
/// The words of a row's checked suggestion (models::SuggestedChange) in the table's notes. Its
/// machine fields (overrides, goal, gain, predicted throughput, time and dollars) are rows of
/// the one field table, report/variant_fields.cpp.

#include <string>

#include "models/results.h"

namespace gpuplan::report {

/// The simulated effect, for people: "+84 % samples/s, time to train -46 %, -$41.20 per run"
/// (", ranked on cost" for a cost remedy).
std::string suggestion_effect(const models::SuggestedChange& change);

}  // namespace gpuplan::report
