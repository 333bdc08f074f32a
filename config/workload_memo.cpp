#include "config/workload_memo.h"

#include <utility>

#include "models/workload/activation_recompute.h"
#include "models/workload/fine_tuning.h"

namespace gpuplan::config {

models::Workload job_op_table(const models::Workload& base, const models::TrainingSpec& training,
                              models::KeyValueHeads key_value_heads) {
  return models::with_activation_recompute(
      models::with_fine_tuning(models::with_attention_kernel(base, training.attention, key_value_heads,
                                                             training.causal_mask),
                               training.fine_tuning, training.precision),
      training.activation_recompute, training.checkpoint_every);
}

std::shared_ptr<const models::Workload> WorkloadMemo::built(const models::IWorkloadFamily& family,
                                                            const models::ArchitectureValues& values,
                                                            const std::string& catalog_name) {
  for (const Build& b : builds_) {
    if (b.family == &family && b.values == values && b.catalog_name == catalog_name) return b.workload;
  }
  models::Workload w = family.build(values);
  if (!catalog_name.empty()) w.name = catalog_name;
  builds_.push_back({&family, values, catalog_name, std::make_shared<const models::Workload>(std::move(w))});
  return builds_.back().workload;
}

const models::Workload& WorkloadMemo::job_table(const std::shared_ptr<const models::Workload>& base,
                                                const models::TrainingSpec& training,
                                                models::KeyValueHeads key_value_heads) {
  for (const JobTable& t : job_tables_) {
    if (t.base == base.get() && t.attention == training.attention && t.causal_mask == training.causal_mask &&
        t.key_value_heads == key_value_heads &&
        t.fine_tuning == training.fine_tuning && t.precision == training.precision &&
        t.activation_recompute == training.activation_recompute && t.checkpoint_every == training.checkpoint_every) {
      return t.workload;
    }
  }
  job_tables_.push_back({base.get(), training.attention, training.causal_mask, key_value_heads, training.fine_tuning,
                         training.precision,
                         training.activation_recompute, training.checkpoint_every,
                         job_op_table(*base, training, key_value_heads)});
  return job_tables_.back().workload;
}

}  // namespace gpuplan::config
