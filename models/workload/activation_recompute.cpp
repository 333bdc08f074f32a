#include "models/workload/activation_recompute.h"

#include <set>
#include <stdexcept>
#include <utility>

namespace gpuplan::models {
namespace {

bool ends_with(const std::string& name, const std::string& tail) {
  return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_scores(const Op& op) { return op.op_class == OpClass::kAttention && ends_with(op.name, "attn.scores"); }
bool is_context(const Op& op) { return op.op_class == OpClass::kAttention && ends_with(op.name, "attn.context"); }

}  // namespace

bool has_eager_attention(const Workload& workload) {
  for (const Op& op : workload.ops) {
    if (is_scores(op)) {
      return true;
    }
  }
  return false;
}

int checkpoint_blocks(const Workload& workload) {
  std::set<std::string_view> blocks;  // views into the ops' names
  for (const Op& op : workload.ops) {
    const std::string_view block = block_view(op);
    if (!block.empty()) {
      blocks.insert(block);
    }
  }
  return static_cast<int>(blocks.size());
}

Workload with_selective_recompute(Workload workload) {
  bool in_chain = false;
  double scores = 0.0;  // a·s² of the current chain
  int chains = 0;
  for (Op& op : workload.ops.edit()) {
    if (is_scores(op)) {
      in_chain = true;
      scores = op.output_elements;
      ++chains;
    }
    if (!in_chain) {
      continue;
    }
    if (is_context(op)) {
      // PV keeps V; the probabilities it would save are recomputed.
      op.saved_elements = op.input_elements - scores;
      in_chain = false;
      continue;
    }
    // QKᵀ keeps Q and K (its inputs, needed to recompute the scores); scale, mask, softmax
    // and dropout keep nothing and run again before the backward.
    op.recompute_in_backward = true;
    if (!is_scores(op)) {
      op.saved_elements = 0.0;
    }
  }
  if (chains == 0) {
    throw std::invalid_argument("with_selective_recompute: " + workload.name + " has no unfused attention");
  }
  return workload;
}

Workload with_checkpoint_every(Workload workload, int n) {
  if (n < 1) {
    throw std::invalid_argument("with_checkpoint_every: n must be at least 1");
  }
  int index = -1;
  std::string current;
  bool any = false;
  for (Op& op : workload.ops.edit()) {
    const std::string_view block = block_view(op);
    if (block.empty()) {
      continue;
    }
    if (block != current) {
      current = block;
      ++index;
    }
    if (index % n == 0) {
      op.checkpointed = true;
      op.recompute_in_backward = true;
      any = true;
    }
  }
  if (!any) {
    throw std::invalid_argument("with_checkpoint_every: " + workload.name + " has no repeated blocks");
  }
  return workload;
}

Workload with_activation_recompute(Workload workload, ActivationRecompute mode, int every) {
  switch (mode) {
    case ActivationRecompute::kSelective: return with_selective_recompute(std::move(workload));
    case ActivationRecompute::kEvery: return with_checkpoint_every(std::move(workload), every);
    case ActivationRecompute::kNone:
    case ActivationRecompute::kFull: break;
  }
  return workload;
}

}  // namespace gpuplan::models
