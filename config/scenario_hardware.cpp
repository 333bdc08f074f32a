#include "config/scenario_hardware.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "config/calibration_profile.h"
#include "config/hardware_topology.h"
#include "config/instance_hardware.h"
#include "config/name_index.h"
#include "config/scenario_reading.h"
#include "config/spot_trace.h"
#include "models/host/loader_host_memory.h"
#include "models/job/hardware_failures.h"
#include "models/memory/activation_offload.h"
#include "models/memory/parallel_memory.h"
#include "core/text_distance.h"
#include "core/units.h"

namespace gpuplan::config {
namespace {

constexpr std::int64_t kMaxGpusPerNode = 64;
constexpr std::int64_t kMaxNodes = 100'000;
constexpr std::int64_t kMaxCpuCores = 100'000;
constexpr std::int64_t kMaxQueueDepth = 65'536;

std::string format_gib(double bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g GiB", core::to_gibibytes(bytes));
  return buffer;
}

std::string format_gbit_per_s(double bytes_per_s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g Gbit/s", core::to_gigabytes_per_s(bytes_per_s) * core::kBitsPerByte);
  return buffer;
}

std::string format_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

/// "aws/p4d.24xlarge" for "p4d.24xlarge": catalog names whose type part is `type`.
std::vector<std::string> instances_of_type(const std::string& type, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& name : names) {
    const std::size_t slash = name.find('/');
    if (slash != std::string::npos && name.compare(slash + 1, std::string::npos, type) == 0) {
      out.push_back(name);
    }
  }
  return out;
}

/// The fix for an unknown "provider/type" with no catalog name near it: the catalog's providers
/// when the provider is none of them ("; foo is not a provider; providers: aws, azure or gcp"),
/// else where to find that provider's types.
std::string unknown_instance_hint(const std::string& name, const std::vector<std::string>& names) {
  const std::string provider = name.substr(0, name.find('/'));
  std::vector<std::string> providers;
  for (const std::string& n : names) {
    const std::string p = n.substr(0, n.find('/'));
    if (std::find(providers.begin(), providers.end(), p) == providers.end()) providers.push_back(p);
  }
  if (std::find(providers.begin(), providers.end(), provider) != providers.end()) {
    return "; the catalog has no " + provider + " instance of that type: `gpuplan list instances` prints them";
  }
  std::string list;
  for (std::size_t i = 0; i < providers.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == providers.size() ? " or " : ", ") + providers[i];
  }
  return "; " + provider + " is not a provider; providers: " + list + " (`gpuplan list instances` prints the types)";
}

std::optional<models::StorageSpec> read_inline_storage(const YAML::Node& node, const std::string& path,
                                                       ErrorSink& sink) {
  const std::size_t errors_before = sink.messages().size();
  MapReader s(node, path, sink);
  const auto read = s.quantity("read_bandwidth", core::Dimension::kBytesPerSecond, Range::kPositive,
                               Requirement::kRequired);
  const auto random_read = s.quantity("random_read_bandwidth", core::Dimension::kBytesPerSecond);
  const auto write = s.quantity("write_bandwidth", core::Dimension::kBytesPerSecond, Range::kPositive,
                                Requirement::kRequired);
  const auto latency = s.quantity("latency", core::Dimension::kSeconds, Range::kNonNegative,
                                  Requirement::kRequired);
  const auto queue_depth = s.integer("queue_depth", 1, kMaxQueueDepth, Requirement::kRequired);
  s.finish();
  if (sink.messages().size() != errors_before) {
    return std::nullopt;
  }
  models::StorageSpec spec;
  spec.name = "inline";
  spec.read_bytes_per_s = *read;
  spec.random_read_bytes_per_s = value_or(random_read, 0.0);
  spec.write_bytes_per_s = *write;
  spec.latency_s = *latency;
  spec.queue_depth = static_cast<int>(*queue_depth);
  spec.source = "scenario";
  return spec;
}

/// The catalog GPU of the calibration profile at `path` (relative to the scenario's folder)
/// with its measured rates, or nullopt after recording why not at `profile`'s key; the
/// profile's own errors follow, each at the profile file and its JSON key path.
std::optional<models::GpuSpec> read_gpu_profile(MapReader& profile, const std::string& path,
                                                const Catalogs& catalogs) {
  std::filesystem::path resolved(path);
  if (resolved.is_relative()) {
    resolved = std::filesystem::path(profile.sink().file()).parent_path() / resolved;
  }
  models::CalibrationProfile loaded;
  try {
    loaded = load_calibration_profile(resolved.string());
  } catch (const ConfigError& e) {
    const std::string& first = e.messages().front();
    if (e.messages().size() == 1 && first.starts_with("cannot read calibration profile")) {
      profile.error("profile", first, "; paths are relative to the scenario's folder; write a profile with "
                                      "gpuplan calibrate");
    } else {
      profile.error("profile", "invalid calibration profile '" + resolved.string() + "'",
                    "; fix the errors reported in it, or write it again with gpuplan calibrate");
      for (const std::string& message : e.messages()) {
        profile.sink().add_formatted(message);
      }
    }
    return std::nullopt;
  }
  const models::GpuSpec* base = catalogs.gpus.find(loaded.gpu);
  if (base == nullptr) {
    profile.error("profile", "calibration profile '" + resolved.string() + "' names gpu '" + loaded.gpu +
                                 "', which the GPU catalog lacks",
                  suggest_names(loaded.gpu, catalogs.gpus.names(), "GPUs"));
    return std::nullopt;
  }
  if (const CalibrationRefusal refused = calibration_refusal(*base); !refused.problem.empty()) {
    profile.error("profile", "calibration profile '" + resolved.string() + "' names gpu '" + loaded.gpu +
                                 "': " + refused.problem,
                  refused.fix);
    return std::nullopt;
  }
  return calibrated_gpu(*base, loaded);
}

constexpr std::int64_t kMaxNicsPerNode = 64;

/// The network transports a scenario may name (models::NetworkKind), in enum order.
constexpr models::NetworkKind kNetworkKinds[] = {models::NetworkKind::kEthernet, models::NetworkKind::kInfiniband,
                                                 models::NetworkKind::kGpuDirectTcpxo};

/// Slowest network a scenario may give, per NIC: 1 Mbit/s. Below it one all-reduce of a
/// model's gradients would run for years of simulated time (past the engine's ~292-year
/// integer-nanosecond range) and no training job is planned on such a link.
constexpr double kMinNetworkBytesPerS = core::gigabits_per_s(0.001);
/// Longest per-message network latency a scenario may give: 1 s (intercontinental links are
/// ~0.1 s; more is a unit mistake).
constexpr double kMaxNetworkLatencyS = 1.0;

/// Records an error at `key` of `reader` when `bytes_per_s` is below kMinNetworkBytesPerS;
/// true when it is in range.
bool network_bandwidth_in_range(MapReader& reader, const std::string& key, double bytes_per_s) {
  if (bytes_per_s >= kMinNetworkBytesPerS) return true;
  reader.error(key, "out-of-range bandwidth '" + reader.raw(key).Scalar() + "'",
               "; expected at least 1 Mbit/s per NIC, e.g. \"10 Gbit/s\"");
  return false;
}

/// `hardware.network` as written: a bandwidth quantity (one Ethernet NIC at the default
/// message latency) or {bandwidth (per NIC, required), transport (ethernet), latency (the
/// transport's models::default_message_latency_s), nics (1)}. nullopt after recording the
/// errors at hardware.network or its keys.
std::optional<NetworkChoice> read_network(MapReader& hardware, const YAML::Node& node) {
  ErrorSink& sink = hardware.sink();
  if (node.IsNull()) {
    hardware.error("network", "missing value for 'network'",
                   "; write network: \"100 Gbit/s\" or {bandwidth: \"200 Gbit/s\", transport: infiniband, nics: 8}");
    return std::nullopt;
  }
  NetworkChoice network;
  if (node.IsScalar()) {
    const std::optional<double> bandwidth = hardware.quantity("network", core::Dimension::kBytesPerSecond);
    if (!bandwidth || !network_bandwidth_in_range(hardware, "network", *bandwidth)) {
      return std::nullopt;
    }
    network.kind = models::NetworkKind::kEthernet;
    network.nic_bytes_per_s = *bandwidth;
    network.message_latency_s = models::default_message_latency_s(network.kind);
    return network;
  }
  if (!node.IsMap()) {
    const std::string found = describe_node(node);
    hardware.error(
        "network",
        "expected a bandwidth such as \"100 Gbit/s\" or {bandwidth, transport, latency, nics}, found " + found);
    return std::nullopt;
  }
  const std::size_t errors_before = sink.messages().size();
  MapReader n(node, hardware.path_of("network"), sink, node.Mark());
  const auto bandwidth =
      n.quantity("bandwidth", core::Dimension::kBytesPerSecond, Range::kPositive, Requirement::kRequired);
  std::vector<std::string_view> transports;
  for (const models::NetworkKind kind : kNetworkKinds) {
    transports.emplace_back(models::network_kind_name(kind));
  }
  // RoCE and AWS EFA are RDMA transports too: NCCL prices them like InfiniBand (NetworkKind).
  const YAML::Node transport_node = n.raw("transport");
  std::optional<std::string> transport;
  if (transport_node.IsScalar() &&
      (transport_node.Scalar() == "roce" || transport_node.Scalar() == "efa" || transport_node.Scalar() == "rdma")) {
    n.error("transport",
            "unknown value '" + transport_node.Scalar() + "', expected one of ethernet, infiniband or gpudirect_tcpxo",
            "; " + transport_node.Scalar() + " is RDMA-class: write transport: infiniband");
  } else {
    transport = n.choice("transport", transports);
  }
  const auto latency = n.quantity("latency", core::Dimension::kSeconds, Range::kNonNegative);
  const auto nics = n.integer("nics", 1, kMaxNicsPerNode);
  if (bandwidth) network_bandwidth_in_range(n, "bandwidth", *bandwidth);
  if (latency && *latency > kMaxNetworkLatencyS) {
    n.error("latency", "out-of-range duration '" + n.raw("latency").Scalar() + "'",
            "; expected at most 1 s per message, e.g. \"25 us\" (Ethernet) or \"2 us\" (InfiniBand)");
  }
  n.finish();
  if (sink.messages().size() != errors_before) {
    return std::nullopt;
  }
  network.kind = models::NetworkKind::kEthernet;
  for (const models::NetworkKind kind : kNetworkKinds) {
    if (transport && *transport == models::network_kind_name(kind)) {
      network.kind = kind;
    }
  }
  network.nic_bytes_per_s = *bandwidth;
  network.message_latency_s = latency ? *latency : models::default_message_latency_s(network.kind);
  network.nics = static_cast<int>(value_or(nics, 1));
  return network;
}

/// "0.13 /h" for a rate per second, for source notes.
std::string fmt_rate_per_h(double rate_per_s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g /h", rate_per_s * core::kSecondsPerHour);
  return buf;
}

}  // namespace

const std::vector<std::string_view>& interconnect_names() {
  // Built once from the interconnect table (immutable afterwards); the views point into
  // `storage`, which lives as long as the program.
  static const std::vector<std::string> storage = interconnect_choices();
  static const std::vector<std::string_view> names(storage.begin(), storage.end());
  return names;
}

CloudSection read_cloud_section(MapReader& root, const Catalogs& catalogs, const std::string& scenario_dir) {
  CloudSection c;
  if (!root.has("cloud")) {
    root.declare({"cloud"});
    return c;
  }
  c.present = true;
  ErrorSink& sink = root.sink();
  const std::size_t errors_before = sink.messages().size();
  c.reader = root.map("cloud");
  if (!c.reader) {
    c.failed = true;
    return c;
  }
  MapReader& r = *c.reader;
  if (!r.has("instance")) {
    r.missing("instance", "; add instance: provider/instance_type, such as aws/p4d.24xlarge (gpuplan list instances)");
  }
  const std::optional<std::string> name = r.string("instance");  // missing: reported above
  const std::optional<std::string> region = r.string("region");
  const std::optional<std::string> zone = r.string("zone");
  const std::optional<std::string> market_name = r.choice("market", models::names_of<models::Market>());
  const models::Market market =
      market_name ? *models::from_name<models::Market>(*market_name) : models::Market::kOnDemand;
  const bool spot = market == models::Market::kSpot;

  // preemption_rate: catalog | "0.05 /h" | {trace: path}. Read on every market so that a
  // typo is caught, used on spot only.
  PreemptionSource source = PreemptionSource::kCatalog;
  double rate_per_s = 0.0;
  std::optional<models::AvailabilityTrace> trace_data;
  const YAML::Node rate = r.raw("preemption_rate");
  if (rate.IsDefined()) {
    if (rate.IsNull()) {
      r.error("preemption_rate", "missing value for 'preemption_rate'",
              "; write catalog, a rate such as \"0.05 /h\", or {trace: path}");
    } else if (rate.IsScalar() && rate.Scalar() == "catalog") {
      source = PreemptionSource::kCatalog;
    } else if (rate.IsScalar() && written_in_another_case(rate.Scalar(), "catalog")) {
      r.error("preemption_rate",
              "expected catalog, a rate such as \"0.05 /h\" or {trace: path}, found '" + rate.Scalar() + "'",
              "; write catalog (in lower case)");
    } else if (rate.IsScalar()) {
      const auto value = r.quantity("preemption_rate", core::Dimension::kPerSecond, Range::kNonNegative);
      source = PreemptionSource::kRate;
      rate_per_s = value_or(value, 0.0);
    } else if (rate.IsMap()) {
      MapReader trace(rate, r.path_of("preemption_rate"), sink);
      const std::optional<std::string> path = trace.string("trace", Requirement::kRequired);
      trace.finish();
      if (path) {
        std::filesystem::path resolved(*path);
        if (resolved.is_relative() && !scenario_dir.empty()) {
          resolved = std::filesystem::path(scenario_dir) / resolved;
        }
        std::ifstream in(resolved);
        if (!in) {
          trace.error("trace", "cannot read preemption trace '" + resolved.string() + "': " +
                                   std::strerror(errno),
                      "; paths are relative to the scenario's folder");
        } else if (spot) {
          try {
            trace_data = read_spot_trace(resolved.string());
          } catch (const ConfigError& e) {
            trace.error("trace", "invalid preemption trace: " + e.messages().front());
          }
        }
        c.preemption_trace = resolved.string();
        source = PreemptionSource::kTrace;
      }
    } else {
      r.error("preemption_rate", "expected catalog, a rate such as \"0.05 /h\" or {trace: path}, found " +
                                     describe_node(rate));
    }
  }
  const auto wait = r.quantity("replacement_wait", core::Dimension::kSeconds, Range::kNonNegative,
                               Requirement::kOptional, "\"10 min\" (how long a preempted node takes to come back)");
  if (spot && !r.has("replacement_wait")) {
    missing_key(r, "replacement_wait",
                "; add replacement_wait: \"10 min\" (how long a preempted spot node takes to come back; "
                "the spot market needs it)");
  }

  if (name) {
    c.instance_name = *name;
    const std::vector<std::string> names = catalogs.instances.names();
    if (name->find('/') == std::string::npos) {
      r.error("instance", "expected provider/instance_type such as aws/p4d.24xlarge, found '" + *name + "'",
              core::did_you_mean(instances_of_type(*name, names)));
    } else if (const models::InstanceSpec* any = catalogs.instances.find(*name); any == nullptr) {
      // The instance type of another provider ("gcp/p4d.24xlarge"): name the provider that has it.
      const std::string type = name->substr(name->find('/') + 1);
      const std::vector<std::string> elsewhere = instances_of_type(type, names);
      std::string fix = suggest_names(*name, names, "instances");
      if (!elsewhere.empty()) {
        std::string providers;
        std::string written;
        for (std::size_t i = 0; i < elsewhere.size(); ++i) {
          const std::string separator = i == 0 ? "" : i + 1 == elsewhere.size() ? " or " : ", ";
          providers += separator + elsewhere[i].substr(0, elsewhere[i].find('/'));
          written += separator + elsewhere[i];
        }
        const bool vowel = std::string_view("aeiou").find(providers.front()) != std::string_view::npos;
        const std::string whose =
            elsewhere.size() == 1 ? (vowel ? "an " : "a ") + providers + " instance" : "an instance of " + providers;
        fix = "; " + type + " is " + whose + ": write " + written;
      }
      if (fix.empty()) fix = unknown_instance_hint(*name, names);
      r.error("instance", "unknown instance '" + *name + "'", fix);
    } else if (region && catalogs.instances.find(*name, *region) == nullptr) {
      r.error("region", *name + " has no price for region '" + *region + "' in the catalog",
              "; remove region to use the catalog's default (" + any->region + ") or pick another");
    } else if (zone) {
      // A zone prices the row as `gpuplan plan` does: that zone's on-demand and spot price.
      c.instance = catalogs.instances.find(*name, region.value_or(""), *zone);
      if (c.instance == nullptr) {
        std::vector<std::string> zones;
        for (const models::InstanceSpec* row : catalogs.instances.find_all(any->provider + "/" + any->instance_type)) {
          if ((!region || row->region == *region) && !row->zone.empty()) {
            zones.push_back(row->zone);
          }
        }
        const std::string where = region ? " in region " + *region : "";
        std::string fix = core::did_you_mean(core::closest(*zone, zones));
        if (fix.empty()) {
          fix = zones.empty() ? "; remove zone (the catalog has no zones for it" + where + ")" : "; pick one of";
          for (std::size_t i = 0; i < zones.size(); ++i) {
            fix += (i == 0 ? " " : ", ") + zones[i];
          }
        }
        r.error("zone", *name + " has no row for zone '" + *zone + "'" + where + " in the catalog", fix);
      }
    } else if (region) {
      c.instance = catalogs.instances.find(*name, *region);
    } else {
      c.instance = any;
    }
  }
  std::optional<PreemptionDefault> catalog_default;
  if (c.instance != nullptr) {
    catalog_default = catalogs.preemption.find(c.instance->provider, c.instance->instance_type);
    if (spot && !catalog_default && source == PreemptionSource::kCatalog && c.instance->spot_price_usd_per_s > 0.0) {
      r.error("market", "no default spot preemption rate for provider '" + c.instance->provider +
                            "' in the preemption catalog (catalogs/preemption.yaml)",
              "; write preemption_rate: \"0.1 /h\" (per node) or {trace: path}, or add the provider to the catalog");
    }
  }
  if (c.instance != nullptr && spot && c.instance->spot_price_usd_per_s <= 0.0) {
    // The default row of a region may have no spot price where zones of it do (AWS prices
    // spot per availability zone): name those zones.
    std::vector<std::string> spot_zones;
    for (const models::InstanceSpec* row :
         catalogs.instances.find_all(c.instance->provider + "/" + c.instance->instance_type)) {
      if (row->region == c.instance->region && !row->zone.empty() && row->spot_price_usd_per_s > 0.0 &&
          std::find(spot_zones.begin(), spot_zones.end(), row->zone) == spot_zones.end()) {
        spot_zones.push_back(row->zone);
      }
    }
    const std::string where = c.instance->zone.empty() ? "region " + c.instance->region
                                                       : "zone " + c.instance->zone + " of " + c.instance->region;
    std::string fix = "; use market: on_demand, or another region or instance";
    if (!spot_zones.empty()) {
      fix = "; pick a zone that has one (cloud.zone:";
      for (std::size_t i = 0; i < spot_zones.size(); ++i) fix += (i == 0 ? " " : ", ") + spot_zones[i];
      fix += "), or use market: on_demand";
    }
    r.error("market", c.instance_name + " has no spot price in the catalog for " + where, fix);
  }
  r.finish();
  c.failed = sink.messages().size() != errors_before;
  if (c.failed || c.instance == nullptr) {
    c.failed = true;
    return c;
  }
  models::CloudSpec spec;
  spec.instance = *c.instance;
  spec.market = market;
  spec.preemption_rate_per_s = spot && source == PreemptionSource::kRate ? rate_per_s : 0.0;
  spec.replacement_wait_s = value_or(wait, 0.0);
  // A failed node is replaced on either market: its start-up is the catalog's.
  spec.startup_s = catalog_default ? catalog_default->startup_s : 0.0;
  if (spot) {
    if (source == PreemptionSource::kCatalog && catalog_default) {
      spec.preemption_rate_per_s = catalog_default->rate_per_s;
      spec.preemption_rate_source = fmt_rate_per_h(catalog_default->rate_per_s) + " per node, " + catalog_default->source;
    } else if (source == PreemptionSource::kRate) {
      spec.preemption_rate_source = fmt_rate_per_h(rate_per_s) + " per node, from the scenario";
    } else if (source == PreemptionSource::kTrace && trace_data) {
      spec.trace = std::move(trace_data);
      spec.preemption_rate_source = "replayed from trace " + std::filesystem::path(c.preemption_trace).filename().string();
    }
  }
  c.spec = spec;
  c.preemption_source = spot ? source : PreemptionSource::kNone;
  // Spot-only settings on the on-demand market are named unused, but not in a scenario with
  // strategies or a sweep: its variants that set the spot market use them
  // (spot-vs-on-demand-a100.yaml), and `gpuplan plan` reads them for its spot plans.
  const bool variants = root.has("strategies") || root.has("sweep");
  if (!spot && !variants && (source == PreemptionSource::kRate || source == PreemptionSource::kTrace)) {
    c.notes.push_back("cloud.preemption_rate applies on the spot market only: this on-demand run has no preemptions "
                      "(set cloud.market: spot, here or in a strategy, to use it)");
  }
  if (!spot && !variants && r.has("replacement_wait")) {
    c.notes.push_back(r.note("replacement_wait",
                             "applies on the spot market only and is ignored on the on-demand market (a node is "
                             "never preempted there)",
                             "; remove it, or set cloud.market: spot (here or in a strategy) to use it (gpuplan plan "
                             "reads it for its spot plans)"));
  }
  if (!spot) {
    c.preemption_trace.clear();
  }
  return c;
}

/// With synthetic data nothing is read or decoded, so the hardware keys of the input pipeline
/// default to what the job still uses (scenario-format: "Synthetic data"):
/// - cpu_cores: one per GPU of the node, the one core each training process's main loop
///   needs (the same floor the validator asks of real data); it also sizes host power.
/// - host_memory: 0 B: synthetic batches are made on the GPU, so no loader batch is held
///   (models/host/loader_host_memory.h) and there is no dataset to cache.
/// - storage: kSyntheticDefaultStorage, the catalog's local NVMe class, used only for
///   checkpoints (checkpointing.destination can say otherwise).
constexpr const char* kSyntheticDefaultStorage = "nvme_ssd";

HardwareSection read_hardware_section(MapReader& root, const CloudSection& cloud, const Catalogs& catalogs,
                                      bool synthetic_data) {
  HardwareSection h;
  ErrorSink& sink = root.sink();
  const std::size_t errors_before = sink.messages().size();
  const models::InstanceSpec* inst = cloud.instance;
  const std::string& inst_name = cloud.instance_name;
  if (!root.has("hardware")) {
    root.declare({"hardware"});
    if (!cloud.present) {
      sink.add("missing key 'hardware'", root.mark(), "hardware",
               "; add hardware: with gpu, cpu_cores, host_memory and storage, or a cloud.instance "
               "that gives them");
      return h;
    }
    if (inst == nullptr) {
      return h;  // the cloud section's errors say why
    }
  } else {
    h.reader = root.map("hardware");
    if (!h.reader) {
      return h;
    }
  }
  // With a cloud section whose instance is unknown, facts the instance would have given
  // are not reported missing a second time.
  const bool report_missing_facts = !(cloud.present && inst == nullptr);
  const auto missing = [&](const std::string& key, const std::string& fix) {
    if (!report_missing_facts) {
      return;
    }
    const std::string why = inst != nullptr ? " (" + inst_name + " does not give it in the catalog)" : "";
    if (h.reader) {
      missing_key(*h.reader, key, fix + why);
    } else {
      sink.add_missing_key(cloud.reader->mark_of("instance"), "hardware." + key, fix + why);
    }
  };
  const auto contradiction = [&](const std::string& key, const std::string& written, const std::string& instance_has,
                                 const std::string& fix) {
    h.reader->error(key, key + " " + written + " contradicts cloud.instance " + inst_name + ", which has " +
                             instance_has,
                    fix);
  };
  models::HardwareSpec spec;
  // What the instance row gives, by the rule `gpuplan plan` uses too (config/instance_hardware.h).
  const InstanceFacts facts = inst != nullptr ? instance_facts(*inst, catalogs) : InstanceFacts{};
  // The storage problem is reported below, only when the scenario does not name its own storage.
  const std::string storage_problem = inst != nullptr && !inst->storage.empty() && facts.storage == nullptr
                                          ? "has storage '" + inst->storage + "', which the storage catalog lacks"
                                          : "";
  for (const InstanceProblem& problem : facts.problems) {
    if (problem.problem != storage_problem) {
      cloud.reader->error("instance", inst_name + " " + problem.problem, problem.fix);
    }
  }

  // GPU
  const models::GpuSpec* gpu = nullptr;
  const models::GpuSpec* inst_gpu = facts.gpu;
  std::optional<models::GpuSpec> profiled_gpu;  // catalog GPU + calibration profile
  const YAML::Node gpu_node = h.reader ? h.reader->raw("gpu") : YAML::Node(YAML::NodeType::Undefined);
  if (gpu_node.IsDefined()) {
    if (gpu_node.IsNull()) {
      h.reader->error("gpu", "missing value for 'gpu'", "; write gpu: <a catalog name such as a100-80gb>");
    } else if (gpu_node.IsMap()) {
      MapReader profile(gpu_node, h.reader->path_of("gpu"), sink);
      const auto path = profile.string("profile", Requirement::kRequired);
      profile.finish();
      if (path) {
        profiled_gpu = read_gpu_profile(profile, *path, catalogs);
      }
      if (profiled_gpu) {
        gpu = &*profiled_gpu;
        if (inst_gpu != nullptr && inst_gpu->name != gpu->name) {
          contradiction("gpu", "(a profile of " + gpu->name + ")",
                        std::to_string(inst->accelerator_count) + " x " + inst_gpu->name,
                        "; use a profile measured on " + inst_gpu->name + " or choose an instance with " +
                            gpu->name);
        }
      }
    } else if (gpu_node.IsScalar()) {
      const std::string& name = gpu_node.Scalar();
      gpu = catalogs.gpus.find(name);
      const std::vector<std::string> covered =
          gpu != nullptr ? catalogs.gpus.also_covered(name, *gpu) : std::vector<std::string>{};
      if (!covered.empty()) {
        std::string others;
        for (std::size_t i = 0; i < covered.size(); ++i) {
          others += (i == 0 ? "" : i + 1 == covered.size() ? " and " : ", ") + covered[i];
        }
        h.notes.push_back("hardware.gpu: " + name + " is taken as " + gpu->name + "; it also names " + others +
                          " (write the catalog name to choose one)");
      } else if (gpu != nullptr && fold(name) != gpu->name) {
        // An alias ("NVIDIA H100 80GB HBM3", nvidia-smi's name) read as a catalog name: say which.
        h.notes.push_back(h.reader->note("gpu", "gpu '" + name + "' read as " + gpu->name,
                                         "; write gpu: " + gpu->name + " to name the catalog entry"));
      }
      if (gpu == nullptr) {
        const std::vector<std::string> meant = catalogs.gpus.meant(name);
        const std::string hint =
            !meant.empty() ? core::did_you_mean(meant) : suggest_names(name, catalogs.gpus.names(), "GPUs");
        h.reader->error("gpu", "unknown gpu '" + name + "'",
                        hint.empty() ? "; `gpuplan list gpus` prints the catalog's GPUs" : hint);
      } else if (inst_gpu != nullptr && inst_gpu->name != gpu->name) {
        contradiction("gpu", "'" + name + "'",
                      std::to_string(inst->accelerator_count) + " x " + inst_gpu->name,
                      "; remove hardware.gpu (the instance sets it) or choose an instance with " + gpu->name);
      }
    } else {
      h.reader->error("gpu", "expected a GPU name or {profile: path}, found " + describe_node(gpu_node));
    }
  } else if (inst != nullptr) {
    gpu = inst_gpu;
  } else {
    missing("gpu", "; add gpu: <a catalog name such as a100-80gb>");
  }

  // GPUs per node and nodes
  std::optional<std::int64_t> gpus_per_node;
  if (h.reader) {
    gpus_per_node = h.reader->integer("gpus_per_node", 1, kMaxGpusPerNode);
  }
  h.explicit_gpus_per_node = h.reader && h.reader->has("gpus_per_node");
  spec.gpus_per_node = 1;
  // A plain value: GCC 12 -O3 reports -Wmaybe-uninitialized on the optional here.
  const std::int64_t gpus_written = gpus_per_node.value_or(0);
  if (gpus_written > 0) {
    spec.gpus_per_node = static_cast<int>(gpus_written);
    if (inst != nullptr && inst->accelerator_count > 0 && gpus_written > inst->accelerator_count) {
      h.reader->error("gpus_per_node",
                      "gpus_per_node " + std::to_string(gpus_written) + " exceeds the " +
                          std::to_string(inst->accelerator_count) + " GPUs of " + inst_name,
                      "; use at most " + std::to_string(inst->accelerator_count) +
                          ", or remove gpus_per_node (the instance sets it)");
    }
  } else if (inst != nullptr && !h.explicit_gpus_per_node) {
    spec.gpus_per_node = std::max(inst->accelerator_count, 1);
  }
  std::optional<std::int64_t> nodes;
  if (h.reader) {
    nodes = h.reader->integer("nodes", 1, kMaxNodes);
  }
  h.explicit_nodes = h.reader && h.reader->has("nodes");
  spec.nodes = static_cast<int>(value_or(nodes, 1));

  // GPU interconnect: the instance's, else default_interconnect (NVLink board or PCIe). A bare name
  // (pcie4, nvlink3) or a table name of models/interconnect/interconnect_table.h
  // (pcie4_switch, nvlink3_direct, ...); nvlink1 is refused with the reason.
  std::optional<std::string> interconnect;
  if (h.reader) {
    const YAML::Node written = h.reader->raw("gpu_interconnect");
    const std::string unsupported =
        written.IsScalar() ? unsupported_interconnect_reason(written.Scalar()) : std::string();
    if (!unsupported.empty()) {
      h.reader->error("gpu_interconnect", "unsupported gpu_interconnect '" + written.Scalar() + "': " + unsupported,
                      "; use nvlink2, nvlink3, nvlink4 or nvlink5 (or a table name such as nvlink4_nvswitch), "
                      "or a PCIe link such as pcie5");
    } else {
      interconnect = h.reader->choice("gpu_interconnect", interconnect_names());
    }
  }
  const bool inst_knows_interconnect = facts.interconnect_from_row;
  if (interconnect) {
    spec.gpu_interconnect = *interconnect;
    if (inst_knows_interconnect && !interconnect_agrees(*interconnect, inst->interconnect)) {
      // The catalog records the bus and its generation only, so naming the wiring of the
      // same generation (nvlink3_direct for nvlink3, pcie4_no_p2p for pcie4) is allowed.
      std::vector<std::string> wirings;
      for (const std::string& name : models::intra_node_link_names()) {
        if (interconnect_agrees(name, inst->interconnect)) {
          wirings.push_back(name);
        }
      }
      std::string listed;
      for (std::size_t i = 0; i < wirings.size(); ++i) {
        listed += (i == 0 ? "" : (i + 1 == wirings.size() ? " or " : ", ")) + wirings[i];
      }
      contradiction("gpu_interconnect", *interconnect, inst->interconnect,
                    "; remove gpu_interconnect (the instance sets it), or name a wiring of " + inst->interconnect +
                        ": " + listed);
    } else if (gpu != nullptr && interconnect->starts_with("nvlink") && gpu->nvlink_bytes_per_s_per_direction <= 0.0) {
      h.reader->error("gpu_interconnect", gpu->name + " has no NVLink",
                      gpu->infinity_fabric_links > 0 ? "; use " + std::string(kInfinityFabricMesh) + " (its Infinity Fabric links)"
                      : gpu->pcie_generation > 0
                          ? "; use pcie" + std::to_string(gpu->pcie_generation)
                          : "; use a PCIe generation such as pcie4");
    } else if (gpu != nullptr && !inst_knows_interconnect) {
      const InterconnectProblem wrong = interconnect_problem(*interconnect, *gpu, spec.gpus_per_node);
      if (!wrong.problem.empty()) {
        h.reader->error("gpu_interconnect", wrong.problem, wrong.fix);
      }
    }
  } else if (!(h.reader && h.reader->has("gpu_interconnect"))) {
    if (inst_knows_interconnect) {
      spec.gpu_interconnect = facts.gpu_interconnect;
    } else if (gpu != nullptr && !default_interconnect(*gpu).empty()) {
      // An SXM GPU sits on its NVLink board; a PCIe card on its own PCIe generation.
      spec.gpu_interconnect = default_interconnect(*gpu);
    } else if (gpu != nullptr) {
      missing("gpu_interconnect", "; add gpu_interconnect: pcie4 (the GPU catalog gives no PCIe generation for " +
                                      gpu->name + ")");
    }
  }

  // GPUs per PCIe switch: checked against gpus_per_node here, defaulted once the link is
  // known (default_gpus_per_pcie_switch).
  std::optional<std::int64_t> gpus_per_pcie_switch;
  if (h.reader) {
    gpus_per_pcie_switch = h.reader->integer("gpus_per_pcie_switch", 1, kMaxGpusPerNode);
  }
  const std::int64_t per_switch_written = gpus_per_pcie_switch.value_or(0);
  const bool gpus_per_node_valid = gpus_per_node.has_value() || !h.explicit_gpus_per_node;
  if (gpus_per_node_valid && per_switch_written > spec.gpus_per_node) {
    h.reader->error("gpus_per_pcie_switch",
                    "gpus_per_pcie_switch " + std::to_string(per_switch_written) + " exceeds gpus_per_node " +
                        std::to_string(spec.gpus_per_node),
                    "; use at most " + std::to_string(spec.gpus_per_node) +
                        " (GPUs of one node that share a PCIe switch), or remove gpus_per_pcie_switch");
  }

  // CPU cores: an instance's vCPUs are hardware threads, two per physical core.
  std::optional<std::int64_t> cpu_cores;
  if (h.reader) {
    cpu_cores = h.reader->integer("cpu_cores", 1, kMaxCpuCores);
  }
  const bool inst_knows_cores = facts.cpu_cores > 0;
  const int inst_cores = facts.cpu_cores;
  const std::int64_t cores_written = cpu_cores.value_or(0);
  if (cores_written > 0) {
    spec.cpu_cores = static_cast<int>(cores_written);
    if (inst_knows_cores && cores_written > inst_cores) {
      h.reader->error("cpu_cores",
                      "cpu_cores " + std::to_string(cores_written) + " exceeds the " + std::to_string(inst_cores) +
                          " physical cores of " + inst_name + " (" + format_number(inst->vcpus) +
                          " vCPUs, 2 per core)",
                      "; use at most " + std::to_string(inst_cores) + ", or remove cpu_cores (the instance sets it)");
    }
  } else if (!(h.reader && h.reader->has("cpu_cores"))) {
    if (inst_knows_cores) {
      spec.cpu_cores = inst_cores;
    } else if (synthetic_data) {
      spec.cpu_cores = spec.gpus_per_node;
      h.notes.push_back("synthetic data: hardware.cpu_cores defaults to " + std::to_string(spec.cpu_cores) +
                        " (one per GPU)");
    } else {
      missing("cpu_cores", "; add cpu_cores: <physical cores per node available to the job>, e.g. 8");
    }
  }

  // Host memory
  std::optional<double> host_memory;
  if (h.reader) {
    host_memory = h.reader->quantity("host_memory", core::Dimension::kBytes);
  }
  const bool inst_knows_memory = facts.host_memory_bytes > 0.0;
  if (host_memory) {
    spec.host_memory_bytes = *host_memory;
    if (inst_knows_memory && *host_memory > inst->memory_bytes) {
      h.reader->error("host_memory",
                      "host_memory " + h.reader->raw("host_memory").Scalar() + " exceeds the " +
                          format_gib(inst->memory_bytes) + " of " + inst_name,
                      "; remove host_memory (the instance sets it)");
    }
  } else if (!(h.reader && h.reader->has("host_memory"))) {
    if (inst_knows_memory) {
      spec.host_memory_bytes = facts.host_memory_bytes;
    } else if (synthetic_data) {
      spec.host_memory_bytes = 0.0;
      h.notes.push_back("synthetic data: hardware.host_memory defaults to 0 B (no loader batch or dataset is held)");
    } else {
      missing("host_memory", "; add host_memory: \"64 GiB\" (per node)");
    }
  }

  // Storage: an explicit class wins over the instance's local disk (a dataset may live on
  // network storage), so it is not a contradiction.
  const YAML::Node storage = h.reader ? h.reader->raw("storage") : YAML::Node(YAML::NodeType::Undefined);
  if (storage.IsDefined()) {
    if (storage.IsNull()) {
      h.reader->error("storage", "missing value for 'storage'",
                      "; write storage: <a catalog class such as nvme_ssd>");
    } else if (storage.IsScalar()) {
      const models::StorageSpec* found = catalogs.storage.find(storage.Scalar());
      if (found == nullptr) {
        h.reader->error("storage", "unknown storage '" + storage.Scalar() + "'",
                        suggest_names(storage.Scalar(), catalogs.storage.names(), "storage classes"));
      } else {
        spec.storage = *found;
      }
    } else if (storage.IsMap()) {
      if (auto inline_spec = read_inline_storage(storage, h.reader->path_of("storage"), sink)) {
        spec.storage = *inline_spec;
      }
    } else {
      h.reader->error("storage", "expected a storage class or {read_bandwidth, write_bandwidth, latency, "
                                 "queue_depth}, found " + describe_node(storage));
    }
  } else if (inst != nullptr && !inst->storage.empty()) {
    if (facts.storage == nullptr) {
      cloud.reader->error("instance", inst_name + " " + storage_problem,
                          "; add it to catalogs/storage.yaml, or give hardware.storage");
    } else {
      spec.storage = *facts.storage;
    }
  } else if (const models::StorageSpec* local = catalogs.storage.find(kSyntheticDefaultStorage);
             synthetic_data && local != nullptr) {
    spec.storage = *local;
    h.notes.push_back(std::string("synthetic data: hardware.storage defaults to ") + kSyntheticDefaultStorage +
                      " (it holds only the checkpoints)");
  } else {
    missing("storage", "; add storage: <a catalog class such as nvme_ssd> or {read_bandwidth, write_bandwidth, "
                       "latency, queue_depth}");
  }

  // Network between nodes: needed only with several nodes. A bandwidth (one Ethernet NIC)
  // or {bandwidth (per NIC), transport, latency, nics}; else the instance's (instance_network).
  std::optional<NetworkChoice> network;
  const YAML::Node network_node = h.reader ? h.reader->raw("network") : YAML::Node(YAML::NodeType::Undefined);
  if (network_node.IsDefined()) {
    network = read_network(*h.reader, network_node);
  }
  const bool inst_knows_network = facts.network.has_value();
  if (network) {
    if (inst_knows_network && network->node_bytes_per_s() > inst->network_bytes_per_s) {
      const std::string written = network_node.IsScalar() ? network_node.Scalar()
                                                          : format_gbit_per_s(network->node_bytes_per_s()) + " (" +
                                                                std::to_string(network->nics) + " x " +
                                                                format_gbit_per_s(network->nic_bytes_per_s) + ")";
      h.reader->error(
          "network",
          "network " + written + " exceeds the " + format_gbit_per_s(inst->network_bytes_per_s) + " of " + inst_name,
          "; remove network (the instance sets it), or give at most " + format_gbit_per_s(inst->network_bytes_per_s) +
              " per node in all");
    }
  } else if (!network_node.IsDefined()) {
    if (inst_knows_network) {
      network = facts.network;
    } else if (spec.nodes > 1) {
      missing("network", "; add network: \"100 Gbit/s\" (bandwidth between nodes, needed with " +
                             std::to_string(spec.nodes) + " nodes)");
    }
  }
  if (network) {
    spec.network_bytes_per_s = network->node_bytes_per_s();
  }

  // Hardware failures per GPU, on own hardware and on every cloud market.
  std::optional<double> failure_rate;
  if (h.reader) {
    failure_rate = h.reader->quantity("gpu_failure_rate", core::Dimension::kPerSecond, Range::kNonNegative,
                                      Requirement::kOptional, "\"2e-5 /h\" (hardware failures per GPU; \"0 /h\" for none)");
  }
  spec.gpu_failure_rate_per_s = value_or(failure_rate, models::kGpuFailureRatePerS);
  spec.gpu_failure_rate_source =
      failure_rate ? std::string("hardware.gpu_failure_rate as written") : default_gpu_failure_rate_source();
  if (h.reader) {
    h.reader->finish();
  }
  if (sink.messages().size() != errors_before || gpu == nullptr) {
    return h;
  }
  spec.gpu = *gpu;
  // The links the collectives run over. Every input was checked above, so a failure here
  // means the rules disagree with models::validate_topology: reported, never a crash.
  try {
    const models::LinkSpec intra_node = intra_node_link_for(spec.gpu_interconnect, spec.gpu, spec.gpus_per_node);
    spec.gpus_per_pcie_switch = per_switch_written > 0 ? static_cast<int>(per_switch_written)
                                                       : default_gpus_per_pcie_switch(intra_node, spec.gpus_per_node);
    spec.topology = make_topology(spec.gpus_per_node, spec.nodes, intra_node, network ? &*network : nullptr);
  } catch (const std::invalid_argument& e) {
    const std::string problem = std::string("cannot build the topology of the collectives: ") + e.what();
    const std::string fix = "; check gpus_per_node, nodes, gpu_interconnect and network";
    if (root.has("hardware")) {
      root.error("hardware", problem, fix);
    } else {
      sink.add(problem, cloud.reader->mark_of("instance"), "hardware", fix);
    }
    return h;
  }
  h.spec = spec;
  return h;
}

std::optional<models::OnPremisesSpec> read_on_premises_section(MapReader& root, const CloudSection& cloud) {
  if (!root.has("on_premises")) {
    root.declare({"on_premises"});
    return std::nullopt;
  }
  ErrorSink& sink = root.sink();
  const std::size_t errors_before = sink.messages().size();
  auto r = root.map("on_premises");
  if (!r) {
    return std::nullopt;
  }
  const auto price =
      r->quantity("purchase_price", core::Dimension::kUsd, Range::kPositive, Requirement::kRequired, "\"$25000\"");
  const auto amortization =
      r->quantity("amortization", core::Dimension::kSeconds, Range::kPositive, Requirement::kRequired, "\"3 years\"");
  const auto electricity = r->quantity("electricity", core::Dimension::kUsdPerJoule, Range::kNonNegative,
                                       Requirement::kRequired, "\"$0.15/kWh\"");
  r->finish();
  if (cloud.present) {
    root.error("on_premises", "cloud and on_premises are both given",
               "; keep one: cloud prices rented instances, on_premises bought hardware");
  }
  if (sink.messages().size() != errors_before) {
    return std::nullopt;
  }
  return models::OnPremisesSpec{*price, *amortization, *electricity};
}

bool check_host_memory(const models::JobSpec& job, const HardwareSection& hardware, const CloudSection& cloud,
                       std::vector<std::string>& notes) {
  const models::LoaderHostMemory need = models::loader_host_memory(job);
  const double states = models::offloaded_host_bytes_per_node(job);
  // training.activation_offloading's pinned copies of one micro-batch's saved activations
  // (models/memory/activation_offload.h).
  const double activations = models::offloaded_activation_host_bytes_per_node(job);
  const double offloaded = states + activations;
  const double total = need.bytes + offloaded;
  // Synthetic data defaults host_memory to 0 B (read_hardware_section); an offloading job
  // holds its states there, so the key is asked for rather than defaulted. (cpu_cores keeps
  // its noted default of one per GPU, which the host optimizer step then runs on.)
  const bool own_host_keys = cloud.instance != nullptr || !hardware.reader;
  const auto gb = [](double b) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GB", b / 1e9);
    return std::string(text);
  };
  if (offloaded > 0.0 && !own_host_keys && !hardware.reader->has("host_memory")) {
    const std::string who = activations <= 0.0 ? "parallelism.offload keeps " + gb(offloaded) + " of training state"
                            : states <= 0.0    ? "training.activation_offloading keeps " + gb(offloaded) +
                                                  " of saved activations (pinned)"
                                               : "parallelism.offload and training.activation_offloading keep " +
                                                  gb(offloaded) + " of training state and saved activations";
    hardware.reader->error("host_memory",
                           who + " in host memory per node, but hardware.host_memory is not given "
                                 "(synthetic data defaults it to 0 B)",
                           "; add hardware.host_memory: the node's real host memory (at least " + gb(total) + ")");
    return false;
  }
  if (!(job.hardware.host_memory_bytes < total)) {
    const double buffered = need.bytes + kOffloadHostBufferFactor * states + activations;
    if (states > 0.0 && job.hardware.host_memory_bytes < buffered) {
      const std::string problem =
          "host memory " + gb(job.hardware.host_memory_bytes) + " per node holds the " + gb(total) +
          " of offloaded states and loader batches with less to spare than DeepSpeed's estimators allow (" +
          gb(buffered) + " with their additional_buffer_factor of 1.5 on the states)";
      const std::string fix = "; the ranks' processes and pinned buffers use host memory too: check the node's "
                              "free memory, or offload to nvme or add nodes";
      if (hardware.reader && hardware.reader->has("host_memory")) {
        notes.push_back(hardware.reader->note("host_memory", problem, fix));
      } else if (cloud.reader) {
        notes.push_back(cloud.reader->note("instance", problem, fix));
      }
    }
    return true;
  }
  const models::DataLoaderSpec& dl = job.data_loader;
  // Exact bytes for the loaders' batches; GB where offloaded states (hundreds of GB) count.
  auto bytes = [offloaded, &gb](double b) {
    if (offloaded > 0.0) return gb(b);
    char text[64];
    std::snprintf(text, sizeof text, "%.0f B (%.1f MiB)", b, b / core::mebibytes(1.0));
    return std::string(text);
  };
  const std::string loaders =
      bytes(need.bytes) + " the data loaders hold: " + std::to_string(job.hardware.gpus_per_node) + " GPU(s) x " +
      std::to_string(need.batches_per_gpu) + " batches (max(1, num_workers " + std::to_string(dl.num_workers) +
      " x prefetch_factor " + std::to_string(dl.prefetch_factor) + ") in flight + 1 in use" +
      (dl.pin_memory ? " + 1 pinned copy" : "") + ") x " + bytes(need.batch_bytes) + " per batch";
  std::vector<std::string> held;  // what the job keeps in host memory, biggest kind first
  if (states > 0.0) {
    held.push_back(bytes(states) + " of states parallelism.offload keeps in host memory (" +
                   std::to_string(job.hardware.gpus_per_node) +
                   " GPU(s) x their shards of the fp32 master weights, optimizer state and fp32 "
                   "gradients, and of the parameters where offload.parameters is cpu)");
  }
  if (activations > 0.0) {
    held.push_back(bytes(activations) + " of saved activations training.activation_offloading keeps in pinned host "
                   "memory (" + std::to_string(job.hardware.gpus_per_node) + " GPU(s) x one micro-batch of " +
                   std::to_string(job.training.batch_size) + " samples, every repeated block's but the last)");
  }
  if (need.bytes > 0.0 || held.empty()) held.push_back(loaders);
  std::string problem = "host memory " + bytes(job.hardware.host_memory_bytes) + " per node is less than the ";
  if (held.size() == 1) {
    problem += held.front();
  } else {
    problem += bytes(total) + " the job holds there: ";
    for (std::size_t i = 0; i < held.size(); ++i) {
      problem += (i == 0 ? "" : i + 1 == held.size() ? " and " : ", ") + held[i];
    }
  }
  // On a cloud instance the host memory is the instance's: the fix names a bigger one.
  const bool instance_memory = !(hardware.reader && hardware.reader->has("host_memory")) && cloud.reader;
  std::string fix = instance_memory ? "; choose an instance with at least " + bytes(total) + " of host memory"
                                    : "; give the node's real host memory (at least " + bytes(total) + ")";
  if (activations > 0.0) {
    fix += ", turn training.activation_offloading off, or checkpoint the blocks (activation_checkpointing: true "
           "offloads their inputs only)";
    if (states > 0.0) fix += "; the offloaded states also shrink with more nodes to shard them over";
  } else if (states > 0.0) {
    // ZeRO offloads to NVMe (ZeRO-Infinity); FSDP's CPUOffload has host memory only.
    fix += job.parallelism.strategy == models::ParallelStrategy::kZero ? ", offload to nvme, or add nodes to shard the states over"
                                                                       : ", or add nodes to shard the states over";
  } else {
    fix += ", or lower num_workers, prefetch_factor or batch_size (with more gradient_accumulation for the same "
           "global batch)";
  }
  if (hardware.reader && hardware.reader->has("host_memory")) {
    hardware.reader->error("host_memory", problem, fix);
  } else if (cloud.reader) {
    cloud.reader->error("instance", problem, fix);
  } else if (hardware.reader) {
    hardware.reader->error("host_memory", problem, fix);
  }
  return false;
}

std::string default_gpu_failure_rate_source() {
  return std::string(models::kGpuFailureRateSource) + "; set hardware.gpu_failure_rate for your fleet";
}

}  // namespace gpuplan::config
