#pragma once
/// \file input_text.h
/// Checks that every input text (YAML, JSON, CSV) is plain UTF-8 before a parser sees it,
/// so that a binary file, a UTF-16/32 file, an old-Mac file or a name with bytes that are
/// not UTF-8 is an input error at its position, not a misleading syntax error later or an
/// invalid string in a writer (issue 15). Internal to config/.

#include <cstddef>
#include <string>
#include <string_view>

#include "config/config_error.h"

namespace gpuplan::config {

/// Largest input file gpuplan reads, in bytes (64 MiB). The biggest shipped file is a
/// 64 kB instance CSV; SkyPilot's own vms.csv files are a few MB.
inline constexpr std::size_t kMaxInputBytes = std::size_t{64} << 20;

/// Throws ConfigError at the first offending byte of `text`:
/// - a UTF-16 or UTF-32 byte-order mark ("the file is UTF-16 (it starts with a byte-order
///   mark) at f:1:1; save it as UTF-8");
/// - a NUL byte ("NUL byte at f:l:c; the file is binary, or UTF-16/32 without a byte-order
///   mark: save it as UTF-8 text");
/// - a carriage return not followed by a line feed (CR-only line endings);
/// - a byte sequence that is not UTF-8 (RFC 3629: no overlong forms, no surrogates, at most
///   U+10FFFF).
/// A UTF-8 byte-order mark at the start is accepted. Columns count bytes, 1-based.
void check_input_text(std::string_view text, const std::string& file);

/// Reads a whole text file of at most kMaxInputBytes (config/input_text.h). Throws
/// ConfigError naming the file and the reason when it cannot be opened, is not a regular
/// file (a directory, a FIFO, a device such as /dev/zero: reading one could block or never
/// end), or is larger than the bound: "cannot read <what> '<path>': <reason>".
std::string read_text_file(const std::string& path, const std::string& what = "file");

/// Whether `text` is well-formed UTF-8 (RFC 3629).
bool is_utf8(std::string_view text);

/// 1-based line:column of byte `offset` of `text`.
SourceMark position_of(std::string_view text, std::size_t offset, const std::string& file);

}  // namespace gpuplan::config
