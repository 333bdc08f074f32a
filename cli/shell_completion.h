#pragma once
/// \file shell_completion.h
/// Shell completion (bash, zsh) and the man page, generated from the top-level help text
/// (main.cpp's usage): the commands are its "  gpuplan COMMAND ..." lines, each command's
/// options the -x/--xxx tokens of its line and continuation lines, `a|b|c` after an option its
/// values and a bare `a|b|c` the command's positional choices; the options of every command
/// come from the paragraph starting "Every command takes". So completion, man page and
/// `gpuplan --help` cannot disagree.

#include <string>
#include <vector>

namespace gpuplan::cli {

/// One command of the usage text.
struct UsageCommand {
  std::string name;                  ///< "run"
  std::vector<std::string> options;  ///< "--format", "-o", ...
  /// Values of an option written `--format table|csv`: {"--format", "table csv"}.
  std::vector<std::pair<std::string, std::string>> option_values;
  std::vector<std::string> positional;  ///< `list gpus|instances|...`: gpus, instances, ...
};

/// The commands of `usage`, in order, with the common options added to each.
std::vector<UsageCommand> usage_commands(const std::string& usage);

/// A bash completion script for `gpuplan` (source it, or install it in
/// /usr/share/bash-completion/completions/gpuplan).
std::string bash_completion(const std::string& usage);

/// A zsh completion script (#compdef gpuplan): the bash one through zsh's bashcompinit.
std::string zsh_completion(const std::string& usage);

/// A man page (roff, section 1) of `usage`: NAME from its first line, SYNOPSIS from the
/// command lines, the rest as DESCRIPTION. `man -l` renders it.
std::string man_page(const std::string& usage, const std::string& version);

}  // namespace gpuplan::cli
