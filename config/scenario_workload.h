#pragma once
/// \file scenario_workload.h
/// Reads the `workload:` section of one scenario variant: the model (a catalog name or an
/// inline architecture built by its registered family), sequence length, dataset and the
/// length of the run (epochs or tokens). Internal to config/; errors go to the sink.

#include <memory>
#include <optional>

#include "config/catalogs.h"
#include "config/workload_memo.h"
#include "config/yaml_reader.h"
#include "core/registry.h"
#include "models/job_spec.h"
#include "models/workload/workload_family.h"

namespace gpuplan::config {

/// What `workload:` resolved to. Members are nullopt where the input had errors.
struct WorkloadSection {
  std::optional<MapReader> reader;          ///< the `workload:` mapping, for cross-field errors
  std::optional<MapReader> dataset_reader;  ///< the `workload.dataset:` mapping
  /// The model's op table as its family built it (shared with a WorkloadMemo's when one is given).
  std::shared_ptr<const models::Workload> workload;
  std::optional<models::DatasetSpec> dataset;
  std::optional<models::DurationSpec> duration;
  /// dataset.synthetic as written, also when the dataset block has errors (and `dataset` is
  /// nullopt), so that the hardware keys synthetic data makes optional give no follow-on errors.
  bool synthetic_data = false;
  /// The catalog model's own sequence_length (its trained context, catalogs/models.yaml), for
  /// a catalog model of a sequence family; nullopt for an inline model or an image model.
  std::optional<double> catalog_sequence_length;
  /// Structural choices an inline model without `base:` left to its family's defaults
  /// ("workload.model: mlp swiglu, tied_embeddings false (the transformer_decoder defaults) ...").
  std::vector<std::string> notes;
};

/// Reads `root.workload`. Defaults (scenario-format.md, config/README.md): dataset.layout
/// files, dataset.eval_samples 0, dataset.synthetic false; sequence_length from the model
/// catalog when the model is a language model and the scenario gives none. The model is
/// built by `memo` where it is not null (once for equal architecture values).
WorkloadSection read_workload_section(MapReader& root, const Catalogs& catalogs,
                                      const core::Registry<models::IWorkloadFamily>& families,
                                      WorkloadMemo* memo = nullptr);

/// An architecture key of `model`'s family written in `section` (`workload.loss: ...` beside
/// the model, `training.loss: ...`) rather than inside workload.model: an error at the key that
/// says where it goes, written out, in place of finish()'s plain "unknown key"; the key is then
/// declared. Keys `section` reads itself are left alone, so call it after reading them and
/// before finish(). Likewise another program's name for such a key (`training.num_layers`,
/// Megatron's name for layers: config/architecture_aliases.h), answered with gpuplan's key and
/// the value written. Nothing for a null model or an unknown family.
void report_architecture_keys(MapReader& section, const models::Workload* model,
                              const core::Registry<models::IWorkloadFamily>& families);

}  // namespace gpuplan::config
