#pragma once
/// \file workload_memo.h
/// The op tables of a validated job: the model family's build of the architecture values and
/// the job's table made from it for the training's choices (job_op_table). Validations of one
/// tree (VariantValidator, `gpuplan plan`'s thousands of layouts) build the same few tables
/// again and again; WorkloadMemo keeps each once. Internal to config/.

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "models/job_spec.h"
#include "models/workload/attention_kernel.h"
#include "models/workload/workload.h"
#include "models/workload/workload_family.h"

namespace gpuplan::config {

/// The op table of a job whose model is `base` and whose training is `training`:
/// `base` with training.attention's kernel (`key_value_heads` as the kernel's callers hand
/// K and V over), then training.fine_tuning's adapters at training.precision, then
/// training.activation_recompute (checkpoint_every); models/workload/attention_kernel.h,
/// fine_tuning.h and activation_recompute.h.
models::Workload job_op_table(const models::Workload& base, const models::TrainingSpec& training,
                              models::KeyValueHeads key_value_heads);

/// Op tables built once per distinct input and handed out again for equal ones. Not
/// thread-safe; holds every table it built until destroyed.
class WorkloadMemo {
 public:
  /// `family`'s build of `values`, its name set to `catalog_name` where that is not empty.
  /// Throws what IWorkloadFamily::build throws (nothing is kept then).
  std::shared_ptr<const models::Workload> built(const models::IWorkloadFamily& family,
                                                const models::ArchitectureValues& values,
                                                const std::string& catalog_name);
  /// job_op_table(base, training, key_value_heads), where `base` is a table built() returned
  /// (tables are told apart by address). The reference stays valid while the memo lives.
  const models::Workload& job_table(const std::shared_ptr<const models::Workload>& base,
                                    const models::TrainingSpec& training, models::KeyValueHeads key_value_heads);

 private:
  struct Build {
    const models::IWorkloadFamily* family;
    models::ArchitectureValues values;
    std::string catalog_name;
    std::shared_ptr<const models::Workload> workload;
  };
  struct JobTable {
    const models::Workload* base;
    models::AttentionKernel attention;
    models::CausalMask causal_mask;
    models::KeyValueHeads key_value_heads;
    models::FineTuningSpec fine_tuning;
    models::Precision precision;
    models::ActivationRecompute activation_recompute;
    int checkpoint_every;
    models::Workload workload;
  };
  std::vector<Build> builds_;
  std::deque<JobTable> job_tables_;  // a deque: references to its tables stay valid
};

}  // namespace gpuplan::config
