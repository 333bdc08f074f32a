#include "report/trace_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace gpuplan::report {

int track_rank(const std::string& track) {
  if (track == "storage") return 0;
  if (track.rfind("worker ", 0) == 0 || track == "main process") return 1;
  if (track == "pin_memory") return 2;
  if (track == "h2d") return 3;
  if (track == "gpu") return 4;
  return 5;
}

namespace {

/// Worker tracks sort by number ("worker 10" after "worker 9").
bool track_less(const std::string& a, const std::string& b) {
  const int ra = track_rank(a);
  const int rb = track_rank(b);
  if (ra != rb) return ra < rb;
  const bool wa = a.rfind("worker ", 0) == 0;
  const bool wb = b.rfind("worker ", 0) == 0;
  if (wa && wb) return std::stoi(a.substr(7)) < std::stoi(b.substr(7));
  return a < b;
}

/// Microseconds rounded to 1 ns, so the JSON does not depend on floating-point noise.
double micros(double seconds) { return std::round(seconds * 1e9) / 1e3; }

}  // namespace

std::string render_chrome_trace(const std::vector<TraceProcess>& processes) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  int pid = 0;
  for (const TraceProcess& p : processes) {
    ++pid;
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", p.name}}}});
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", pid}}}});
    std::vector<std::string> tracks;
    for (const models::TraceSpan& s : p.spans) {
      if (std::find(tracks.begin(), tracks.end(), s.track) == tracks.end()) tracks.push_back(s.track);
    }
    std::sort(tracks.begin(), tracks.end(), track_less);
    std::map<std::string, int> tid_of;
    for (std::size_t i = 0; i < tracks.size(); ++i) {
      const int tid = static_cast<int>(i) + 1;
      tid_of[tracks[i]] = tid;
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", tracks[i]}}}});
      events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
    }
    std::vector<models::TraceSpan> spans = p.spans;
    std::stable_sort(spans.begin(), spans.end(), [](const models::TraceSpan& a, const models::TraceSpan& b) {
      return a.start_s < b.start_s;
    });
    for (const models::TraceSpan& s : spans) {
      events.push_back({{"name", s.label.empty() ? s.track : s.label},
                        {"cat", s.track},
                        {"ph", "X"},
                        {"ts", micros(s.start_s)},
                        {"dur", micros(std::max(0.0, s.end_s - s.start_s))},
                        {"pid", pid},
                        {"tid", tid_of[s.track]}});
    }
  }
  nlohmann::ordered_json doc;
  doc["traceEvents"] = std::move(events);
  doc["displayTimeUnit"] = "ms";
  doc["otherData"] = {{"generator", "gpuplan run --trace"}, {"time", "simulated"}};
  return doc.dump(1) + "\n";
}

}  // namespace gpuplan::report
