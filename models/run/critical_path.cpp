#include "models/run/critical_path.h"

namespace gpuplan::models {

std::vector<CriticalPathPart> critical_path(const StepPlan& plan, const StepBreakdown& s, const LoaderStats& loader) {
  const bool measured = loader.batches_measured > 0;
  const double storage_s = measured ? loader.storage_s : plan.loader.batch_storage_s;
  const double cpu_s = measured ? loader.cpu_s + loader.pin_s : plan.loader.batch_cpu_s;
  const double reader_s = storage_s + cpu_s;
  // Without reader time (synthetic data) a data wait can only be the loader's CPU side.
  const double storage_fraction = reader_s > 0.0 ? storage_s / reader_s : 0.0;
  std::vector<CriticalPathPart> parts = {
      {"gpu_compute", s.gpu_compute_s + s.optimizer_s - s.host_optimizer_s, 0.0},
      {"data_loading_cpu", s.data_wait_s * (1.0 - storage_fraction), 0.0},
      {"storage_io", s.data_wait_s * storage_fraction, 0.0},
      {"h2d_copy", s.h2d_s, 0.0},
      {"host_dispatch", s.host_dispatch_wait_s, 0.0},
      {"communication", s.communication_exposed_s, 0.0},
  };
  if (plan.pipeline.stages > 1) parts.push_back({"pipeline_bubble", s.pipeline_bubble_s, 0.0});
  // An offloaded optimizer step: the GPU waits for the copies and the host's Adam.
  if (s.host_optimizer_s > 0.0) parts.push_back({"host_optimizer", s.host_optimizer_s, 0.0});
  if (s.step_time_s > 0.0) {
    for (CriticalPathPart& p : parts) p.share = p.seconds / s.step_time_s;
  }
  return parts;
}

bool is_loader_part(const std::string& resource) {
  return resource == "data_loading_cpu" || resource == "storage_io";
}

std::string binding_part(const std::vector<CriticalPathPart>& path) {
  const CriticalPathPart* top = nullptr;
  const CriticalPathPart* top_loader = nullptr;
  double loader_share = 0.0;
  for (const CriticalPathPart& p : path) {
    if (top == nullptr || p.seconds > top->seconds) top = &p;
    if (is_loader_part(p.resource)) {
      loader_share += p.share;
      if (top_loader == nullptr || p.seconds > top_loader->seconds) top_loader = &p;
    }
  }
  if (top_loader != nullptr && loader_share >= kLoaderBindingShare) return top_loader->resource;
  return top == nullptr ? std::string("gpu_compute") : top->resource;
}

}  // namespace gpuplan::models
