#pragma once
/// \file init_command.h
/// `gpuplan init [--template NAME] [FILE]`: writes a commented starter scenario (every key
/// explained, with its unit and the choices it accepts) that runs as it is; it never replaces
/// an existing file. The templates are in cli/init_templates.h (resnet, the default; llm).

#include <string>
#include <vector>

namespace gpuplan::cli {

/// Runs `gpuplan init ARGS...`: writes template NAME (--template NAME or --template=NAME,
/// default resnet) to FILE (default my-job.yaml) and says how to run it. Throws
/// std::invalid_argument for a bad command line, an unknown template (naming the known ones)
/// or an existing FILE.
int init_main(const std::vector<std::string>& args);

}  // namespace gpuplan::cli
