#pragma once
/// \file log_text.h
/// What every monitoring-log reader shares (config/*_log.cpp): the lines of a log with their
/// numbers, cells with their columns, "not available" cells, numbers with an optional unit,
/// clock and calendar times, and the error layout `<problem> at <file>:<line>:<column>
/// (<column name>)[; <fix>]` (STYLE.md C2).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::config {

/// One line of a log, without its line ending (LF, CRLF or CR), numbered from 1.
struct LogLine {
  int number = 0;
  std::string text;
};

/// A whole log in memory.
struct LogText {
  std::string path;
  std::vector<LogLine> lines;
};

/// One cell of a line: its text (trimmed) and its 1-based column in the line.
struct LogCell {
  std::string text;
  int column = 1;
};

/// Reads `path` whole. Throws ConfigError "cannot read log <path>: <reason>" when it cannot.
LogText read_log_text(const std::string& path);
/// A LogText from in-memory `content` (tests), named `path` in messages.
LogText log_text_of(const std::string& content, const std::string& path);

/// The position in `log.lines` of its last line that is not blank (0 for an empty log): the
/// one line a reader may find cut short (the logger was stopped mid-write).
std::size_t last_nonblank_line(const LogText& log);
/// Records in `notes` that `line` of `log`, its last, was cut short and skipped.
void note_cut_short(const LogText& log, const LogLine& line, std::vector<std::string>& notes);

/// The ConfigError for `problem` at `line`:`column` of `log`, `what` naming the column or
/// field, `fix` starting with "; " (or empty).
[[noreturn]] void throw_log_error(const LogText& log, int line, int column, const std::string& what,
                                  const std::string& problem, const std::string& fix = "");

std::string_view trim_view(std::string_view s);
/// Cells separated by runs of blanks (spaces, tabs).
std::vector<LogCell> split_blanks(const std::string& line);
/// Cells separated by `separator` (CSV), each trimmed.
std::vector<LogCell> split_on(const std::string& line, char separator);

/// True for the cells monitoring tools print for a value they do not have: "[N/A]", "N/A",
/// "[Not Supported]", "[Unknown Error]", "[Insufficient Permissions]", "-", "".
bool not_available(std::string_view cell);

/// The number at the start of `cell` and the unit text after it (trimmed); nullopt when the
/// cell does not start with a finite number.
struct NumberWithUnit {
  double value = 0.0;
  std::string unit;
};
std::optional<NumberWithUnit> split_number(std::string_view cell);

/// `cell` as a number whose unit, when the cell carries one, must be `unit` ("%", "MiB",
/// "W", "MHz"; "" for none). NaN for a not_available cell. Throws the log error otherwise.
double cell_number(const LogText& log, int line, const LogCell& cell, const std::string& what,
                   const std::string& unit);

/// "HH:MM:SS" or "HH:MM:SS.fff" as seconds since midnight; nullopt when it is not one.
std::optional<double> clock_seconds(std::string_view text);
/// Days from 1970-01-01 to the civil date (proleptic Gregorian); nullopt when the date is not
/// valid. (H. Hinnant's days_from_civil, via std::chrono::year_month_day.)
std::optional<double> days_since_epoch(int year, unsigned month, unsigned day);
/// "YYYY/MM/DD HH:MM:SS[.fff]" (nvidia-smi --query-gpu timestamp) or "YYYYMMDD HH:MM:SS"
/// (nvidia-smi dmon -o DT) as seconds since 1970-01-01; nullopt when it is neither.
std::optional<double> timestamp_seconds(std::string_view text);
/// The median of the positive steps between successive `times_s` (NaN entries skipped);
/// NaN when there are fewer than two times.
double median_interval_s(const std::vector<double>& times_s);

}  // namespace gpuplan::config
