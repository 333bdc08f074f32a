#include "models/collective/builtin.h"

#include <memory>

#include "models/collective/hierarchical_algorithm.h"
#include "models/collective/nvls_algorithm.h"
#include "models/collective/pairwise_algorithm.h"
#include "models/collective/ring_algorithm.h"
#include "models/collective/tree_algorithm.h"

namespace gpuplan::models {

void register_builtin_collectives(CollectiveRegistry& registry) {
  registry.add("hierarchical", std::make_unique<HierarchicalAlgorithm>());
  registry.add("nvls", std::make_unique<NvlsAlgorithm>());
  registry.add("pairwise", std::make_unique<PairwiseAlgorithm>());
  registry.add("ring", std::make_unique<RingAlgorithm>());
  registry.add("tree", std::make_unique<TreeAlgorithm>());
}

const CollectiveRegistry& builtin_collective_registry() {
  static const CollectiveRegistry registry = [] {
    CollectiveRegistry r;
    register_builtin_collectives(r);
    return r;
  }();
  return registry;
}

}  // namespace gpuplan::models
