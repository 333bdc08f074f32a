#pragma once
/// \file display_width.h
/// How many terminal columns text takes, and table cells made safe to print in one line.

#include <cstddef>
#include <string>
#include <string_view>

namespace gpuplan::report {

/// Terminal columns of UTF-8 `text`: 2 for East Asian Wide and Fullwidth characters (CJK
/// ideographs, Hangul, kana, fullwidth forms, emoji), 0 for combining marks and zero-width
/// characters, 1 for the rest; a byte that is not valid UTF-8 counts 1. The ranges are those
/// of Markus Kuhn's mk_wcwidth (https://www.cl.cam.ac.uk/~mgk25/ucs/wcwidth.c), widened to
/// the emoji blocks that Unicode's EastAsianWidth.txt marks W.
std::size_t display_width(std::string_view text);

/// `text` as one line of a table: a newline, carriage return or tab becomes the two
/// characters `\n`, `\r`, `\t`, any other control character (U+0000-U+001F, U+007F) `\xNN`,
/// so that a cell never breaks the table's rows or moves the cursor.
std::string one_line(std::string_view text);

}  // namespace gpuplan::report
