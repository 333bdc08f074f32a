#pragma once
/// \file scenario_diagnostics.h
/// The messages of one scenario as structured records, so that the loader can relocate the
/// errors of a strategy or sweep variant (key path `strategies.<name>.<path>`), drop the
/// copies of base errors that every variant repeats, say which variant an error belongs to,
/// and sort them by position (STYLE.md C2, C4). Internal to config/.

#include <string>
#include <vector>

#include "config/config_error.h"

namespace gpuplan::config {

/// One message split into the parts of `<problem> at <file>:<line>:<column> (<key.path>)<fix>`.
struct ScenarioDiagnostic {
  std::string problem;
  SourceMark mark;       ///< line 0: no position (a mapping that an override created)
  std::string key_path;  ///< empty when the message has none
  std::string fix;       ///< "" or "; ..."
  /// The message as format_diagnostic() writes it.
  std::string text() const;
};

/// Splits messages that format_diagnostic() wrote for `file`. A message it cannot split
/// (one without " at <file>") keeps its whole text as the problem and an empty file.
std::vector<ScenarioDiagnostic> split_diagnostics(const std::vector<std::string>& messages,
                                                  const std::string& file);

/// Messages in file order (line, then column; messages without a position first), each once.
std::vector<std::string> sorted_unique_messages(const std::vector<ScenarioDiagnostic>& diagnostics);

}  // namespace gpuplan::config
