#pragma once
/// \file bottleneck.h
/// What a row says when no simulated remedy gains (models/run/advice.h): an unchecked hint
/// for the largest part of its critical path (a change gpuplan cannot simulate as an override
/// of the same job: another GPU, more cores, a faster network), and the suggestion of a
/// variant that does not fit in GPU memory.

#include <string>

#include "models/job_spec.h"

namespace gpuplan::models {

/// A hint in words for `resource` (a CriticalPathPart resource) of `job`. Throws nothing.
std::string unchecked_hint(const std::string& resource, const JobSpec& job);

/// Suggestion for a variant that does not fit in GPU memory: bf16 main gradients first where
/// Megatron's distributed optimizer keeps fp32 ones (prefixed to the rest), activation
/// checkpointing, then a smaller micro-batch, then (on several GPUs without sharded parameters) FSDP, then a
/// lighter optimizer state or pure bf16, then a GPU with more memory.
std::string oom_suggestion(const JobSpec& job);

}  // namespace gpuplan::models
