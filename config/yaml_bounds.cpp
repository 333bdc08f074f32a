#include "config/yaml_bounds.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <sstream>
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
  void OnScalar(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                const std::string& /*value*/) override {
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
    }
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor);
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
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    add(1, mark, "");
    record(anchor, Shape{1, 0});
    if (!open_.empty()) {
      open_.back().height = std::max(open_.back().height, 1);
    }
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    check_depth(static_cast<int>(open_.size()) + 1, mark, "");
    add(1, mark, "");
    open_.push_back(Frame{anchor, total_ - 1});
  }
  void close() {
    const Frame frame = open_.back();
    open_.pop_back();
    record(frame.anchor, Shape{total_ - frame.values_before, frame.height});
    if (!open_.empty()) {
      open_.back().height = std::max(open_.back().height, frame.height + 1);
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

}  // namespace

void check_yaml_bounds(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  BoundsHandler handler;
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(handler)) {
    }
  } catch (const BoundCrossed& crossed) {
    throw ConfigError(format_diagnostic(crossed.problem, source_mark(crossed.mark, file), "", crossed.fix));
  } catch (const YAML::Exception& e) {
    throw ConfigError(format_diagnostic("YAML syntax error: " + e.msg, source_mark(e.mark, file), "",
                                        "; check the indentation and quoting there"));
  }
}

}  // namespace gpuplan::config
