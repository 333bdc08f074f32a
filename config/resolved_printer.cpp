#include "config/resolved_printer.h"

#include <yaml-cpp/yaml.h>

#include <cstdio>

namespace gpuplan::config {
namespace {

/// 15 significant digits: exact for the figures of catalogs and scenarios, without the
/// noise of the last binary digit (8e-05, not 7.999999999999999e-05).
std::string number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.15g", value);
  return buffer;
}

std::string with_unit(double value, const char* unit) { return number(value) + " " + unit; }
std::string usd(double value) { return "$" + number(value); }
std::string usd_per(double value, const char* per) { return "$" + number(value) + "/" + per; }

void emit_gpu(YAML::Emitter& out, const models::GpuSpec& gpu) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << gpu.name;
  out << YAML::Key << "form_factor" << YAML::Value << gpu.form_factor;
  if (gpu.is_amd()) {
    out << YAML::Key << "vendor" << YAML::Value << models::vendor_name(gpu.vendor);
    out << YAML::Key << "gfx_target" << YAML::Value << gpu.gfx_target;
  } else {
    out << YAML::Key << "compute_capability" << YAML::Value
        << (std::to_string(gpu.compute_capability_major) + "." + std::to_string(gpu.compute_capability_minor));
  }
  out << YAML::Key << "sm_count" << YAML::Value << gpu.sm_count;
  out << YAML::Key << "memory" << YAML::Value << with_unit(gpu.memory_bytes, "B");
  out << YAML::Key << "memory_bandwidth" << YAML::Value << with_unit(gpu.memory_bytes_per_s, "B/s");
  out << YAML::Key << "peak_dense_fp32" << YAML::Value << with_unit(gpu.peak_fp32_flop_per_s, "FLOP/s");
  out << YAML::Key << "peak_dense_tf32" << YAML::Value << with_unit(gpu.peak_tf32_flop_per_s, "FLOP/s");
  out << YAML::Key << "peak_dense_fp16" << YAML::Value << with_unit(gpu.peak_fp16_flop_per_s, "FLOP/s");
  out << YAML::Key << "peak_dense_bf16" << YAML::Value << with_unit(gpu.peak_bf16_flop_per_s, "FLOP/s");
  out << YAML::Key << "peak_dense_fp8" << YAML::Value << with_unit(gpu.peak_fp8_flop_per_s, "FLOP/s");
  out << YAML::Key << "memory_type" << YAML::Value << models::memory_type_name(gpu.memory_type);
  out << YAML::Key << "l2_cache" << YAML::Value << with_unit(gpu.l2_cache_bytes, "B");
  out << YAML::Key << "pcie_generation" << YAML::Value << gpu.pcie_generation;
  out << YAML::Key << "pcie_lanes" << YAML::Value << gpu.pcie_lanes;
  if (gpu.is_amd()) {
    out << YAML::Key << "infinity_fabric_links" << YAML::Value << gpu.infinity_fabric_links;
    out << YAML::Key << "infinity_fabric_per_link_per_direction" << YAML::Value
        << with_unit(gpu.infinity_fabric_link_bytes_per_s_per_direction, "B/s");
  } else {
    out << YAML::Key << "nvlink_per_direction" << YAML::Value
        << with_unit(gpu.nvlink_bytes_per_s_per_direction, "B/s");
  }
  out << YAML::Key << "tdp" << YAML::Value << with_unit(gpu.tdp_w, "W");
  out << YAML::Key << "idle_power" << YAML::Value << with_unit(gpu.idle_w, "W");
  if (gpu.boost_clock_hz > 0.0) {
    out << YAML::Key << "boost_clock" << YAML::Value << with_unit(gpu.boost_clock_hz, "Hz");
  }
  if (gpu.observed_load_clock_hz > 0.0) {
    out << YAML::Key << "observed_load_clock" << YAML::Value << with_unit(gpu.observed_load_clock_hz, "Hz");
  }
  out << YAML::Key << "calibrated" << YAML::Value << gpu.calibrated;
  out << YAML::Key << "accuracy" << YAML::Value << (gpu.prediction_only ? "prediction-only" : "measured");
  out << YAML::Key << "source" << YAML::Value << gpu.source;
  out << YAML::Key << "retrieved" << YAML::Value << gpu.retrieved;
  out << YAML::EndMap;
}

void emit_storage(YAML::Emitter& out, const models::StorageSpec& s) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << s.name;
  out << YAML::Key << "read_bandwidth" << YAML::Value << with_unit(s.read_bytes_per_s, "B/s");
  out << YAML::Key << "random_read_bandwidth" << YAML::Value
      << (s.random_read_bytes_per_s > 0.0 ? with_unit(s.random_read_bytes_per_s, "B/s")
                                          : std::string("same as read_bandwidth"));
  out << YAML::Key << "write_bandwidth" << YAML::Value << with_unit(s.write_bytes_per_s, "B/s");
  out << YAML::Key << "latency" << YAML::Value << with_unit(s.latency_s, "s");
  out << YAML::Key << "queue_depth" << YAML::Value << s.queue_depth;
  out << YAML::Key << "source" << YAML::Value << s.source;
  out << YAML::Key << "retrieved" << YAML::Value << s.retrieved;
  out << YAML::EndMap;
}

/// The links the collectives run over: the intra-node link and its per-direction bandwidth,
/// and with several nodes the network's transport, per-NIC bandwidth, latency and NICs.
void emit_topology(YAML::Emitter& out, const models::Topology& t) {
  out << YAML::BeginMap;
  out << YAML::Key << "intra_node" << YAML::Value << t.intra_node.name;
  out << YAML::Key << "intra_node_bandwidth_per_direction" << YAML::Value
      << with_unit(t.intra_node.bytes_per_s_per_direction, "B/s");
  if (t.nodes > 1 && t.inter_node) {
    out << YAML::Key << "network" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "transport" << YAML::Value << t.inter_node->name;
    out << YAML::Key << "bandwidth_per_nic" << YAML::Value << with_unit(t.inter_node->bytes_per_s_per_direction, "B/s");
    // models::network_link: the low-latency protocol's hop latency is the message latency.
    out << YAML::Key << "latency" << YAML::Value << with_unit(t.inter_node->low_latency.hop_latency_s, "s");
    out << YAML::Key << "nics" << YAML::Value << t.nics_per_node;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

void emit_workload(YAML::Emitter& out, const models::JobSpec& job) {
  const models::Workload& w = job.workload;
  const models::DatasetSpec& d = job.dataset;
  out << YAML::BeginMap;
  out << YAML::Key << "model" << YAML::Value << w.name;
  out << YAML::Key << "family" << YAML::Value << w.family;
  out << YAML::Key << "language_model" << YAML::Value << w.is_language_model;
  out << YAML::Key << "tokens_per_sample" << YAML::Value << number(w.tokens_per_sample);
  out << YAML::Key << "parameters" << YAML::Value << number(w.parameters);
  if (w.frozen_parameters > 0.0) {
    out << YAML::Key << "frozen_parameters" << YAML::Value << number(w.frozen_parameters);
  }
  out << YAML::Key << "ops" << YAML::Value << w.ops.size();
  out << YAML::Key << "forward_flop_per_sample" << YAML::Value << with_unit(w.forward_flop_per_sample(), "FLOP");
  out << YAML::Key << "training_flop_per_sample" << YAML::Value
      << with_unit(w.training_flop_per_sample(), "FLOP");
  out << YAML::Key << "input_per_sample" << YAML::Value << with_unit(w.input_bytes_per_sample, "B");
  out << YAML::Key << "dataset" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "samples" << YAML::Value << number(d.samples);
  out << YAML::Key << "sample_size" << YAML::Value << with_unit(d.sample_bytes, "B");
  out << YAML::Key << "layout" << YAML::Value << std::string(models::name_of(d.layout));
  out << YAML::Key << "decode_time" << YAML::Value << with_unit(d.decode_time_s, "s");
  out << YAML::Key << "eval_samples" << YAML::Value << number(d.eval_samples);
  out << YAML::Key << "eval_every_steps" << YAML::Value << number(d.eval_every_steps);
  out << YAML::Key << "eval_first_rank_only" << YAML::Value << d.eval_first_rank_only;
  out << YAML::Key << "synthetic" << YAML::Value << d.synthetic;
  out << YAML::EndMap;
  if (job.duration.tokens > 0.0) {
    out << YAML::Key << "tokens" << YAML::Value << number(job.duration.tokens);
  } else {
    out << YAML::Key << "epochs" << YAML::Value << number(job.duration.epochs);
  }
  out << YAML::EndMap;
}

void emit_variant(YAML::Emitter& out, const Variant& v) {
  const models::JobSpec& job = v.job;
  out << YAML::BeginMap;
  out << YAML::Key << "strategy" << YAML::Value << v.strategy;
  out << YAML::Key << "sweep_point" << YAML::Value << v.sweep_point;
  out << YAML::Key << "workload" << YAML::Value;
  emit_workload(out, job);

  const models::TrainingSpec& t = job.training;
  out << YAML::Key << "training" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "batch_size" << YAML::Value << t.batch_size;
  out << YAML::Key << "gradient_accumulation" << YAML::Value << t.gradient_accumulation;
  out << YAML::Key << "precision" << YAML::Value << std::string(models::name_of(t.precision));
  out << YAML::Key << "optimizer" << YAML::Value << std::string(models::name_of(t.optimizer));
  if (t.optimizer_state_precision != models::OptimizerStatePrecision::kParam) {
    out << YAML::Key << "optimizer_state_precision" << YAML::Value
        << std::string(models::name_of(t.optimizer_state_precision));
  }
  if (t.optimizer_implementation) {
    out << YAML::Key << "optimizer_implementation" << YAML::Value
        << std::string(models::name_of(*t.optimizer_implementation));
  }
  out << YAML::Key << "activation_checkpointing" << YAML::Value;
  if (t.activation_recompute == models::ActivationRecompute::kSelective) {
    out << "selective";
  } else if (t.activation_recompute == models::ActivationRecompute::kEvery) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "every" << YAML::Value << t.checkpoint_every << YAML::EndMap;
  } else {
    out << t.activation_checkpointing;
  }
  // Shown when on, so that the resolved form of a scenario without it keeps its bytes.
  if (t.activation_offloading) out << YAML::Key << "activation_offloading" << YAML::Value << true;
  out << YAML::Key << "memory_format" << YAML::Value << std::string(models::name_of(t.memory_format));
  out << YAML::Key << "framework_overhead" << YAML::Value << std::string(models::name_of(t.framework_overhead));
  out << YAML::Key << "framework" << YAML::Value << std::string(models::name_of(t.framework));
  out << YAML::Key << "attention" << YAML::Value << std::string(models::name_of(t.attention));
  if (t.causal_mask != models::CausalMask::kIsCausal) {
    out << YAML::Key << "causal_mask" << YAML::Value << std::string(models::name_of(t.causal_mask));
  }
  if (t.fine_tuning.method != models::FineTuningMethod::kFull) {
    const models::FineTuningSpec& ft = t.fine_tuning;
    out << YAML::Key << "fine_tuning" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "method" << YAML::Value << std::string(models::name_of(ft.method));
    out << YAML::Key << "rank" << YAML::Value << ft.rank;
    out << YAML::Key << "alpha" << YAML::Value << number(ft.alpha);
    out << YAML::Key << "targets" << YAML::Value;
    if (ft.targets.empty()) {
      out << "all_linear";
    } else {
      out << YAML::Flow << YAML::BeginSeq;
      for (models::LoraTarget target : ft.targets) {
        out << std::string(models::name_of(target));
      }
      out << YAML::EndSeq;
    }
    out << YAML::Key << "base_precision" << YAML::Value << std::string(models::name_of(ft.base_precision));
    if (ft.base_precision == models::BasePrecision::kNf4 && !ft.double_quantization) {
      out << YAML::Key << "double_quantization" << YAML::Value << false;
    }
    if (ft.dropout > 0.0) {
      out << YAML::Key << "dropout" << YAML::Value << number(ft.dropout);
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;

  const models::DataLoaderSpec& dl = job.data_loader;
  out << YAML::Key << "data_loader" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "num_workers" << YAML::Value << dl.num_workers;
  out << YAML::Key << "prefetch_factor" << YAML::Value << dl.prefetch_factor;
  out << YAML::Key << "pin_memory" << YAML::Value << dl.pin_memory;
  out << YAML::Key << "persistent_workers" << YAML::Value << dl.persistent_workers;
  out << YAML::Key << "preprocess_on" << YAML::Value << std::string(models::name_of(dl.preprocess_on));
  out << YAML::EndMap;

  const models::HardwareSpec& hw = job.hardware;
  out << YAML::Key << "hardware" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "gpu" << YAML::Value;
  emit_gpu(out, hw.gpu);
  out << YAML::Key << "gpus_per_node" << YAML::Value << hw.gpus_per_node;
  out << YAML::Key << "nodes" << YAML::Value << hw.nodes;
  out << YAML::Key << "gpu_interconnect" << YAML::Value << hw.gpu_interconnect;
  out << YAML::Key << "cpu_cores" << YAML::Value << hw.cpu_cores;
  out << YAML::Key << "host_memory" << YAML::Value << with_unit(hw.host_memory_bytes, "B");
  out << YAML::Key << "storage" << YAML::Value;
  emit_storage(out, hw.storage);
  out << YAML::Key << "network" << YAML::Value << with_unit(hw.network_bytes_per_s, "B/s");
  out << YAML::Key << "gpus_per_pcie_switch" << YAML::Value << hw.gpus_per_pcie_switch;
  out << YAML::Key << "topology" << YAML::Value;
  emit_topology(out, hw.topology);
  out << YAML::Key << "gpu_failure_rate" << YAML::Value << with_unit(hw.gpu_failure_rate_per_s, "/s");
  out << YAML::EndMap;

  out << YAML::Key << "parallelism" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "strategy" << YAML::Value << std::string(models::name_of(job.parallelism.strategy));
  out << YAML::Key << "bucket_size" << YAML::Value << with_unit(job.parallelism.bucket_bytes, "B");
  out << YAML::Key << "tensor_parallel" << YAML::Value << job.parallelism.tensor_parallel;
  out << YAML::Key << "sequence_parallel" << YAML::Value << job.parallelism.sequence_parallel;
  if (job.parallelism.async_tensor_parallel) out << YAML::Key << "async_tensor_parallel" << YAML::Value << true;
  if (job.parallelism.pipeline_parallel > 1) {
    out << YAML::Key << "pipeline_parallel" << YAML::Value << job.parallelism.pipeline_parallel;
    out << YAML::Key << "pipeline_schedule" << YAML::Value << std::string(models::name_of(job.parallelism.pipeline_schedule));
    out << YAML::Key << "virtual_stages" << YAML::Value << job.parallelism.virtual_stages;
    if (job.parallelism.embedding_in_pipeline_split) {
      out << YAML::Key << "account_for_embedding_in_pipeline_split" << YAML::Value << true;
    }
    if (job.parallelism.loss_in_pipeline_split) {
      out << YAML::Key << "account_for_loss_in_pipeline_split" << YAML::Value << true;
    }
  }
  if (job.parallelism.context_parallel > 1) {
    out << YAML::Key << "context_parallel" << YAML::Value << job.parallelism.context_parallel;
  }
  if (job.parallelism.expert_parallel > 1) {
    out << YAML::Key << "expert_parallel" << YAML::Value << job.parallelism.expert_parallel;
    out << YAML::Key << "expert_load_imbalance" << YAML::Value << job.parallelism.expert_load_imbalance;
  }
  if (job.parallelism.strategy == models::ParallelStrategy::kFsdp) {
    out << YAML::Key << "sharding" << YAML::Value << std::string(models::name_of(job.parallelism.sharding));
  }
  if (job.parallelism.strategy == models::ParallelStrategy::kZero) {
    out << YAML::Key << "zero_stage" << YAML::Value << job.parallelism.zero_stage;
  }
  if (job.parallelism.fp8_all_gather) {
    out << YAML::Key << "fp8_all_gather" << YAML::Value << true;
  }
  if (job.parallelism.distributed_optimizer) {
    out << YAML::Key << "distributed_optimizer" << YAML::Value << true;
  }
  if (job.parallelism.overlap_param_gather) {
    out << YAML::Key << "overlap_param_gather" << YAML::Value << true;
  }
  if (job.parallelism.grad_reduce_in_fp32) {
    out << YAML::Key << "grad_reduce_in_fp32" << YAML::Value << *job.parallelism.grad_reduce_in_fp32;
  }
  if (job.parallelism.optimizer_offload != models::OffloadTarget::kNone ||
      job.parallelism.parameter_offload != models::OffloadTarget::kNone) {
    out << YAML::Key << "offload" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "optimizer" << YAML::Value << std::string(models::name_of(job.parallelism.optimizer_offload));
    out << YAML::Key << "parameters" << YAML::Value << std::string(models::name_of(job.parallelism.parameter_offload));
    out << YAML::EndMap;
  }
  out << YAML::EndMap;

  const models::CheckpointSpec& c = job.checkpointing;
  out << YAML::Key << "checkpointing" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "interval" << YAML::Value
      << (!c.enabled ? std::string("none") : c.automatic ? std::string("auto") : with_unit(c.interval_s, "s"));
  out << YAML::Key << "async" << YAML::Value << c.async;
  if (c.enabled) {
    const double write = c.write_bytes_per_s > 0.0 ? c.write_bytes_per_s : hw.storage.write_bytes_per_s;
    const double read = c.read_bytes_per_s > 0.0 ? c.read_bytes_per_s : hw.storage.read_bytes_per_s;
    out << YAML::Key << "destination" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << c.destination;
    out << YAML::Key << "write_bandwidth" << YAML::Value << with_unit(write, "B/s");
    out << YAML::Key << "read_bandwidth" << YAML::Value << with_unit(read, "B/s");
    out << YAML::Key << "survives_preemption" << YAML::Value << c.survives_preemption;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;

  if (job.cloud) {
    const models::CloudSpec& cloud = *job.cloud;
    const models::InstanceSpec& i = cloud.instance;
    out << YAML::Key << "cloud" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "instance" << YAML::Value << (i.provider + "/" + i.instance_type);
    out << YAML::Key << "region" << YAML::Value << i.region;
    out << YAML::Key << "zone" << YAML::Value << i.zone;
    out << YAML::Key << "gpu" << YAML::Value << i.gpu;
    out << YAML::Key << "accelerator_count" << YAML::Value << i.accelerator_count;
    out << YAML::Key << "vcpus" << YAML::Value << number(i.vcpus);
    out << YAML::Key << "memory" << YAML::Value << with_unit(i.memory_bytes, "B");
    out << YAML::Key << "price" << YAML::Value << usd_per(i.price_usd_per_s, "s");
    out << YAML::Key << "spot_price" << YAML::Value << usd_per(i.spot_price_usd_per_s, "s");
    out << YAML::Key << "billing_granularity" << YAML::Value << with_unit(i.billing_granularity_s, "s");
    out << YAML::Key << "market" << YAML::Value << std::string(models::name_of(cloud.market));
    out << YAML::Key << "preemption_rate" << YAML::Value;
    switch (v.preemption_source) {
      case PreemptionSource::kNone: out << "none"; break;
      case PreemptionSource::kCatalog: out << "catalog"; break;
      case PreemptionSource::kRate: out << with_unit(cloud.preemption_rate_per_s, "/s"); break;
      case PreemptionSource::kTrace:
        out << YAML::Flow << YAML::BeginMap << YAML::Key << "trace" << YAML::Value << v.preemption_trace
            << YAML::EndMap;
        break;
    }
    out << YAML::Key << "replacement_wait" << YAML::Value << with_unit(cloud.replacement_wait_s, "s");
    out << YAML::Key << "source" << YAML::Value << i.source;
    out << YAML::Key << "retrieved" << YAML::Value << i.retrieved;
    out << YAML::EndMap;
  }
  if (job.on_premises) {
    out << YAML::Key << "on_premises" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "purchase_price" << YAML::Value << usd(job.on_premises->purchase_usd);
    out << YAML::Key << "amortization" << YAML::Value << with_unit(job.on_premises->amortization_s, "s");
    out << YAML::Key << "electricity" << YAML::Value << usd_per(job.on_premises->electricity_usd_per_j, "J");
    out << YAML::EndMap;
  }
  out << YAML::Key << "simulation" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "trials" << YAML::Value << job.trials;
  out << YAML::EndMap;
  out << YAML::EndMap;
}

}  // namespace

std::string print_resolved(const Scenario& scenario) {
  YAML::Emitter out;
  out << YAML::Comment("resolved by gpuplan: every variant after catalog expansion, strategy overrides and "
                       "sweeps; SI units (B, s, B/s, FLOP, FLOP/s, W, USD)");
  out << YAML::BeginMap;
  out << YAML::Key << "format" << YAML::Value << "gpuplan/v1";
  out << YAML::Key << "name" << YAML::Value << scenario.name;
  out << YAML::Key << "file" << YAML::Value << scenario.path;
  out << YAML::Key << "seed" << YAML::Value << scenario.seed;
  out << YAML::Key << "variants" << YAML::Value << YAML::BeginSeq;
  for (const Variant& v : scenario.variants) {
    emit_variant(out, v);
  }
  out << YAML::EndSeq;
  if (scenario.expected) {
    out << YAML::Key << "expected" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "source" << YAML::Value << scenario.expected->source;
    for (const ExpectedValue& e : scenario.expected->values) {
      out << YAML::Key << e.metric << YAML::Value << e.text;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace gpuplan::config
