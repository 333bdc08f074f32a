#include "cli/init_templates.h"

#include <stdexcept>

namespace gpuplan::cli {

namespace {

/// ResNet-50 on ImageNet on one RTX 3090: the input pipeline and AMP.
const char* kResnet = R"(# A gpuplan scenario: one training job and the strategies to compare (gpuplan run FILE).
# Every value with a unit is written with it ("110 KiB", "2.5 GB/s", "6 ms"); a bare number
# for a dimensional value is an error. Names come from the catalogs: gpuplan list gpus,
# gpuplan list models, gpuplan list storage, gpuplan list instances.
format: gpuplan/v1
name: my training job
seed: 42                        # same scenario + seed = the same numbers, byte for byte

workload:
  model: resnet50               # gpuplan list models (or an inline architecture)
  dataset:
    samples: 1281167            # training samples per epoch (ImageNet-1k here)
    sample_size: "110 KiB"      # mean stored size of one sample
    decode_time: "6 ms"         # CPU time to decode and augment one sample on one core
  epochs: 90

training:
  batch_size: 32                # per GPU, per micro-step
  precision: fp32               # fp32 | tf32 | fp16_amp | bf16_amp
  optimizer: sgd_momentum       # sgd | sgd_momentum | adam | adamw

data_loader:
  num_workers: 0                # PyTorch DataLoader workers; 0 = the training process decodes
  pin_memory: false

hardware:
  gpu: rtx3090                  # gpuplan list gpus; or cloud: {instance: aws/p3.2xlarge}
  cpu_cores: 8
  host_memory: "64 GiB"
  storage: nvme_ssd             # gpuplan list storage

# What to compare: each strategy overrides keys of the job above by their dotted path.
strategies:
  baseline: {}
  workers_4: {data_loader.num_workers: 4}
  amp_workers_4: {training.precision: fp16_amp, data_loader.num_workers: 4}
)";

/// Llama 3 8B, full training with FSDP on an 8x H100 cloud node, in tokens.
const char* kLlm = R"(# A gpuplan scenario: one training job and the strategies to compare (gpuplan run FILE).
# This one: full fine-tuning or continued pretraining of a decoder LLM (every weight trained)
# with FSDP on one cloud node of 8 H100. Every value with a unit is written with it
# ("32 KiB", "10 min"); a bare number for a dimensional value is an error. Names come from
# the catalogs: gpuplan list models, gpuplan list instances, gpuplan list gpus. Every key:
# docs/scenario-format.md; language models in depth: docs/language-models.md. Which instance
# and layout (TP, PP, FSDP, ZeRO) meet a deadline cheapest, at this global batch:
#   gpuplan plan FILE --deadline 24h --providers aws,gcp
format: gpuplan/v1
name: my LLM training job
seed: 42                        # same scenario + seed = the same numbers, byte for byte

workload:
  model: llama3-8b              # gpuplan list models (or an inline architecture)
  sequence_length: 8192         # tokens per sample (one sample = one packed sequence)
  tokens: 1e9                   # token budget of the run; the samples follow from it
  dataset:
    sample_size: "32 KiB"       # stored bytes per sequence: 8192 token ids of 4 B, pre-tokenized
    layout: shards              # files | shards (large files of many samples)
    decode_time: "10 us"        # CPU time per sample on one core (tokenize on the fly: more)

training:
  batch_size: 2                 # sequences per GPU per micro-step
  gradient_accumulation: 4      # micro-steps per optimizer step; the global batch is
                                # 2 x 4 x 8 GPUs = 64 sequences (524,288 tokens)
  precision: bf16_amp           # fp32 | tf32 | fp16_amp | bf16_amp | bf16 | fp8
  attention: flash              # eager | sdpa | flash | flash3 | memory_efficient | flash_triton
  optimizer: adamw              # adamw | adamw_8bit | adafactor | sgd | ... (its state is in memory)
  activation_checkpointing: true  # recompute activations in backward: false | true | selective
  framework_overhead: eager     # eager | compiled (torch.compile) | cuda_graphs
  # LoRA or QLoRA instead of full training: fine_tuning: {method: lora, rank: 16}

data_loader:
  num_workers: 2                # PyTorch DataLoader workers per GPU
  pin_memory: true

parallelism:
  strategy: fsdp                # none | ddp | fsdp | zero (gpuplan plan searches TP/PP layouts)
  sharding: full_shard          # weights, gradients and optimizer state split over the 8 GPUs

checkpointing:
  interval: auto                # Young/Daly interval from the preemption rate, or "30 min"

cloud:
  instance: aws/p5.48xlarge     # 8x H100 80 GB, NVLink; gpuplan list instances
  market: on_demand             # on_demand | spot
  replacement_wait: "10 min"    # spot: how long a preempted node takes to come back

# What to compare: each strategy overrides keys of the job above by their dotted path.
strategies:
  baseline: {}
  compiled: {training.framework_overhead: compiled}
  spot: {cloud.market: spot}
)";

}  // namespace

const std::vector<InitTemplate>& init_templates() {
  static const std::vector<InitTemplate> templates = {
      {"llm", "Llama 3 8B full fine-tuning / pretraining, FSDP on a cloud 8x H100 node, bf16, in tokens", kLlm},
      {"resnet", "ResNet-50 on ImageNet on one RTX 3090: data loader workers and AMP (the default)", kResnet},
  };
  return templates;
}

const InitTemplate& init_template(const std::string& name) {
  std::string known;
  for (const InitTemplate& t : init_templates()) {
    if (t.name == name) return t;
    known += (known.empty() ? "" : ", ") + t.name;
  }
  throw std::invalid_argument("unknown template '" + name + "' of gpuplan init; the templates are " + known +
                              ": gpuplan init --template llm FILE");
}

std::string starter_scenario() { return init_template(kDefaultInitTemplate).text; }

}  // namespace gpuplan::cli
