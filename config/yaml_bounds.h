#pragma once
/// \file yaml_bounds.h
/// A pass over the YAML event stream before any tree is built, so that hostile YAML is an
/// input error in bounded time and memory instead of a crash or a hang (issue 15): yaml-cpp
/// shares an aliased node instead of copying it, so an alias inside its own anchor makes a
/// cyclic tree (every walk over it recurses until the stack overflows), and a "billion
/// laughs" chain of aliases makes every walk exponential. Internal to config/.

#include <cstddef>
#include <string>

namespace gpuplan::config {

/// Deepest nesting of mappings and sequences, aliases expanded. gpuplan's own files nest
/// at most five levels.
inline constexpr int kMaxYamlDepth = 64;

/// Most values (scalars, mappings, sequences; a mapping's keys count) in one document,
/// aliases expanded. 10,000 strategies of a few overrides each take about 60,000.
inline constexpr std::size_t kMaxYamlValues = 200'000;

/// Throws ConfigError (positions 1-based, STYLE.md C2) when `text`:
/// - has a quote that opens a value and is still open where a later line starts with a
///   top-level key ("unclosed double quote (YAML reads the value on across lines, taking in
///   the 'seed:' of line 3) at f:l:c", at the quote): valid YAML, but the keys it swallows
///   would be reported missing;
/// - has a YAML syntax error ("YAML syntax error: <reason> at f:l:c; <fix>": the fix names
///   a tab in the indentation of a line up to the error's, else a quote left open at its
///   error (it swallowed what follows, a closing bracket too), else a '{' or '['
///   still open there with its position, else "check the indentation and quoting there");
/// - has a control character in a value (C0 but tab, line feed and carriage return; DEL;
///   C1), which only a YAML escape such as "\u0000" writes: "a control character (U+0000)
///   in a value at f:l:c";
/// - has a merge key ("a YAML merge key '<<' at f:l:c"; yaml-cpp would read it as a key
///   named "<<");
/// - has an alias inside the anchor it names ("alias '*x' refers to the anchor '&x' that
///   contains it at f:l:c", at the alias);
/// - nests deeper than kMaxYamlDepth or holds more than kMaxYamlValues values, aliases
///   expanded (at the value or the alias that crosses the bound);
/// - holds a second document ("a second YAML document at f:l:c", at its start).
void check_yaml_bounds(const std::string& text, const std::string& file);

}  // namespace gpuplan::config
