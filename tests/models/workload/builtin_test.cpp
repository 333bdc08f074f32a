#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "core/registry.h"
#include "models/workload/workload_family.h"

namespace gpuplan::models {

TEST_SUITE("models.workload.builtin") {
  TEST_CASE("exactly the five built-in families are registered (STYLE.md P4)") {
    core::Registry<IWorkloadFamily> registry;
    register_builtin_workloads(registry);
    CHECK(registry.names() ==
          std::vector<std::string>{"efficientnet", "resnet", "transformer_decoder", "transformer_encoder", "vit"});
  }

  TEST_CASE("every family and parameter is documented for `gpuplan list families`") {
    core::Registry<IWorkloadFamily> registry;
    register_builtin_workloads(registry);
    for (const std::string& name : registry.names()) {
      CAPTURE(name);
      const IWorkloadFamily* family = registry.find(name);
      CHECK_FALSE(family->summary().empty());
      std::set<std::string> seen;
      for (const ArchitectureParameter& parameter : family->parameters()) {
        CAPTURE(parameter.name);
        CHECK_FALSE(parameter.summary.empty());
        CHECK(seen.insert(parameter.name).second);  // no duplicate keys
      }
    }
  }

  TEST_CASE("built workloads carry their family name and sum their ops' parameters") {
    core::Registry<IWorkloadFamily> registry;
    register_builtin_workloads(registry);
    const Workload workload = registry.find("resnet")->build({{"depth", 18}});
    CHECK(workload.family == "resnet");
    CHECK(workload.name == "inline");
    double sum = 0.0;
    for (const Op& op : workload.ops) {
      sum += op.parameters;
    }
    CHECK(workload.parameters == sum);
  }

}  // TEST_SUITE

}  // namespace gpuplan::models
