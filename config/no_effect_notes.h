#pragma once
/// \file no_effect_notes.h
/// Notes for keys a scenario writes that change nothing in its job, so that no input is
/// dropped without a word (STYLE.md: nothing silently dropped). Each is a note, not an error:
/// the scenario runs as written, and the note says why the key does nothing there.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "models/job_spec.h"

namespace gpuplan::config {

/// The notes for `root` (the scenario after a variant's overrides) validated into `job`:
/// - synthetic data: workload.dataset.sample_size / decode_time and the data_loader keys
///   (no sample is read or decoded, no loader runs: batches are made on the GPU);
/// - parallelism.bucket_size on one GPU, or with a strategy that has no gradient buckets
///   (none, fsdp, and zero stage 3 reduce per unit);
/// - checkpointing.interval auto without a cloud section: no preemptions, so Young/Daly writes
///   no periodic checkpoint (with a cloud section the job level's interval reason says so:
///   models/job/cloud_job.cpp);
/// - simulation.trials on a market without preemptions: every trial is the same.
std::vector<std::string> no_effect_notes(const YAML::Node& root, const models::JobSpec& job);

}  // namespace gpuplan::config
