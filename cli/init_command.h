#pragma once
/// \file init_command.h
/// `gpuplan init [FILE]`: writes a commented starter scenario (every key explained, with its
/// unit and the choices it accepts) that runs as it is; it never replaces an existing file.

#include <string>
#include <vector>

namespace gpuplan::cli {

/// The starter scenario's text: a valid `format: gpuplan/v1` file (a test loads and runs it).
std::string starter_scenario();

/// Runs `gpuplan init ARGS...`: writes FILE (default my-job.yaml) and says how to run it.
/// Throws std::invalid_argument for a bad command line or an existing FILE.
int init_main(const std::vector<std::string>& args);

}  // namespace gpuplan::cli
