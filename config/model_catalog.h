#pragma once
/// \file model_catalog.h
/// The model catalog: catalogs/models.yaml, the named architectures a scenario's
/// `workload.model` may refer to (resnet50, bert-large, llama2-7b, ...; scenario-format.md
/// "Names").
///
/// File layout (`format: gpuplan/v1`, then `models:` name -> entry). Entry keys:
///   family (required; a workload family name such as resnet or transformer_decoder),
///   sequence_length (optional; the model's default tokens per sample), summary, source,
///   retrieved (YYYY-MM-DD), and the family's architecture parameters (layers, hidden, ...).
/// Architecture keys are not checked here: the family checks names, ranges and consistency
/// when it builds the workload (models::IWorkloadFamily::build). Numbers go to `values`;
/// names and booleans of enumerated parameters ("swiglu", true) go to `choices` and are
/// encoded with architecture_values(). A key within two edits of an entry key
/// ("summry", "sequence_lenght") is reported as unknown with a did-you-mean.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/config_error.h"
#include "config/name_index.h"
#include "models/workload/workload_family.h"

namespace gpuplan::config {

/// One named model of the catalog.
struct ModelEntry {
  std::string name;                               ///< catalog name, e.g. "llama2-7b"
  std::string family;                             ///< workload family, e.g. "transformer_decoder"
  models::ArchitectureValues values;              ///< numeric architecture parameters as written
  std::map<std::string, std::string> choices;     ///< enumerated/boolean parameters, as written
  std::optional<double> default_sequence_length;  ///< tokens per sample; nullopt = not a sequence model
  std::string summary;                            ///< one line for `gpuplan list model`
  std::string source;                             ///< paper or model card the numbers come from
  std::string retrieved;                          ///< ISO date the source was read
  SourceMark mark;                                ///< position of the entry's name
  std::map<std::string, SourceMark> value_marks;  ///< position of each architecture value
};

/// Named model architectures; immutable after load.
class ModelCatalog {
 public:
  /// Reads and validates a catalog file. Throws ConfigError with every problem of the file
  /// ("<problem> at <file>:<line>:<column> (<key.path>)[; <fix>]"): unreadable file, YAML
  /// syntax, duplicate keys, missing family/summary/source/retrieved, a sequence_length that
  /// is not a positive whole number, an architecture value that is neither a number nor a
  /// name, a key close to an entry key (did-you-mean), invalid names.
  static ModelCatalog load(const std::string& path);
  /// As load(), from YAML text; `file_name` is used in messages.
  static ModelCatalog parse(const std::string& yaml_text, const std::string& file_name);

  /// The model named `name`: exact first, then case-insensitive. nullptr when none.
  const ModelEntry* find(std::string_view name) const;
  /// Up to three model names closest to an unknown one, for "did you mean".
  std::vector<std::string> suggestions(std::string_view unknown_name) const;
  /// Model names, sorted.
  std::vector<std::string> names() const;
  /// Every entry, in file order.
  const std::vector<ModelEntry>& all() const { return entries_; }

 private:
  std::vector<ModelEntry> entries_;
  NameIndex index_;  // names to positions in file order
};

/// The entry's architecture values ready for family.build(): `values` plus every choice
/// encoded as its index with models::encode_choice(). Throws ConfigError at the value's
/// position when a choice names no parameter of the family or is not one of its choices.
models::ArchitectureValues architecture_values(const ModelEntry& entry,
                                               const models::IWorkloadFamily& family);

}  // namespace gpuplan::config
