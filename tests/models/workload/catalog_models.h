#pragma once
/// \file catalog_models.h
/// Test helper: the architecture values of catalogs/models.yaml, repeated here (the YAML
/// loader is config/'s job), and a builder that runs them through the registered families.
/// Keep in step with catalogs/models.yaml.

#include <stdexcept>
#include <string>
#include <utility>

#include "core/registry.h"
#include "models/workload/workload_family.h"

namespace gpuplan::models::testing {

/// The registered built-in families.
inline core::Registry<IWorkloadFamily> builtin_registry() {
  core::Registry<IWorkloadFamily> registry;
  register_builtin_workloads(registry);
  return registry;
}

/// The encoded value of choice `name` of parameter `parameter` of `family`, as the loader
/// would put it in ArchitectureValues.
inline double choice(const std::string& family, const std::string& parameter,
                     const std::string& name) {
  const core::Registry<IWorkloadFamily> registry = builtin_registry();
  for (const ArchitectureParameter& p : registry.find(family)->parameters()) {
    if (p.name == parameter) {
      return encode_choice(p, name);
    }
  }
  throw std::logic_error("no parameter " + parameter + " in " + family);
}

/// Builds `values` with the family `family`.
inline Workload build(const std::string& family, const ArchitectureValues& values) {
  const core::Registry<IWorkloadFamily> registry = builtin_registry();
  return registry.find(family)->build(values);
}

/// A catalog entry: family and architecture values (sequence_length at its catalog default).
struct CatalogModel {
  std::string family;
  ArchitectureValues values;
};

/// GPT-2 style decoder choices (HF config: activation gelu_new, n_positions, tied wte,
/// resid/attn/embd_pdrop 0.1).
inline ArchitectureValues gpt2_style(ArchitectureValues values) {
  const std::string d = "transformer_decoder";
  values["mlp"] = choice(d, "mlp", "gelu");
  values["positional"] = choice(d, "positional", "learned");
  values["norm"] = choice(d, "norm", "layernorm");
  values["bias"] = choice(d, "bias", "true");
  values["tied_embeddings"] = choice(d, "tied_embeddings", "true");
  values["dropout"] = 0.1;
  return values;
}

/// The entries of catalogs/models.yaml.
inline CatalogModel catalog_model(const std::string& name) {
  const std::string d = "transformer_decoder";
  if (name == "resnet18")
    return {"resnet", {{"depth", 18}, {"image_size", 224}, {"classes", 1000}}};
  if (name == "resnet34")
    return {"resnet", {{"depth", 34}, {"image_size", 224}, {"classes", 1000}}};
  if (name == "resnet50")
    return {"resnet", {{"depth", 50}, {"image_size", 224}, {"classes", 1000}}};
  if (name == "resnet101")
    return {"resnet", {{"depth", 101}, {"image_size", 224}, {"classes", 1000}}};
  if (name == "resnet152")
    return {"resnet", {{"depth", 152}, {"image_size", 224}, {"classes", 1000}}};
  if (name == "resnext50-32x4d")
    return {"resnet", {{"depth", 50}, {"groups", 32}, {"width_per_group", 4}, {"image_size", 224}, {"classes", 1000}}};
  if (name == "resnext101-32x4d")
    return {"resnet", {{"depth", 101}, {"groups", 32}, {"width_per_group", 4}, {"image_size", 224}, {"classes", 1000}}};
  if (name == "se-resnext101-32x4d")
    return {"resnet",
            {{"depth", 101}, {"groups", 32}, {"width_per_group", 4}, {"se_reduction", 16}, {"image_size", 224}, {"classes", 1000}}};
  if (name == "efficientnet-b0")
    return {"efficientnet", {{"width_multiplier", 1.0}, {"depth_multiplier", 1.0}, {"image_size", 224}, {"classes", 1000}}};
  if (name == "efficientnet-b3")
    return {"efficientnet", {{"width_multiplier", 1.2}, {"depth_multiplier", 1.4}, {"image_size", 300}, {"classes", 1000}}};
  if (name == "efficientnet-b4")
    return {"efficientnet", {{"width_multiplier", 1.4}, {"depth_multiplier", 1.8}, {"image_size", 380}, {"classes", 1000}}};
  if (name == "vit-b16") {
    return {"vit",
            {{"layers", 12},
             {"hidden", 768},
             {"heads", 12},
             {"ffn_hidden", 3072},
             {"patch_size", 16},
             {"image_size", 224},
             {"classes", 1000}}};
  }
  if (name == "bert-base") {
    return {"transformer_encoder",
            {{"layers", 12},
             {"hidden", 768},
             {"heads", 12},
             {"ffn_hidden", 3072},
             {"vocab", 30522},
             {"max_positions", 512},
             {"type_vocab", 2},
             {"sequence_length", 512}}};
  }
  if (name == "bert-large") {
    return {"transformer_encoder",
            {{"layers", 24},
             {"hidden", 1024},
             {"heads", 16},
             {"ffn_hidden", 4096},
             {"vocab", 30522},
             {"max_positions", 512},
             {"type_vocab", 2},
             {"sequence_length", 512}}};
  }
  if (name == "gpt2") {
    return {d, gpt2_style({{"layers", 12},
                           {"hidden", 768},
                           {"heads", 12},
                           {"ffn_hidden", 3072},
                           {"vocab", 50257},
                           {"max_positions", 1024},
                           {"sequence_length", 1024}})};
  }
  if (name == "gpt2-xl") {
    return {d, gpt2_style({{"layers", 48},
                           {"hidden", 1600},
                           {"heads", 25},
                           {"ffn_hidden", 6400},
                           {"vocab", 50257},
                           {"max_positions", 1024},
                           {"sequence_length", 1024}})};
  }
  const auto llama = [&](ArchitectureValues values) {
    values["mlp"] = choice(d, "mlp", "swiglu");
    values["positional"] = choice(d, "positional", "rotary");
    values["norm"] = choice(d, "norm", "rmsnorm");
    values["bias"] = choice(d, "bias", "false");
    values["tied_embeddings"] = choice(d, "tied_embeddings", "false");
    return CatalogModel{d, std::move(values)};
  };
  if (name == "llama2-7b") {
    return llama({{"layers", 32},
                  {"hidden", 4096},
                  {"heads", 32},
                  {"kv_heads", 32},
                  {"ffn_hidden", 11008},
                  {"vocab", 32000},
                  {"sequence_length", 4096}});
  }
  if (name == "llama2-13b") {
    return llama({{"layers", 40},
                  {"hidden", 5120},
                  {"heads", 40},
                  {"kv_heads", 40},
                  {"ffn_hidden", 13824},
                  {"vocab", 32000},
                  {"sequence_length", 4096}});
  }
  if (name == "llama3-8b") {
    return llama({{"layers", 32},
                  {"hidden", 4096},
                  {"heads", 32},
                  {"kv_heads", 8},
                  {"ffn_hidden", 14336},
                  {"vocab", 128256},
                  {"sequence_length", 8192}});
  }
  if (name == "mixtral-8x7b") {
    return llama({{"layers", 32},
                  {"hidden", 4096},
                  {"heads", 32},
                  {"kv_heads", 8},
                  {"ffn_hidden", 14336},
                  {"vocab", 32000},
                  {"sequence_length", 32768},
                  {"experts", 8},
                  {"experts_per_token", 2}});
  }
  if (name == "gemma2-9b") {
    CatalogModel gemma = llama({{"layers", 42},
                                {"hidden", 3584},
                                {"heads", 16},
                                {"kv_heads", 8},
                                {"head_dim", 256},
                                {"ffn_hidden", 14336},
                                {"vocab", 256000},
                                {"sequence_length", 8192}});
    gemma.values["tied_embeddings"] = choice(d, "tied_embeddings", "true");
    return gemma;
  }
  if (name == "nemotron4-340b") {
    CatalogModel nemotron = llama({{"layers", 96},
                                   {"hidden", 18432},
                                   {"heads", 96},
                                   {"kv_heads", 8},
                                   {"ffn_hidden", 73728},
                                   {"vocab", 256000},
                                   {"sequence_length", 4096}});
    nemotron.values["mlp"] = choice(d, "mlp", "relu2");
    nemotron.values["norm"] = choice(d, "norm", "layernorm");
    return nemotron;
  }
  // llm-foundry's MPT: GELU MLP, LPLayerNorm, no biases, tied embeddings, fused loss.
  const auto mpt = [&](ArchitectureValues values, const std::string& positional) {
    values["mlp"] = choice(d, "mlp", "gelu");
    values["positional"] = choice(d, "positional", positional);
    values["norm"] = choice(d, "norm", "low_precision_layernorm");
    values["bias"] = choice(d, "bias", "false");
    values["tied_embeddings"] = choice(d, "tied_embeddings", "true");
    values["loss"] = choice(d, "loss", "fused_cross_entropy");
    return CatalogModel{d, std::move(values)};
  };
  if (name == "mpt-7b") {
    return mpt({{"layers", 32},
                {"hidden", 4096},
                {"heads", 32},
                {"ffn_hidden", 16384},
                {"vocab", 50432},
                {"sequence_length", 2048}},
               "alibi");
  }
  if (name == "mpt-760m") {
    return mpt({{"layers", 24},
                {"hidden", 1536},
                {"heads", 12},
                {"ffn_hidden", 6144},
                {"vocab", 50368},
                {"sequence_length", 2048}},
               "learned");
  }
  throw std::logic_error("no catalog model " + name);
}

/// Builds a catalog entry, optionally overriding values (e.g. another sequence_length).
inline Workload build_catalog_model(const std::string& name,
                                    const ArchitectureValues& overrides = {}) {
  CatalogModel model = catalog_model(name);
  for (const auto& [key, value] : overrides) {
    model.values[key] = value;
  }
  Workload workload = build(model.family, model.values);
  workload.name = name;
  return workload;
}

/// Multiply-accumulates of the conv and fc ops of a vision model: what torchvision's
/// "GFLOPS" column counts (1 MAC = 2 FLOP; the fc's bias adds are negligible).
inline double conv_and_linear_macs(const Workload& workload) {
  double flop = 0.0;
  for (const Op& op : workload.ops) {
    if (op.op_class == OpClass::kConv || op.op_class == OpClass::kMatmul) flop += op.forward_flop;
  }
  return flop / 2.0;
}

/// Sum of `field` over the ops whose name starts with `prefix`.
template <typename Field>
double sum_over(const Workload& workload, const std::string& prefix, Field field) {
  double total = 0.0;
  for (const Op& op : workload.ops) {
    if (op.name.rfind(prefix, 0) == 0) {
      total += field(op);
    }
  }
  return total;
}

}  // namespace gpuplan::models::testing
