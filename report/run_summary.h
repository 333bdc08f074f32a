#pragma once
/// \file run_summary.h
/// The answer of a `gpuplan run` in words, printed before the table (issue: "answers in
/// words"): the fastest strategy and its speed-up over the first, the cheapest and its
/// dollars, what holds the first strategy back (and the fastest, when it differs) as a share
/// of its step with the next change for each, and which strategies do not fit.

#include <string>

#include "models/results.h"

namespace gpuplan::report {

/// A few sentences, each ending with a newline; "" for a result without variants.
/// Example: "Fastest: amp_bs64_workers_4 at 582 samples/s, 4.7x baseline.\nCheapest: ...".
std::string run_summary(const models::ScenarioResult& result);

/// What limits `v`, in words with its share of the step: "the GPU waits for the CPU decode
/// workers 76 % of the time". Bottleneck names as models/run/bottleneck.cpp writes them;
/// another name reads "limited by <name>".
std::string limiter_in_words(const models::VariantResult& v);

}  // namespace gpuplan::report
