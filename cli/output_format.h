#pragma once
/// \file output_format.h
/// Which format an output is written in and where: `-o -` is standard output, and `-o FILE`
/// takes the format from FILE's extension unless --format says otherwise (.csv, .json,
/// .md or .markdown, .html or .htm, .txt = table).

#include <optional>
#include <string>

namespace gpuplan::cli {

/// True when the -o argument names standard output ("-").
bool is_stdout(const std::string& output_path);

/// The format named by the extension of `output_path` ("csv", "json", "markdown", "html",
/// "table"); nullopt for standard output, no extension or another one.
std::optional<std::string> format_from_extension(const std::string& output_path);

/// `explicit_format` when --format was given; else format_from_extension(output_path); else
/// `fallback` when the path has no extension. Throws std::invalid_argument for another
/// extension (`-o run.yaml`: the table is not YAML, and that name is often the scenario's):
/// "-o run.yaml: the extension '.yaml' names no output format; name the file .txt (table),
/// .md (markdown), .csv, .json or .html, or pass --format".
std::string output_format(const std::optional<std::string>& explicit_format, const std::string& output_path,
                          const std::string& fallback);

}  // namespace gpuplan::cli
