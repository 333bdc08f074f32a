#pragma once
/// \file text_wrap.h
/// Word wrap for prose in terminal output (summaries, evidence), so that it keeps to
/// kTerminalColumns as the tables do.

#include <cstddef>
#include <string>

namespace gpuplan::report {

/// `text` with each line longer than `width` broken at the last space that fits (a word
/// longer than the width stays whole); continuation lines start with `indent` spaces.
/// Newlines in `text` are kept; the result ends with a newline when `text` does.
std::string wrap_text(const std::string& text, std::size_t width, std::size_t indent = 2);

}  // namespace gpuplan::report
