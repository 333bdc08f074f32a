#include "config/yaml_bounds.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <cctype>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "config/config_error.h"

namespace gpuplan::config {
namespace {

/// Thrown by the handler to stop the parser at the first bound crossed.
struct BoundCrossed {
  std::string problem;
  YAML::Mark mark;
  std::string fix;
};

/// Counts values and depth with aliases expanded, without building a tree.
class BoundsHandler : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) {
      throw BoundCrossed{"a second YAML document", mark,
                         "; gpuplan reads one document per file: remove the '---' line and what follows, "
                         "or move it to a file of its own"};
    }
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    check_control_characters(value, mark);
    // yaml-cpp reads a merge key as a plain key named "<<" (tag "?"; a quoted "<<" has tag "!").
    if (value == "<<" && tag == "?" && in_mapping_key()) {
      throw BoundCrossed{"a YAML merge key '<<'", mark,
                         "; merge keys are not supported: write the keys of the anchored mapping out here"};
    }
    leaf(mark, anchor);
  }
  void OnAnchor(const YAML::Mark& /*mark*/, const std::string& name) override { names_.push_back(name); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const std::string alias = "alias '*" + name_of(anchor) + "'";
    for (const Frame& frame : open_) {
      if (frame.anchor == anchor) {
        throw BoundCrossed{alias + " refers to the anchor '&" + name_of(anchor) + "' that contains it", mark,
                           "; an anchor cannot contain itself: write the value out instead"};
      }
    }
    const Shape shape = anchor < shapes_.size() ? shapes_[anchor] : Shape{1, 0};
    check_depth(static_cast<int>(open_.size()) + shape.height, mark, " (" + alias + " expanded)");
    add(shape.values, mark, " (" + alias + " expanded)");
    if (!open_.empty()) {
      open_.back().height = std::max(open_.back().height, shape.height + 1);
      ++open_.back().items;
    }
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor, true);
  }
  void OnMapEnd() override { close(); }

 private:
  /// Expanded size of an anchored value: its values and its height (0 for a scalar).
  struct Shape {
    std::size_t values = 1;
    int height = 0;
  };
  struct Frame {
    YAML::anchor_t anchor;
    std::size_t values_before;  ///< total_ when the collection opened
    int height = 0;             ///< of the collection's contents, in levels
    bool mapping = false;       ///< a mapping (its items alternate key, value)
    std::size_t items = 0;      ///< values directly in it so far
  };

  std::string name_of(YAML::anchor_t anchor) const {
    return anchor >= 1 && anchor <= names_.size() ? names_[anchor - 1] : std::to_string(anchor);
  }
  void check_depth(int depth, const YAML::Mark& mark, const std::string& what) const {
    if (depth > kMaxYamlDepth) {
      throw BoundCrossed{"nesting deeper than " + std::to_string(kMaxYamlDepth) + " levels" + what, mark,
                         "; gpuplan's files nest a few levels: check for unclosed brackets or "
                         "aliases of aliases"};
    }
  }
  void add(std::size_t values, const YAML::Mark& mark, const std::string& what) {
    total_ += values;
    if (values > kMaxYamlValues || total_ > kMaxYamlValues) {
      throw BoundCrossed{"more than " + grouped_thousands(kMaxYamlValues) + " values in one file" + what, mark,
                         "; split the file, or write fewer strategies, sweep values or aliases"};
    }
  }
  void record(YAML::anchor_t anchor, Shape shape) {
    if (anchor == YAML::NullAnchor) {
      return;
    }
    if (shapes_.size() <= anchor) {
      shapes_.resize(anchor + 1);
    }
    shapes_[anchor] = shape;
  }
  /// A control character (C0 but tab, line feed and carriage return; DEL; C1) in a value,
  /// written as a YAML escape such as "\u0000": it would reach tables and CSV files raw.
  static void check_control_characters(const std::string& value, const YAML::Mark& mark) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      const auto c = static_cast<unsigned char>(value[i]);
      unsigned code = c;
      if (c == 0xC2 && i + 1 < value.size()) code = static_cast<unsigned char>(value[i + 1]);  // U+0080..U+00BF
      const bool c0 = c < 0x20 && c != '\t' && c != '\n' && c != '\r';
      const bool c1 = c == 0xC2 && code >= 0x80 && code <= 0x9F;
      if (c0 || c == 0x7F || c1) {
        throw BoundCrossed{fmt::format("a control character (U+{:04X}) in a value", code), mark,
                           "; names and values reach tables and CSV files: remove it (a YAML escape such as "
                           "\"\\u0000\" writes one)"};
      }
    }
  }
  /// Whether the next scalar is a key of the innermost open mapping.
  bool in_mapping_key() const { return !open_.empty() && open_.back().mapping && open_.back().items % 2 == 0; }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    add(1, mark, "");
    record(anchor, Shape{1, 0});
    if (!open_.empty()) {
      open_.back().height = std::max(open_.back().height, 1);
      ++open_.back().items;
    }
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool mapping) {
    check_depth(static_cast<int>(open_.size()) + 1, mark, "");
    add(1, mark, "");
    open_.push_back(Frame{anchor, total_ - 1, 0, mapping, 0});
  }
  void close() {
    const Frame frame = open_.back();
    open_.pop_back();
    record(frame.anchor, Shape{total_ - frame.values_before, frame.height});
    if (!open_.empty()) {
      open_.back().height = std::max(open_.back().height, frame.height + 1);
      ++open_.back().items;
    }
  }

  int documents_ = 0;
  std::size_t total_ = 0;
  std::vector<Frame> open_;
  std::vector<Shape> shapes_;  ///< by anchor id (yaml-cpp numbers anchors from 1)
  std::vector<std::string> names_;
};

SourceMark source_mark(const YAML::Mark& mark, const std::string& file) {
  return mark.line < 0 ? SourceMark{file, 0, 0} : SourceMark{file, mark.line + 1, mark.column + 1};
}

/// A character of the text: its bracket or quote and where it is (0-based).
struct TextMark {
  char c = 0;
  int line = 0;
  int column = 0;
};

/// What one pass over a YAML text up to a position finds, by the rules of flow scalars and
/// collections (YAML 1.2 sections 6.1, 7.3, 7.4): a quote or bracket opens a value only after
/// ':', ',', '-', '[', '{' or a line's start; a quoted value runs on across lines until its
/// closing quote ('' inside single quotes, an escaped \" inside double quotes); '#' after a
/// space or at a line's start begins a comment outside quotes.
struct TextScan {
  int tab_line = -1;                     ///< first line up to the position indented with a tab
  std::vector<TextMark> open_brackets;   ///< '{' and '[' open at the position, innermost last
  std::optional<TextMark> open_quote;    ///< the quote open at the position
  /// The first quote still open where a later line starts with a top-level key (`seed:` at
  /// column 0), that key and its line: the keys after such a quote are read as its text.
  std::optional<TextMark> runaway_quote;
  std::string swallowed_key;
  int swallowed_key_line = 0;
};

/// A top-level key at `text[i]`, a line's start: identifier characters, then ':' and a space
/// or the line's end; empty where there is none.
std::string top_level_key_at(const std::string& text, std::size_t i) {
  std::size_t j = i;
  while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) != 0 || text[j] == '_')) ++j;
  const bool key = j > i && j < text.size() && text[j] == ':' &&
                   (j + 1 == text.size() || text[j + 1] == ' ' || text[j + 1] == '\n' || text[j + 1] == '\r');
  return key ? text.substr(i, j - i) : std::string();
}

/// Scans `text` up to (not including) 0-based `stop_line`:`stop_column` (the whole text by
/// default).
TextScan scan_text(const std::string& text, int stop_line = std::numeric_limits<int>::max(),
                   int stop_column = std::numeric_limits<int>::max()) {
  TextScan scan;
  int line = 0;
  int column = 0;
  bool indentation = true;  // still in the line's leading whitespace
  char previous = '\n';     // the line's last character other than a space
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (line > stop_line || (line == stop_line && column >= stop_column)) break;
    if (c == '\n') {
      ++line;
      column = 0;
      indentation = true;
      previous = '\n';
      if (scan.open_quote && !scan.runaway_quote) {
        const std::string key = top_level_key_at(text, i + 1);
        if (!key.empty()) {
          scan.runaway_quote = scan.open_quote;
          scan.swallowed_key = key;
          scan.swallowed_key_line = line;
        }
      }
      continue;
    }
    if (indentation && c == '\t' && scan.tab_line < 0 && !scan.open_quote) scan.tab_line = line;
    if (c != ' ' && c != '\t') indentation = false;
    if (scan.open_quote) {
      const char quote = scan.open_quote->c;
      const bool escaped_pair = (quote == '"' && c == '\\') ||
                                (quote == '\'' && c == '\'' && i + 1 < text.size() && text[i + 1] == '\'');
      if (escaped_pair && i + 1 < text.size() && text[i + 1] != '\n') {
        ++i;  // the next character is part of the value, not its closing quote
        ++column;
      } else if (c == quote) {
        scan.open_quote.reset();
      }
    } else if (c == '#' && (previous == '\n' || (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')))) {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;  // a comment: skip to the line's end
    } else if ((c == '"' || c == '\'') && std::string_view(":,-[{\n").find(previous) != std::string_view::npos) {
      scan.open_quote = TextMark{c, line, column};
    } else if ((c == '{' || c == '[') && std::string_view(":,-[{\n").find(previous) != std::string_view::npos) {
      scan.open_brackets.push_back({c, line, column});
    } else if ((c == '}' || c == ']') && !scan.open_brackets.empty()) {
      scan.open_brackets.pop_back();
    }
    if (c != ' ' && c != '\t') previous = c;
    ++column;
  }
  return scan;
}

std::string_view quote_name(char quote) { return quote == '"' ? "double quote" : "single quote"; }

/// The fix of a YAML syntax error at `mark`: a tab in the indentation of a line up to the
/// error's (YAML indents with spaces only, YAML 1.2 section 6.1; yaml-cpp reports only what it
/// could not read after it), else a quote still open at the error (it swallowed what follows,
/// a closing bracket too), else a '{' or '[' still open there (yaml-cpp reports an unclosed
/// flow collection where it gives up, lines later), else the general advice.
std::string syntax_fix(const std::string& text, const YAML::Mark& mark, const std::string& file) {
  const TextScan scan = scan_text(text, mark.line, mark.column);
  if (scan.tab_line >= 0) {
    return fmt::format("; line {} is indented with a tab: YAML indents with spaces only, replace the tab with spaces",
                       scan.tab_line + 1);
  }
  if (scan.open_quote) {
    return fmt::format("; the {} at {}:{}:{} is not closed: close it on its line", quote_name(scan.open_quote->c), file,
                       scan.open_quote->line + 1, scan.open_quote->column + 1);
  }
  if (!scan.open_brackets.empty()) {
    const TextMark& unclosed = scan.open_brackets.back();
    return fmt::format("; the '{}' at {}:{}:{} is not closed: add its '{}'", unclosed.c, file, unclosed.line + 1,
                       unclosed.column + 1, unclosed.c == '{' ? '}' : ']');
  }
  return "; check the indentation and quoting there";
}

}  // namespace

void check_yaml_bounds(const std::string& text, const std::string& file) {
  // A quote that swallows the keys after it parses: named here, before the sections it
  // swallowed would be reported missing.
  if (const TextScan scan = scan_text(text); scan.runaway_quote) {
    const TextMark& q = *scan.runaway_quote;
    throw ConfigError(format_diagnostic(
        fmt::format("unclosed {} (YAML reads the value on across lines, taking in the '{}:' of line {})",
                    quote_name(q.c), scan.swallowed_key, scan.swallowed_key_line + 1),
        SourceMark{file, q.line + 1, q.column + 1}, "",
        fmt::format("; close it on line {} (a {} inside the value is written {})", q.line + 1, quote_name(q.c),
                    q.c == '"' ? "\\\"" : "''")));
  }
  std::istringstream in(text);
  BoundsHandler handler;
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(handler)) {
    }
  } catch (const BoundCrossed& crossed) {
    throw ConfigError(format_diagnostic(crossed.problem, source_mark(crossed.mark, file), "", crossed.fix));
  } catch (const YAML::Exception& e) {
    throw ConfigError(
        format_diagnostic("YAML syntax error: " + e.msg, source_mark(e.mark, file), "", syntax_fix(text, e.mark, file)));
  }
}

}  // namespace gpuplan::config
