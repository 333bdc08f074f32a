#pragma once
/// \file gpu_catalog.h
/// The GPU catalog: catalogs/gpus.yaml read strictly into models::GpuSpec entries, found by
/// catalog name or alias (scenario-format.md "Names"; STYLE.md C3, U5, U8).
///
/// File layout (`format: gpuplan/v1`, then `gpus:` name -> entry). Entry keys, all required
/// unless marked optional:
///   aliases (optional list), form_factor (sxm | pcie | oam), vendor (optional: nvidia |
///   amd; nvidia when absent, and every shipped entry writes it),
///   NVIDIA: compute_capability ("8.0"), sms; AMD: gfx_target (gfx90a | gfx942), compute_units
///   (a key of the other vendor is refused with the one to write instead),
///   peak_dense {fp32, fp16, tf32, bf16, fp8} as FLOP/s strings (dense rates; on NVIDIA tf32
///   and bf16 required from compute capability 8.0 and refused below it, fp8 likewise from
///   8.9; on AMD bf16 required, fp8 required from CDNA 3 (gfx942) and refused below, tf32
///   refused: no TF32 path is modelled there),
///   memory, memory_bandwidth, memory_type (hbm2 | hbm2e | hbm3 | hbm3e | gddr5x | gddr6 |
///   gddr6x | gddr7), l2_cache, pcie {generation, lanes}, NVIDIA: nvlink_per_direction
///   (optional; total over all links, one direction); AMD: infinity_fabric (optional; {links,
///   per_link_per_direction}: the GPU's links of a full mesh, one per peer), tdp, idle_power
///   (below tdp), boost_clock, observed_load_clock (optional), accuracy (measured |
///   prediction-only), source, retrieved (YYYY-MM-DD).
/// Every dimensional value goes through core::parse_quantity, so a bare number is an error
/// with a fix hint. Names are lower-case letters, digits and hyphens. Names and aliases are
/// matched case-insensitively and each may belong to one GPU only.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/name_index.h"
#include "models/gpu/gpu_spec.h"

namespace gpuplan::config {

/// GPU specs by catalog name and alias; immutable after load.
class GpuCatalog {
 public:
  /// Reads and validates a catalog file. Throws ConfigError with every problem of the file,
  /// each as "<problem> at <file>:<line>:<column> (<key.path>)[; <fix>]" (STYLE.md C2, C4):
  /// unreadable file, YAML syntax, duplicate or unknown keys (with did-you-mean), missing
  /// keys, values without units, out-of-range values, peaks the compute capability (or gfx
  /// target) cannot have or must have, keys of the other vendor, idle power not below TDP,
  /// invalid names, alias collisions.
  static GpuCatalog load(const std::string& path);
  /// As load(), from YAML text; `file_name` is used in messages (inline YAML in tests).
  static GpuCatalog parse(const std::string& yaml_text, const std::string& file_name);
  /// A catalog of already-built specs (calibration profiles, tests). Throws ConfigError when
  /// two specs share a name or alias (case-insensitive) or a name is empty.
  static GpuCatalog from_specs(std::vector<models::GpuSpec> specs);

  /// The GPU named `name_or_alias`: an exact catalog name first, then names and aliases
  /// compared case-insensitively ("A100-SXM4-80GB" -> a100-80gb). nullptr when none.
  const models::GpuSpec* find(std::string_view name_or_alias) const;
  /// The other entries `written` (a name or alias that find() resolved to `chosen`) could
  /// mean: those whose catalog name starts with it and a '-' (case-insensitive), so "H100"
  /// (h100-sxm) also covers h100-pcie and h100-nvl, "A100" (a100-40gb) a100-80gb and the
  /// PCIe ones. Empty when `written` is `chosen`'s own name or covers nothing else.
  std::vector<std::string> also_covered(std::string_view written, const models::GpuSpec& chosen) const;
  /// The catalog name of the first entry (file order) whose name or alias equals
  /// `unknown_name` up to case, spaces, '-', '_' and the vendor and brand words tools print
  /// ("NVIDIA", "Tesla", "GeForce", "AMD", "Instinct"): "H100 80GB HBM3" -> h100-sxm, whose
  /// alias is nvidia-smi's "NVIDIA H100 80GB HBM3". nullopt when none.
  std::optional<std::string> spelled_alike(std::string_view unknown_name) const;
  /// The catalog names an unknown name plainly means, for "did you mean": spelled_alike's name
  /// where there is one; for a name with a memory size the catalog name lacks ("RTX 4090
  /// 24GB", "H100 96GB"), spelled_alike's name of the rest and the others that covers
  /// (rtx4090; h100-sxm, h100-pcie and h100-nvl); for a plural ("h100s"), the entry its
  /// singular names and the others that covers (also_covered: h100-sxm, h100-pcie and
  /// h100-nvl), which are more edits away than unrelated names (h200, p100), then any name one
  /// edit away ("l4s": l4, then l40 and l40s); else none.
  std::vector<std::string> meant(std::string_view unknown_name) const;
  /// Catalog names close to an unknown name, for "did you mean" (STYLE.md C3): meant()'s
  /// where there are some, else up to three of core::closest over the names.
  std::vector<std::string> suggestions(std::string_view unknown_name) const;
  /// Catalog names, sorted.
  std::vector<std::string> names() const;
  /// Every entry, in file order.
  const std::vector<models::GpuSpec>& all() const { return specs_; }

 private:
  void build_index();

  std::vector<models::GpuSpec> specs_;
  NameIndex index_;  // names (and aliases) to positions in file order
};

}  // namespace gpuplan::config
