#include <memory>

#include "models/workload/efficientnet_family.h"
#include "models/workload/resnet_family.h"
#include "models/workload/transformer_decoder_family.h"
#include "models/workload/transformer_encoder_family.h"
#include "models/workload/vit_family.h"
#include "models/workload/workload_family.h"

namespace gpuplan::models {

void register_builtin_workloads(core::Registry<IWorkloadFamily>& registry) {
  registry.add("efficientnet", std::make_unique<EfficientnetFamily>());
  registry.add("resnet", std::make_unique<ResnetFamily>());
  registry.add("transformer_decoder", std::make_unique<TransformerDecoderFamily>());
  registry.add("transformer_encoder", std::make_unique<TransformerEncoderFamily>());
  registry.add("vit", std::make_unique<VitFamily>());
}

}  // namespace gpuplan::models
