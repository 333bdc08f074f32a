#include "report/text_wrap.h"

namespace gpuplan::report {

namespace {

std::string wrap_line(const std::string& line, std::size_t width, std::size_t indent) {
  std::string out;
  std::string rest = line;
  const std::string lead(indent, ' ');
  bool first = true;
  while (rest.size() + (first ? 0 : indent) > width) {
    const std::size_t room = width - (first ? 0 : indent);
    std::size_t cut = rest.rfind(' ', room);
    if (cut == std::string::npos || cut == 0) cut = rest.find(' ', room);
    if (cut == std::string::npos) break;
    out += (first ? "" : lead) + rest.substr(0, cut) + "\n";
    rest = rest.substr(cut + 1);
    first = false;
  }
  return out + (first ? "" : lead) + rest;
}

}  // namespace

std::string wrap_text(const std::string& text, std::size_t width, std::size_t indent) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    out += wrap_line(text.substr(start, end == std::string::npos ? std::string::npos : end - start), width, indent);
    if (end == std::string::npos) break;
    out += "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace gpuplan::report
