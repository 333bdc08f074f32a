#include "config/gpu_catalog.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <utility>

#include "config/catalog_file.h"
#include "config/yaml_reader.h"
#include "core/text_distance.h"

namespace gpuplan::config {
namespace {

using core::Dimension;


bool is_catalog_name(std::string_view name) {
  if (name.empty() || name.front() == '-' || name.back() == '-') {
    return false;
  }
  char previous = ' ';
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok || (c == '-' && previous == '-')) {
      return false;
    }
    previous = c;
  }
  return true;
}

/// "8.6" -> {8, 6}; nullopt unless it is <major>.<minor> with one-digit minor.
std::optional<std::pair<int, int>> parse_compute_capability(std::string_view text) {
  const auto dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 2 != text.size() || dot > 2) {
    return std::nullopt;
  }
  int major = 0;
  for (std::size_t i = 0; i < dot; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
      return std::nullopt;
    }
    major = major * 10 + (text[i] - '0');
  }
  const char minor = text[dot + 1];
  if (!std::isdigit(static_cast<unsigned char>(minor)) || major < 1) {
    return std::nullopt;
  }
  return std::make_pair(major, minor - '0');
}

/// One alias as written, with its position for collision messages.
struct AliasSite {
  std::string alias;
  YAML::Mark mark;
  std::string key_path;
};

/// Peaks that tensor cores provide only from a given compute capability (DESIGN.md: fp16
/// from 7.0, tf32/bf16 from 8.0, fp8 from 8.9; NVIDIA CUDA C++ Programming Guide, "Compute
/// Capabilities"). fp16 is always required: below 7.0 it is the cuBLAS fp32-compute path.
struct GatedPeak {
  const char* key;
  int major;
  int minor;
  const char* what;
};
constexpr GatedPeak kGatedPeaks[] = {
    {"tf32", 8, 0, "TF32 tensor cores start at compute capability 8.0 (Ampere)"},
    {"bf16", 8, 0, "BF16 tensor cores start at compute capability 8.0 (Ampere)"},
    {"fp8", 8, 9, "FP8 tensor cores start at compute capability 8.9 (Ada, Hopper)"},
};

/// The same gates on AMD CDNA, by generation (AMD CDNA 2 and CDNA 3 whitepapers; ROCm "Data
/// types and precision support"): bf16 Matrix Cores on every accepted target, fp8 from CDNA 3,
/// and no tf32 at all. CDNA 3's xf32 MFMA is not what PyTorch's TF32 switch selects on ROCm
/// builds by default, and gpuplan has no measurement of it: `tf32` runs as fp32 on AMD.
struct AmdGatedPeak {
  const char* key;
  int generation;  ///< first CDNA generation with it; 0 = none has it
  const char* what;
};
constexpr AmdGatedPeak kAmdGatedPeaks[] = {
    {"tf32", 0, "gpuplan models no TF32 path on AMD CDNA (tf32 runs as fp32 there; CDNA 3's xf32 is not modelled)"},
    {"bf16", 2, "BF16 Matrix Cores run at full rate from CDNA 2 (gfx90a)"},
    {"fp8", 3, "FP8 Matrix Cores start at CDNA 3 (gfx942)"},
};

/// The AMD LLVM targets the catalog accepts and their CDNA generation (ROCm "GPU hardware
/// specifications": MI210/MI250/MI250X gfx90a, MI300A/MI300X/MI325X gfx942).
constexpr std::pair<std::string_view, int> kGfxTargets[] = {{"gfx90a", 2}, {"gfx942", 3}};

bool at_least(int major, int minor, int want_major, int want_minor) {
  return major > want_major || (major == want_major && minor >= want_minor);
}

/// One precision gate resolved for the entry's architecture.
struct PeakGate {
  const char* key = "";
  bool hardware_has_it = false;
  std::string what;            ///< why, for the fix
  std::string correct_hint;    ///< " or correct <architecture key>", or empty
};

/// The gates of the entry's architecture; empty when the architecture is unknown (a
/// malformed compute_capability or gfx_target, already reported).
std::vector<PeakGate> peak_gates(const models::GpuSpec& spec, bool architecture_known) {
  std::vector<PeakGate> gates;
  if (!architecture_known) {
    return gates;
  }
  if (spec.is_amd()) {
    for (const AmdGatedPeak& g : kAmdGatedPeaks) {
      gates.push_back({g.key, g.generation > 0 && spec.cdna_generation >= g.generation, g.what,
                       g.generation > 0 ? " or correct gfx_target" : ""});
    }
    return gates;
  }
  for (const GatedPeak& g : kGatedPeaks) {
    gates.push_back({g.key,
                     at_least(spec.compute_capability_major, spec.compute_capability_minor, g.major, g.minor),
                     g.what, " or correct compute_capability"});
  }
  return gates;
}

void read_peaks(MapReader& gpu, models::GpuSpec& spec, bool architecture_known) {
  auto peaks = gpu.map("peak_dense", Requirement::kRequired);
  if (!peaks) {
    return;
  }
  spec.peak_fp32_flop_per_s =
      peaks->quantity("fp32", Dimension::kFlopPerSecond, Range::kPositive, Requirement::kRequired)
          .value_or(0.0);
  spec.peak_fp16_flop_per_s =
      peaks->quantity("fp16", Dimension::kFlopPerSecond, Range::kPositive, Requirement::kRequired)
          .value_or(0.0);
  // In the order of the gates: tf32, bf16, fp8.
  double* gated_fields[] = {&spec.peak_tf32_flop_per_s, &spec.peak_bf16_flop_per_s,
                            &spec.peak_fp8_flop_per_s};
  const std::vector<PeakGate> gates = peak_gates(spec, architecture_known);
  const std::string architecture = spec.architecture_text();
  for (std::size_t i = 0; i < std::size(kGatedPeaks); ++i) {
    const std::string key = kGatedPeaks[i].key;
    const bool given = peaks->has(key);
    const auto quantity = peaks->quantity(key, Dimension::kFlopPerSecond, Range::kNonNegative);
    if (given && !quantity) {
      continue;  // malformed value: already reported
    }
    const double value = quantity.value_or(0.0);
    *gated_fields[i] = value;
    if (gates.empty()) {
      continue;
    }
    const PeakGate& gate = gates[i];
    if (value > 0.0 && !gate.hardware_has_it) {
      peaks->error(key, key + " peak on a GPU of " + architecture,
                   "; " + gate.what + ": remove " + key + gate.correct_hint);
    } else if (gate.hardware_has_it && value <= 0.0) {
      peaks->error(key, std::string(given ? "zero " : "missing ") + key + " peak for " + architecture,
                   "; " + gate.what + ": add " + key + ": \"<dense rate> TFLOP/s\" from the datasheet");
    }
  }
  peaks->finish();
}

std::vector<std::string> read_aliases(MapReader& gpu, std::vector<AliasSite>& sites) {
  std::vector<std::string> aliases;
  const YAML::Node node = gpu.raw("aliases");
  if (!node.IsDefined() || node.IsNull()) {
    return aliases;
  }
  const std::string path = gpu.path_of("aliases");
  if (!node.IsSequence()) {
    gpu.sink().add("expected a list of names, found " + describe_node(node), node.Mark(), path,
                   "; write aliases: [\"A100-SXM4-80GB\", \"A100 80GB\"]");
    return aliases;
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    const std::string item_path = path + "[" + std::to_string(i) + "]";
    if (!item.IsScalar() || item.Scalar().empty()) {
      gpu.sink().add("expected a non-empty name, found " + describe_node(item), item.Mark(),
                     item_path);
      continue;
    }
    aliases.push_back(item.Scalar());
    sites.push_back({item.Scalar(), item.Mark(), item_path});
  }
  return aliases;
}

/// The keys only one vendor's entries may carry, with the other vendor's counterpart.
struct VendorKey {
  const char* key;
  models::GpuVendor vendor;
  const char* instead;  ///< the other vendor's key for the same fact, or empty
};
constexpr VendorKey kVendorKeys[] = {
    {"compute_capability", models::GpuVendor::kNvidia, "gfx_target"},
    {"sms", models::GpuVendor::kNvidia, "compute_units"},
    {"nvlink_per_direction", models::GpuVendor::kNvidia, "infinity_fabric"},
    {"gfx_target", models::GpuVendor::kAmd, "compute_capability"},
    {"compute_units", models::GpuVendor::kAmd, "sms"},
    {"infinity_fabric", models::GpuVendor::kAmd, "nvlink_per_direction"},
};

/// Refuses a key of the other vendor ("sms on a vendor: amd entry"), with the key to write
/// instead. Marks it known so that finish() does not report it a second time.
void refuse_other_vendor_keys(MapReader& gpu, const models::GpuSpec& spec) {
  for (const VendorKey& k : kVendorKeys) {
    if (k.vendor == spec.vendor || !gpu.has(k.key)) {
      continue;
    }
    gpu.declare({k.key});
    const std::string own = models::vendor_name(spec.vendor);
    gpu.error(k.key, std::string(k.key) + " is a key of " + models::vendor_name(k.vendor) + " entries, and this one is vendor: " + own,
              "; write " + std::string(k.instead) + " instead, or correct vendor");
  }
}

/// compute_capability and sms (NVIDIA), or gfx_target and compute_units (AMD), into `spec`.
/// Returns whether the architecture is known (the precision gates need it).
bool read_architecture(MapReader& gpu, models::GpuSpec& spec) {
  refuse_other_vendor_keys(gpu, spec);
  if (spec.is_amd()) {
    std::vector<std::string_view> targets;
    for (const auto& t : kGfxTargets) targets.push_back(t.first);
    const std::optional<std::string> target = gpu.choice("gfx_target", targets, Requirement::kRequired);
    spec.sm_count = static_cast<int>(gpu.integer("compute_units", 1, 1000, Requirement::kRequired).value_or(0));
    if (!target) {
      return false;
    }
    spec.gfx_target = *target;
    for (const auto& t : kGfxTargets) {
      if (t.first == *target) spec.cdna_generation = t.second;
    }
    return true;
  }
  std::optional<std::pair<int, int>> cc;
  if (auto text = gpu.string("compute_capability", Requirement::kRequired)) {
    cc = parse_compute_capability(*text);
    if (!cc) {
      gpu.error("compute_capability", "expected a compute capability such as \"8.0\", found '" +
                                          *text + "'",
                "; write it as <major>.<minor> in quotes, as nvidia-smi --query-gpu=compute_cap prints it");
    } else {
      spec.compute_capability_major = cc->first;
      spec.compute_capability_minor = cc->second;
    }
  }
  spec.sm_count = static_cast<int>(gpu.integer("sms", 1, 1000, Requirement::kRequired).value_or(0));
  return cc.has_value();
}

/// The GPU-to-GPU links of the platform board: nvlink_per_direction (NVIDIA; optional, total
/// over all links, one direction), or infinity_fabric {links, per_link_per_direction} (AMD;
/// optional: one link to each peer of a full mesh).
void read_gpu_links(MapReader& gpu, models::GpuSpec& spec) {
  if (!spec.is_amd()) {
    spec.nvlink_bytes_per_s_per_direction =
        gpu.quantity("nvlink_per_direction", Dimension::kBytesPerSecond, Range::kPositive).value_or(0.0);
    return;
  }
  if (auto fabric = gpu.map("infinity_fabric")) {
    spec.infinity_fabric_links =
        static_cast<int>(fabric->integer("links", 1, 15, Requirement::kRequired).value_or(0));
    spec.infinity_fabric_link_bytes_per_s_per_direction =
        fabric->quantity("per_link_per_direction", Dimension::kBytesPerSecond, Range::kPositive, Requirement::kRequired)
            .value_or(0.0);
    fabric->finish();
  }
}

std::optional<models::GpuSpec> read_gpu(const std::string& name, const YAML::Node& node,
                                        const YAML::Mark& key_mark, ErrorSink& sink,
                                        std::vector<AliasSite>& alias_sites) {
  const std::string path = "gpus." + name;
  const std::size_t errors_before = sink.messages().size();
  if (!is_catalog_name(name)) {
    sink.add("invalid GPU name '" + name + "'", key_mark, path,
             "; catalog names are lower-case letters, digits and single hyphens, e.g. a100-80gb");
  }
  MapReader gpu(node, path, sink, key_mark);
  if (!gpu.valid()) {
    return std::nullopt;
  }
  models::GpuSpec spec;
  spec.name = name;
  spec.aliases = read_aliases(gpu, alias_sites);
  spec.form_factor = gpu.choice("form_factor", {"sxm", "pcie", "oam"}, Requirement::kRequired).value_or("");
  // vendor: optional, nvidia when absent (catalogs written before AMD entries existed); the
  // shipped catalog writes it on every entry (tests/config/gpu_catalog_test.cpp checks).
  const std::optional<std::string> vendor = gpu.choice("vendor", {"nvidia", "amd"});
  const bool vendor_known = vendor.has_value() || !gpu.has("vendor");
  spec.vendor = vendor.value_or("nvidia") == "amd" ? models::GpuVendor::kAmd : models::GpuVendor::kNvidia;
  if (!vendor_known) {
    // Which keys belong here is unknown: the vendor error says what to fix first.
    for (const VendorKey& k : kVendorKeys) gpu.declare({k.key});
  }
  const bool architecture_known = vendor_known && read_architecture(gpu, spec);
  read_peaks(gpu, spec, architecture_known);
  spec.memory_bytes =
      gpu.quantity("memory", Dimension::kBytes, Range::kPositive, Requirement::kRequired).value_or(0.0);
  spec.memory_bytes_per_s = gpu.quantity("memory_bandwidth", Dimension::kBytesPerSecond,
                                         Range::kPositive, Requirement::kRequired)
                                .value_or(0.0);
  if (auto type = gpu.choice("memory_type", {"hbm2", "hbm2e", "hbm3", "hbm3e", "gddr5x", "gddr6", "gddr6x", "gddr7"},
                             Requirement::kRequired)) {
    static const std::map<std::string, models::MemoryType> kTypes = {
        {"hbm2", models::MemoryType::kHbm2},     {"hbm2e", models::MemoryType::kHbm2e},
        {"hbm3", models::MemoryType::kHbm3},     {"hbm3e", models::MemoryType::kHbm3e},
        {"gddr5x", models::MemoryType::kGddr5x}, {"gddr6", models::MemoryType::kGddr6},
        {"gddr6x", models::MemoryType::kGddr6x}, {"gddr7", models::MemoryType::kGddr7}};
    spec.memory_type = kTypes.at(*type);
  }
  spec.marketed_memory_bytes = spec.memory_bytes;
  if (gpu.boolean("inline_ecc").value_or(false)) {
    if (!models::is_gddr(spec.memory_type)) {
      gpu.error("inline_ecc", "inline ECC is a GDDR part's: HBM keeps its check bits beside the data",
                "; remove inline_ecc (the capacity stays as written)");
    } else {
      spec.memory_bytes *= models::kInlineEccUsableShare;
    }
  }
  spec.l2_cache_bytes =
      gpu.quantity("l2_cache", Dimension::kBytes, Range::kPositive, Requirement::kRequired).value_or(0.0);
  if (auto pcie = gpu.map("pcie", Requirement::kRequired)) {
    spec.pcie_generation =
        static_cast<int>(pcie->integer("generation", 1, 6, Requirement::kRequired).value_or(0));
    if (auto lanes = pcie->integer("lanes", 1, 16, Requirement::kRequired)) {
      if (*lanes != 1 && *lanes != 2 && *lanes != 4 && *lanes != 8 && *lanes != 16) {
        pcie->error("lanes", "unsupported lane count " + std::to_string(*lanes),
                    "; expected 1, 2, 4, 8 or 16");
      } else {
        spec.pcie_lanes = static_cast<int>(*lanes);
      }
    }
    pcie->finish();
  }
  if (vendor_known) {
    read_gpu_links(gpu, spec);
  }
  spec.tdp_w = gpu.quantity("tdp", Dimension::kWatts, Range::kPositive, Requirement::kRequired)
                   .value_or(0.0);
  spec.idle_w = gpu.quantity("idle_power", Dimension::kWatts, Range::kPositive, Requirement::kRequired)
                    .value_or(0.0);
  if (spec.tdp_w > 0.0 && spec.idle_w >= spec.tdp_w) {
    gpu.error("idle_power", "idle power is not below the TDP",
              "; idle_power is the draw with no kernel running, a fraction of tdp");
  }
  spec.boost_clock_hz =
      gpu.quantity("boost_clock", Dimension::kHertz, Range::kPositive, Requirement::kRequired).value_or(0.0);
  spec.observed_load_clock_hz =
      gpu.quantity("observed_load_clock", Dimension::kHertz, Range::kPositive).value_or(0.0);
  spec.prediction_only =
      gpu.choice("accuracy", {"measured", "prediction-only"}, Requirement::kRequired).value_or("") == "prediction-only";
  spec.source = gpu.string("source", Requirement::kRequired).value_or("");
  if (gpu.has("source") && spec.source.empty()) {
    gpu.error("source", "empty source", "; name the datasheet URL the figures come from");
  }
  spec.retrieved = gpu.string("retrieved", Requirement::kRequired).value_or("");
  if (!spec.retrieved.empty() && !is_iso_date(spec.retrieved)) {
    gpu.error("retrieved", "expected a date such as 2026-11-29, found '" + spec.retrieved + "'");
  }
  gpu.finish();
  if (sink.messages().size() != errors_before) {
    return std::nullopt;
  }
  return spec;
}

/// Records an error for every name or alias that two GPUs share (case-insensitive), and for
/// an alias repeated within one GPU (STYLE.md C3: nothing may resolve ambiguously).
void check_alias_collisions(const std::vector<std::pair<std::string, YAML::Mark>>& names,
                            const std::vector<std::vector<AliasSite>>& alias_sites, ErrorSink& sink) {
  std::map<std::string, std::string> owner;  // folded name or alias -> GPU name
  for (const auto& [name, mark] : names) {
    owner.emplace(fold(name), name);
  }
  for (std::size_t g = 0; g < names.size(); ++g) {
    const std::string& gpu = names[g].first;
    for (const AliasSite& site : alias_sites[g]) {
      const auto [it, inserted] = owner.emplace(fold(site.alias), gpu);
      if (inserted) {
        continue;
      }
      if (it->second == gpu) {
        // An alias spelling the name in capitals documents the SkyPilot name ("A100-80GB" of
        // a100-80gb) and is harmless; the same alias twice is a slip.
        if (fold(site.alias) != fold(gpu)) {
          sink.add("duplicate alias '" + site.alias + "'", site.mark, site.key_path,
                   "; aliases are matched case-insensitively: keep one spelling");
        }
      } else {
        sink.add("alias '" + site.alias + "' is already a name or alias of " + it->second, site.mark,
                 site.key_path,
                 "; a name or alias must identify one GPU (case-insensitive): remove it here or there");
      }
    }
  }
}

}  // namespace

GpuCatalog GpuCatalog::load(const std::string& path) { return parse(read_text_file(path), path); }

GpuCatalog GpuCatalog::parse(const std::string& yaml_text, const std::string& file_name) {
  const YAML::Node root = parse_yaml(yaml_text, file_name);
  ErrorSink sink(file_name);
  GpuCatalog catalog;
  std::vector<std::pair<std::string, YAML::Mark>> names;
  std::vector<std::vector<AliasSite>> alias_sites;
  read_catalog_entries(root, sink, {"gpus", "GPU", "GPU name"},
                       [&](const std::string& name, const YAML::Node& value, const YAML::Mark& key_mark) {
                         std::vector<AliasSite> sites;
                         auto spec = read_gpu(name, value, key_mark, sink, sites);
                         names.emplace_back(name, key_mark);
                         alias_sites.push_back(std::move(sites));
                         if (spec) {
                           catalog.specs_.push_back(std::move(*spec));
                         }
                       });
  check_alias_collisions(names, alias_sites, sink);
  sink.throw_if_any();
  catalog.build_index();
  return catalog;
}

GpuCatalog GpuCatalog::from_specs(std::vector<models::GpuSpec> specs) {
  std::vector<NamedEntry> names;
  for (const auto& spec : specs) names.push_back({spec.name, spec.aliases});
  const std::vector<std::string> errors = ambiguous_names(names, "GPU", true);
  if (!errors.empty()) {
    throw ConfigError(errors);
  }
  GpuCatalog catalog;
  catalog.specs_ = std::move(specs);
  catalog.build_index();
  return catalog;
}

void GpuCatalog::build_index() {
  index_.clear();
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    index_.add_name(specs_[i].name, i);
    for (const auto& alias : specs_[i].aliases) {
      index_.add_alias(alias, i);
    }
  }
}

const models::GpuSpec* GpuCatalog::find(std::string_view name_or_alias) const {
  const auto i = index_.find(name_or_alias);
  return i ? &specs_[*i] : nullptr;
}

std::vector<std::string> GpuCatalog::also_covered(std::string_view written, const models::GpuSpec& chosen) const {
  const std::string prefix = fold(written);
  std::vector<std::string> out;
  if (prefix == fold(chosen.name)) {
    return out;
  }
  for (const models::GpuSpec& spec : specs_) {
    const std::string name = fold(spec.name);
    if (spec.name != chosen.name && name.size() > prefix.size() && name.starts_with(prefix) &&
        name[prefix.size()] == '-') {
      out.push_back(spec.name);
    }
  }
  return out;
}

namespace {
/// A GPU name as tools print it, folded for comparison: lower case, without spaces, '-', '_'
/// and the vendor and brand words nvidia-smi and rocm-smi put before it ("NVIDIA", "Tesla",
/// "GeForce", "AMD", "Instinct"): "H100 80GB HBM3" and "NVIDIA H100 80GB HBM3" both fold to
/// "h10080gbhbm3".
std::string spelling_folded(std::string_view name) {
  std::string s = fold(name);
  for (const std::string_view word : {"nvidia", "tesla", "geforce", "amd", "instinct"}) {
    for (std::size_t at = s.find(word); at != std::string::npos; at = s.find(word)) s.erase(at, word.size());
  }
  std::erase_if(s, [](char c) { return c == ' ' || c == '-' || c == '_'; });
  return s;
}
}  // namespace

std::optional<std::string> GpuCatalog::spelled_alike(std::string_view unknown_name) const {
  const std::string folded = spelling_folded(unknown_name);
  if (folded.empty()) return std::nullopt;
  for (const models::GpuSpec& spec : specs_) {
    bool same = spelling_folded(spec.name) == folded;
    for (const std::string& alias : spec.aliases) same = same || spelling_folded(alias) == folded;
    if (same) return spec.name;
  }
  return std::nullopt;
}

namespace {
/// `name` without a memory size at its end ("RTX 4090 24GB" -> "RTX 4090", "H100-94GB" ->
/// "H100"): digits followed by GB or GiB (any case), and the spaces, '-' and '_' before them.
/// nullopt when `name` does not end so or nothing is left.
std::optional<std::string_view> without_memory_size(std::string_view name) {
  const std::string folded = fold(name);
  std::size_t end = folded.find_last_not_of(' ');
  if (end == std::string::npos) return std::nullopt;
  std::string_view s = std::string_view(folded).substr(0, end + 1);
  if (s.ends_with("gib")) {
    s.remove_suffix(3);
  } else if (s.ends_with("gb")) {
    s.remove_suffix(2);
  } else {
    return std::nullopt;
  }
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);  // "24 GiB"
  const std::size_t digits_end = s.size();
  while (!s.empty() && s.back() >= '0' && s.back() <= '9') s.remove_suffix(1);
  if (s.size() == digits_end) return std::nullopt;
  while (!s.empty() && (s.back() == ' ' || s.back() == '-' || s.back() == '_')) s.remove_suffix(1);
  if (s.empty()) return std::nullopt;
  return name.substr(0, s.size());
}
}  // namespace

std::vector<std::string> GpuCatalog::meant(std::string_view unknown_name) const {
  if (const auto alike = spelled_alike(unknown_name)) return {*alike};
  // A name with a memory size the catalog name lacks ("RTX 4090 24GB", "H100 94GB"): the entry
  // the name without it means, and the others that covers (h100-sxm, h100-pcie, h100-nvl).
  if (const auto bare = without_memory_size(unknown_name)) {
    if (const auto alike = spelled_alike(*bare)) {
      std::vector<std::string> out = {*alike};
      const std::vector<std::string> covered = also_covered(*bare, *find(*alike));
      out.insert(out.end(), covered.begin(), covered.end());
      return out;
    }
  }
  // A plural ("h100s", "A100s"): the entry the singular names, and the others it covers.
  if (unknown_name.size() > 1 && (unknown_name.back() == 's' || unknown_name.back() == 'S')) {
    const std::string_view singular = unknown_name.substr(0, unknown_name.size() - 1);
    if (const models::GpuSpec* chosen = find(singular)) {
      std::vector<std::string> out = {chosen->name};
      const std::vector<std::string> covered = also_covered(singular, *chosen);
      out.insert(out.end(), covered.begin(), covered.end());
      // And a name one edit away, which the plural may misspell ("l4s": l4, or l40s).
      for (const std::string& near : core::closest(unknown_name, names(), 1)) {
        if (std::find(out.begin(), out.end(), near) == out.end()) out.push_back(near);
      }
      return out;
    }
  }
  return {};
}

std::vector<std::string> GpuCatalog::suggestions(std::string_view unknown_name) const {
  if (std::vector<std::string> out = meant(unknown_name); !out.empty()) return out;
  return core::closest(unknown_name, names());
}

std::vector<std::string> GpuCatalog::names() const { return index_.sorted_names(); }

}  // namespace gpuplan::config
