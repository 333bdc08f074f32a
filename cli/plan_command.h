#pragma once
/// \file plan_command.h
/// The `gpuplan plan` command: argument parsing, the thread pool's progress bar (standard
/// error, only on a terminal) and, in an MPI build under mpirun, the split of the points
/// across ranks with a gather on rank 0 (the output is byte-identical to one process).

#include <string>
#include <vector>

namespace gpuplan::cli {

/// Usage text of `gpuplan plan`.
extern const char* const kPlanUsage;

/// Runs `gpuplan plan ARGS...` (ARGS without "plan"); writes the result to standard output
/// or -o FILE. Returns the exit code. Throws std::invalid_argument for a bad command line
/// (the caller reports it as a usage error) and config::ConfigError for invalid input.
int plan_main(const std::vector<std::string>& args);

}  // namespace gpuplan::cli
