#include "config/instance_catalog.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

// fast-cpp-csv-parser copies names with strncpy into fixed buffers; GCC warns about that
// inside the third-party header.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include "config/catalog_file.h"
#include "config/config_error.h"
#include "config/gpu_catalog.h"
#include "config/input_text.h"
#include "config/hardware_topology.h"
#include "config/name_index.h"
#include "config/storage_catalog.h"
#include "config/yaml_reader.h"
#include "core/text_distance.h"
#include "core/unit_parse.h"
#include "core/units.h"

namespace gpuplan::config {
namespace {

constexpr std::size_t kColumnCount = 16;

// Column names: the SkyPilot v7 vms.csv ones, then ours.
constexpr const char* kInstanceType = "InstanceType";
constexpr const char* kAcceleratorName = "AcceleratorName";
constexpr const char* kAcceleratorCount = "AcceleratorCount";
constexpr const char* kVcpus = "vCPUs";
constexpr const char* kMemoryGiB = "MemoryGiB";
constexpr const char* kGpuInfo = "GpuInfo";
constexpr const char* kPrice = "Price";
constexpr const char* kSpotPrice = "SpotPrice";
constexpr const char* kRegion = "Region";
constexpr const char* kZone = "AvailabilityZone";
constexpr const char* kInterconnect = "Interconnect";
constexpr const char* kNetwork = "Network";
constexpr const char* kStorage = "Storage";
constexpr const char* kBilling = "BillingGranularity";
constexpr const char* kSource = "source";
constexpr const char* kRetrieved = "retrieved";

constexpr const char* kRequiredColumns[] = {kInstanceType, kAcceleratorName, kAcceleratorCount,
                                            kVcpus,        kMemoryGiB,       kPrice,
                                            kRegion};

/// SkyPilot writes 700.0 for both prices where a cloud publishes none (GCP TPU rows of
/// skypilot-org/skypilot-catalog catalogs/v7/gcp/vms.csv, e.g. tpu-v6e-8 in asia-east1-c).
constexpr double kPlaceholderPriceUsdPerHour = 700.0;
/// Above this on-demand price per GPU a row is taken as a placeholder: the dearest GPUs of
/// the shipped catalogs cost about 12 USD per GPU-hour (p5.48xlarge: 98.32 / 8), so 100
/// leaves a wide margin for future parts while catching placeholder-like values.
constexpr double kMaxPlausibleUsdPerGpuHour = 100.0;
// Bounds of a row's numbers, far above any real instance (the largest have 8-16 GPUs,
// 448 vCPUs, 24 TiB of memory, and cost a few hundred USD per hour) and far below what
// overflows an int or makes a price infinite: a row beyond them is refused, with its line.
constexpr double kMaxGpusPerInstance = 64.0;  // a scenario's hardware.gpus_per_node bound
constexpr double kMaxVcpus = 100'000.0;
constexpr double kMaxMemoryGiB = 1e6;
constexpr double kMaxUsdPerHour = 1e6;
/// The GPU catalog entry's memory must match GpuInfo's MemoryInfo.SizeInMiB within this
/// fraction: ECC-enabled GDDR parts expose ~7 % less than marketed (AWS: 22888 MiB for the
/// 24 GiB L4 and A10G) and GCP lists 24576 MiB for the same L4.
constexpr double kMemoryTolerance = 0.15;

struct RawRow {
  unsigned line = 0;
  std::string type, accelerator, count, vcpus, memory, gpu_info, price, spot, region, zone,
      interconnect, network, storage, billing, source, retrieved;
};

bool is_provider_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

std::optional<double> to_number(std::string_view text) {
  double value = 0.0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc{} || ptr != end || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::string format_number(double value) {
  char buffer[32];
  const auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return ec == std::errc{} ? std::string(buffer, ptr) : std::string("?");
}

/// MemoryInfo.SizeInMiB of SkyPilot's Python-literal GpuInfo ("{'Gpus': [{'Name': 'V100',
/// ..., 'MemoryInfo': {'SizeInMiB': 16384}}], 'TotalGpuMemoryInMiB': 16384}"): the per-GPU
/// size. Azure's GpuInfo is a bare name and has none. The total is ignored: Lambda's rows
/// give the per-GPU size there.
std::optional<double> memory_mib(std::string_view gpu_info) {
  constexpr std::string_view kKey = "'SizeInMiB'";
  auto pos = gpu_info.find(kKey);
  if (pos == std::string_view::npos) {
    return std::nullopt;
  }
  pos += kKey.size();
  while (pos < gpu_info.size() && (gpu_info[pos] == ':' || gpu_info[pos] == ' ')) {
    ++pos;
  }
  std::size_t end = pos;
  while (end < gpu_info.size() &&
         (std::isdigit(static_cast<unsigned char>(gpu_info[end])) || gpu_info[end] == '.')) {
    ++end;
  }
  auto value = to_number(gpu_info.substr(pos, end - pos));
  if (!value || *value <= 0.0) {
    return std::nullopt;
  }
  return value;
}

/// The accelerator and count built into a GCP accelerator-optimized machine type, whose
/// GPUs SkyPilot prices in a separate row. Machine series per
/// https://cloud.google.com/compute/docs/accelerator-optimized-machines (A2 Standard / Ultra,
/// A3 High / Edge / Mega / Ultra, A4, G2); accelerator names as SkyPilot's GCP catalog spells
/// them (skypilot-org/skypilot-catalog catalogs/v7/gcp/vms.csv).
std::optional<std::pair<std::string, int>> gcp_machine_accelerator(std::string_view type) {
  struct Series {
    std::string_view prefix;
    std::string_view accelerator;
  };
  constexpr Series kSeries[] = {
      {"a2-highgpu-", "A100"},  {"a2-megagpu-", "A100"},      {"a2-ultragpu-", "A100-80GB"},
      {"a3-highgpu-", "H100"},  {"a3-edgegpu-", "H100"},      {"a3-megagpu-", "H100-MEGA"},
      {"a3-ultragpu-", "H200"}, {"a4-highgpu-", "B200"},
  };
  for (const Series& series : kSeries) {
    if (!type.starts_with(series.prefix)) {
      continue;
    }
    // "<N>g" with an optional suffix ("a3-edgegpu-8g-nolssd").
    std::string_view rest = type.substr(series.prefix.size());
    int count = 0;
    std::size_t i = 0;
    while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) {
      count = count * 10 + (rest[i] - '0');
      ++i;
    }
    if (i == 0 || i >= rest.size() || rest[i] != 'g' || count <= 0) {
      return std::nullopt;
    }
    return std::make_pair(std::string(series.accelerator), count);
  }
  // G2: the L4 count follows from the vCPU count (g2-standard-4 ... g2-standard-96).
  constexpr std::string_view kG2 = "g2-standard-";
  if (type.starts_with(kG2)) {
    const auto vcpus = to_number(type.substr(kG2.size()));
    if (!vcpus) {
      return std::nullopt;
    }
    const int v = static_cast<int>(*vcpus);
    if (v == 4 || v == 8 || v == 12 || v == 16 || v == 32) return std::make_pair(std::string("L4"), 1);
    if (v == 24) return std::make_pair(std::string("L4"), 2);
    if (v == 48) return std::make_pair(std::string("L4"), 4);
    if (v == 96) return std::make_pair(std::string("L4"), 8);
  }
  return std::nullopt;
}

/// Billing granularity of a provider when the file has none (on-demand Linux VMs):
/// AWS per second, 60 s minimum (https://aws.amazon.com/ec2/pricing/on-demand/); GCP per
/// second, 1 min minimum (https://cloud.google.com/compute/vm-instance-pricing); Azure per
/// second, 1 min minimum (https://azure.microsoft.com/en-us/pricing/details/virtual-machines/linux/);
/// Lambda in one-minute increments (https://docs.lambda.ai/public-cloud/billing). The
/// minimum charge is not modelled. nullopt for other providers.
std::optional<double> default_billing_granularity_s(std::string_view provider) {
  if (provider == "aws" || provider == "gcp" || provider == "azure") return 1.0;
  if (provider == "lambda") return core::minutes(1.0);
  return std::nullopt;
}

/// The fallback for providers without a known default: hourly, the coarsest common
/// granularity, so that costs are not underestimated.
constexpr double kUnknownProviderBillingGranularityS = core::hours(1.0);

/// One priced part of a row (a host row or a GCP GPU row), after the dirty-price rules.
struct Prices {
  double on_demand_usd_per_hour = 0.0;
  std::optional<double> spot_usd_per_hour;
};

/// The import of one CSV file (the rules of instance_catalog.h): raw rows first, then GCP
/// GPU rows indexed, then host rows priced, resolved and checked.
class CsvImport {
 public:
  CsvImport(const std::string& file, const std::string& provider, const GpuCatalog& gpus,
            const StorageCatalog* storage)
      : file_(file), provider_(provider), gpus_(gpus), storage_(storage) {}

  void run(const std::string& text, const std::set<std::tuple<std::string, std::string, std::string>>& taken) {
    taken_ = taken;
    read_rows(text);
    if (!errors_.empty()) {
      return;
    }
    index_accelerator_rows();
    for (std::size_t i = 0; i < raw_.size(); ++i) {
      if (!raw_[i].type.empty()) {
        import_host_row(raw_[i]);
      }
    }
    for (std::size_t i = 0; i < raw_.size(); ++i) {
      const RawRow& row = raw_[i];
      if (row.type.empty() && !used_accelerator_rows_.count(i) && !bad_rows_.count(i)) {
        note(row.line, "GPU price row " + row.accelerator + " x" + row.count + " in " + row.region +
                           " " + row.zone + " matches no host row in this file: skipped");
      }
    }
  }

  /// Errors of the file ("<problem> at <file>:<line> (<column>)[; <fix>]"); none = success.
  const std::vector<std::string>& errors() const { return errors_; }
  /// Notes on skipped or cleaned rows, "<file>:<line>: ...".
  const std::vector<std::string>& notes() const { return notes_; }
  /// The imported rows (moved out).
  std::vector<models::InstanceSpec> take_rows() { return std::move(rows_); }

 private:
  /// " at <file>:<line>:<character column> (<column name>)": the field's first character
  /// in the line as written (1-based, after the spaces the reader trims); without the
  /// character column when the line cannot be split (a quoted field across lines).
  std::string location(unsigned line, std::string_view column) const {
    const std::optional<std::size_t> at = field_column(line, column);
    return " at " + file_ + ":" + std::to_string(line) + (at ? ":" + std::to_string(*at) : std::string()) + " (" +
           std::string(column) + ")";
  }
  /// The 1-based character column where field `column` of file line `line` starts.
  std::optional<std::size_t> field_column(unsigned line, std::string_view column) const {
    if (line < 1 || line > lines_.size() || lines_.empty()) return std::nullopt;
    const std::vector<std::size_t> header = field_starts(lines_.front());
    const std::string_view head = lines_.front();
    std::size_t index = header.size();
    for (std::size_t i = 0; i < header.size(); ++i) {
      const std::size_t end = i + 1 < header.size() ? header[i + 1] - 1 : head.size();
      std::string_view name = head.substr(header[i], end - header[i]);
      while (!name.empty() && (name.back() == ' ' || name.back() == '\t' || name.back() == '\r')) name.remove_suffix(1);
      if (name == column) index = i;
    }
    const std::vector<std::size_t> starts = field_starts(lines_[line - 1]);
    if (index >= starts.size() || starts.size() != header.size()) return std::nullopt;
    return starts[index] + 1;
  }
  /// Offsets of the fields of one CSV line (commas inside double quotes do not split),
  /// each after its leading spaces and tabs.
  static std::vector<std::size_t> field_starts(std::string_view text) {
    std::vector<std::size_t> starts;
    bool quoted = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (i < text.size() && text[i] == '"') quoted = !quoted;
      if (i == text.size() || (text[i] == ',' && !quoted)) {
        while (start < i && (text[start] == ' ' || text[start] == '\t')) ++start;
        starts.push_back(start);
        start = i + 1;
      }
    }
    return starts;
  }
  void error(unsigned line, std::string_view column, const std::string& problem,
             const std::string& fix = "") {
    errors_.push_back(problem + location(line, column) + fix);
  }
  void note(unsigned line, const std::string& text) {
    notes_.push_back(file_ + ":" + std::to_string(line) + ": " + text);
  }
  std::string name_of(const RawRow& row) const { return provider_ + "/" + row.type; }

  void read_rows(const std::string& text) {
    std::string_view data(text);
    if (data.starts_with("\xEF\xBB\xBF")) {
      data.remove_prefix(3);  // UTF-8 byte order mark
    }
    while (!data.empty() && (data.back() == '\n' || data.back() == '\r' || data.back() == ' ')) {
      data.remove_suffix(1);  // trailing blank lines would read as rows with one column
    }
    for (std::size_t begin = 0; begin <= data.size();) {
      const std::size_t end = std::min(data.find('\n', begin), data.size());
      lines_.push_back(data.substr(begin, end - begin));
      begin = end + 1;
    }
    using Reader = io::CSVReader<kColumnCount, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>>;
    try {
      Reader in(file_, data.data(), data.data() + data.size());
      in.read_header(io::ignore_extra_column | io::ignore_missing_column, kInstanceType,
                     kAcceleratorName, kAcceleratorCount, kVcpus, kMemoryGiB, kGpuInfo, kPrice,
                     kSpotPrice, kRegion, kZone, kInterconnect, kNetwork, kStorage, kBilling, kSource,
                     kRetrieved);
      for (const char* column : kRequiredColumns) {
        if (!in.has_column(column)) {
          errors_.push_back(
              "missing column '" + std::string(column) + "' at " + file_ + ":1 (header)" +
              "; a SkyPilot vms.csv has the columns InstanceType, AcceleratorName, AcceleratorCount, "
              "vCPUs, MemoryGiB, GpuInfo, Price, SpotPrice, Region, AvailabilityZone (any order)");
        }
      }
      if (!errors_.empty()) {
        return;
      }
      while (true) {
        RawRow row;
        try {
          if (!in.read_row(row.type, row.accelerator, row.count, row.vcpus, row.memory, row.gpu_info,
                           row.price, row.spot, row.region, row.zone, row.interconnect, row.network,
                           row.storage, row.billing, row.source, row.retrieved)) {
            break;
          }
        } catch (const io::error::too_few_columns& e) {
          errors_.push_back("too few fields at " + file_ + ":" + std::to_string(e.file_line) +
                            " (row); every row needs as many comma-separated fields as the header");
          continue;
        } catch (const io::error::too_many_columns& e) {
          errors_.push_back("too many fields at " + file_ + ":" + std::to_string(e.file_line) +
                            " (row); quote a field that contains a comma");
          continue;
        } catch (const io::error::escaped_string_not_closed& e) {
          errors_.push_back("unclosed quote at " + file_ + ":" + std::to_string(e.file_line) +
                            " (row); close the double quote of the field");
          continue;
        }
        row.line = in.get_file_line();
        raw_.push_back(std::move(row));
      }
    } catch (const io::error::header_missing&) {
      errors_.push_back("empty CSV file at " + file_ +
                        "; expected a header line with the SkyPilot vms.csv columns");
    } catch (const io::error::duplicated_column_in_header& e) {
      errors_.push_back("duplicate column '" + std::string(e.column_name) + "' at " + file_ +
                        ":1 (header); remove one of them");
    } catch (const io::error::base& e) {
      errors_.push_back("malformed CSV at " + file_ + ": " + e.what());
    }
  }

  /// The number from 0 to `max_value` in `text` (a column of `row`), or an error: a row
  /// with an absurd value is refused with its line, never imported (issue 15).
  std::optional<double> number(const RawRow& row, std::string_view column, const std::string& text,
                               std::string_view expected, double max_value) {
    auto value = to_number(text);
    if (!value || *value < 0.0 || *value > max_value) {
      error(row.line, column,
            "expected " + std::string(expected) + " from 0 to " + format_number(max_value) + ", found '" + text + "'");
      return std::nullopt;
    }
    return value;
  }

  /// Price and SpotPrice of one row after the dirty-price rules (file comment). nullopt when
  /// the row must be skipped; `bad` is set when it is malformed (an error was recorded).
  std::optional<Prices> prices(const RawRow& row, const std::string& what, bool& bad) {
    const std::string_view usd_h = "a price in USD per hour (a plain number, SkyPilot format)";
    std::optional<double> spot;
    if (!row.spot.empty()) {
      spot = number(row, kSpotPrice, row.spot, usd_h, kMaxUsdPerHour);
      bad = bad || !spot;
    }
    if (row.price.empty()) {
      if (!bad) {
        note(row.line, what + " has no on-demand Price: skipped");
      }
      return std::nullopt;
    }
    const auto price = number(row, kPrice, row.price, usd_h, kMaxUsdPerHour);
    if (!price) {
      bad = true;
    }
    if (bad) {
      return std::nullopt;
    }
    if (*price == kPlaceholderPriceUsdPerHour) {
      note(row.line, what + " has the placeholder Price 700.0 (SkyPilot's marker for no published price): skipped");
      return std::nullopt;
    }
    if (*price <= 0.0) {
      note(row.line, what + " has a zero Price: skipped");
      return std::nullopt;
    }
    Prices out;
    out.on_demand_usd_per_hour = *price;
    if (spot) {
      if (*spot == kPlaceholderPriceUsdPerHour || *spot <= 0.0) {
        note(row.line, what + " has the SpotPrice " + row.spot + ", not a real price: taken as no spot market");
      } else if (*spot > *price) {
        note(row.line, what + " has a SpotPrice " + row.spot + " above its on-demand Price " + row.price +
                           ": spot price dropped (no spot market)");
      } else {
        out.spot_usd_per_hour = spot;
      }
    }
    return out;
  }

  void index_accelerator_rows() {
    for (std::size_t i = 0; i < raw_.size(); ++i) {
      const RawRow& row = raw_[i];
      if (!row.type.empty()) {
        continue;
      }
      if (row.accelerator.empty()) {
        error(row.line, kInstanceType, "row without InstanceType and AcceleratorName",
              "; a host row needs an InstanceType, a GCP-style GPU price row an AcceleratorName");
        bad_rows_.insert(i);
        continue;
      }
      const auto count = to_number(row.count);
      if (!count || *count <= 0.0 || *count > kMaxGpusPerInstance) {
        error(row.line, kAcceleratorCount, "expected a GPU count from 1 to 64, found '" + row.count + "'");
        bad_rows_.insert(i);
        continue;
      }
      // Prices of GPU rows are validated here, so that malformed ones are reported even when
      // no host row uses them.
      bool bad = false;
      const auto parts = prices(row, "GPU price row " + row.accelerator + " x" + row.count, bad);
      if (bad) {
        bad_rows_.insert(i);
        continue;
      }
      if (!parts) {
        bad_rows_.insert(i);  // skipped and noted
        continue;
      }
      const auto key = std::make_tuple(row.accelerator, static_cast<int>(*count), row.region, row.zone);
      if (!accelerator_rows_.emplace(key, std::make_pair(i, *parts)).second) {
        note(row.line, "GPU price row " + row.accelerator + " x" + row.count + " in " + row.region + " " +
                           row.zone + " repeats an earlier row: skipped");
        bad_rows_.insert(i);
      }
    }
  }

  /// The GPU catalog entry of an accelerator (see the file comment), or nullptr with a note.
  const models::GpuSpec* resolve_gpu(const RawRow& row, const std::string& accelerator,
                                     const std::string& gpu_info) {
    const auto mib = memory_mib(gpu_info);
    const models::GpuSpec* gpu = nullptr;
    if (mib) {
      const long gib = std::lround(*mib / core::kKibi);
      gpu = gpus_.find(accelerator + "-" + std::to_string(gib) + "GB");
    }
    if (gpu == nullptr) {
      gpu = gpus_.find(accelerator);
    }
    if (gpu == nullptr) {
      note(row.line, name_of(row) + ": accelerator '" + accelerator +
                         "' is not in the GPU catalog: skipped" +
                         core::did_you_mean(gpus_.suggestions(accelerator)));
      return nullptr;
    }
    if (mib) {
      const double listed_bytes = core::mebibytes(*mib);
      if (std::abs(listed_bytes - gpu->memory_bytes) > kMemoryTolerance * gpu->memory_bytes) {
        note(row.line, name_of(row) + ": accelerator '" + accelerator + "' with " + format_number(*mib) +
                           " MiB per GPU does not match " + gpu->name +
                           " (another memory size): skipped; add an alias " + accelerator + "-" +
                           std::to_string(std::lround(*mib / core::kKibi)) +
                           "GB to the right gpus.yaml entry");
        return nullptr;
      }
    }
    return gpu;
  }

  void import_host_row(const RawRow& row) {
    std::string accelerator = row.accelerator;
    std::string gpu_info = row.gpu_info;
    std::string count_text = row.count;
    const auto machine = accelerator.empty() ? gcp_machine_accelerator(row.type) : std::nullopt;
    if (accelerator.empty() && !machine) {
      // CPU-only: not a training instance. Its prices must still be numbers (a malformed file
      // is an error wherever it is malformed), then the row is skipped without a note.
      const std::string_view usd_h = "a price in USD per hour (a plain number, SkyPilot format)";
      if (!row.price.empty()) {
        number(row, kPrice, row.price, usd_h, kMaxUsdPerHour);
      }
      if (!row.spot.empty()) {
        number(row, kSpotPrice, row.spot, usd_h, kMaxUsdPerHour);
      }
      return;
    }
    bool bad = false;
    auto host = prices(row, name_of(row) + " in " + row.region + " " + row.zone, bad);
    if (bad) {
      return;
    }
    Prices total;
    if (accelerator.empty()) {
      accelerator = machine->first;
      count_text = std::to_string(machine->second);
      const auto it = accelerator_rows_.find(std::make_tuple(accelerator, machine->second, row.region, row.zone));
      if (it == accelerator_rows_.end()) {
        note(row.line, name_of(row) + " in " + row.region + " " + row.zone + ": no GPU price row " +
                           accelerator + " x" + count_text + " in the same zone: skipped");
        return;
      }
      used_accelerator_rows_.insert(it->second.first);
      if (!host) {
        return;  // the host price was dirty: noted by prices()
      }
      const Prices& gpu = it->second.second;
      gpu_info = raw_[it->second.first].gpu_info;
      total.on_demand_usd_per_hour = host->on_demand_usd_per_hour + gpu.on_demand_usd_per_hour;
      if (host->spot_usd_per_hour.has_value() && gpu.spot_usd_per_hour.has_value()) {
        total.spot_usd_per_hour = host->spot_usd_per_hour.value() + gpu.spot_usd_per_hour.value();
      }
    } else {
      if (!host) {
        return;
      }
      total = *host;
    }

    models::InstanceSpec spec;
    spec.provider = provider_;
    spec.instance_type = row.type;
    spec.accelerator_name = accelerator;
    spec.region = row.region;
    spec.zone = row.zone;

    const auto count = to_number(count_text);
    if (!count || *count <= 0.0 || *count > kMaxGpusPerInstance) {
      error(row.line, kAcceleratorCount, "expected a GPU count from 1 to 64, found '" + count_text + "'");
      return;
    }
    if (*count != std::floor(*count)) {
      note(row.line, name_of(row) + " has " + count_text + " GPUs (a GPU slice): skipped");
      return;
    }
    spec.accelerator_count = static_cast<int>(*count);
    const auto vcpus = number(row, kVcpus, row.vcpus, "a vCPU count", kMaxVcpus);
    const auto memory_gib = number(row, kMemoryGiB, row.memory, "a memory size in GiB (a plain number)", kMaxMemoryGiB);
    if (!vcpus || !memory_gib) {
      return;
    }
    spec.vcpus = *vcpus;
    spec.memory_bytes = core::gibibytes(*memory_gib);

    const std::size_t errors_before = errors_.size();
    read_our_columns(row, spec);
    if (errors_.size() != errors_before) {
      return;
    }

    const models::GpuSpec* gpu = resolve_gpu(row, accelerator, gpu_info);
    if (gpu == nullptr) {
      return;
    }
    spec.gpu = gpu->name;

    const double per_gpu = total.on_demand_usd_per_hour / spec.accelerator_count;
    if (per_gpu > kMaxPlausibleUsdPerGpuHour) {
      note(row.line, name_of(row) + " costs " + format_number(per_gpu) +
                         " USD/h per GPU, not a plausible price: skipped");
      return;
    }
    if (total.spot_usd_per_hour.has_value() &&
        total.spot_usd_per_hour.value() > total.on_demand_usd_per_hour) {
      note(row.line, name_of(row) + ": spot price above the on-demand price after adding the GPU row: "
                                    "spot price dropped (no spot market)");
      total.spot_usd_per_hour.reset();
    }
    spec.price_usd_per_s = core::usd_per_hour(total.on_demand_usd_per_hour);
    spec.spot_price_usd_per_s = core::usd_per_hour(total.spot_usd_per_hour.value_or(0.0));

    const auto key = std::make_tuple(name_of(row), spec.region, spec.zone);
    if (!taken_.insert(key).second) {
      note(row.line, name_of(row) + " in " + spec.region + " " + spec.zone +
                         " repeats an earlier row: skipped (the first one is kept)");
      return;
    }
    rows_.push_back(std::move(spec));
  }

  void read_our_columns(const RawRow& row, models::InstanceSpec& spec) {
    if (!row.interconnect.empty()) {
      // The names a scenario's gpu_interconnect accepts (config/hardware_topology.h): the
      // bare generations the shipped rows use, or a table name that says the wiring.
      const std::vector<std::string> names = interconnect_choices();
      const bool known = std::find(names.begin(), names.end(), row.interconnect) != names.end();
      if (known) {
        spec.interconnect = row.interconnect;
      } else {
        std::string listed;
        for (std::size_t i = 0; i < names.size(); ++i) {
          listed += (i == 0 ? "" : (i + 1 == names.size() ? " or " : ", ")) + names[i];
        }
        error(row.line, kInterconnect, "unknown interconnect '" + row.interconnect + "', expected one of " + listed,
              core::did_you_mean(core::closest(row.interconnect, names)));
      }
    }
    if (!row.network.empty()) {
      if (auto value = quantity(row, kNetwork, row.network, core::Dimension::kBytesPerSecond)) {
        spec.network_bytes_per_s = *value;
      }
    }
    if (!row.storage.empty()) {
      if (storage_ != nullptr && storage_->find(row.storage) == nullptr) {
        error(row.line, kStorage, "unknown storage class '" + row.storage + "'",
              core::did_you_mean(storage_->suggestions(row.storage)));
      } else {
        spec.storage = storage_ != nullptr ? storage_->find(row.storage)->name : row.storage;
      }
    }
    if (!row.billing.empty()) {
      if (auto value = quantity(row, kBilling, row.billing, core::Dimension::kSeconds)) {
        spec.billing_granularity_s = *value;
      }
    } else if (auto fallback = default_billing_granularity_s(provider_)) {
      spec.billing_granularity_s = *fallback;
    } else {
      spec.billing_granularity_s = kUnknownProviderBillingGranularityS;
      if (!warned_billing_) {
        note(row.line, "no BillingGranularity for provider '" + provider_ +
                           "': billed per started hour; add a BillingGranularity column (\"1 s\", \"1 min\")");
        warned_billing_ = true;
      }
    }
    spec.source = row.source;
    spec.retrieved = row.retrieved;
    if (!row.retrieved.empty() && !is_iso_date(row.retrieved)) {
      error(row.line, kRetrieved, "expected a date such as 2026-11-29, found '" + row.retrieved + "'");
    }
  }

  std::optional<double> quantity(const RawRow& row, std::string_view column, const std::string& text,
                                 core::Dimension dimension) {
    try {
      const double value = core::parse_quantity(text, dimension);
      if (value <= 0.0) {
        error(row.line, column, "expected more than zero, found '" + text + "'");
        return std::nullopt;
      }
      return value;
    } catch (const core::UnitError& e) {
      const std::string what = e.what();
      const auto semi = what.find("; ");
      if (semi == std::string::npos) {
        error(row.line, column, what);
      } else {
        error(row.line, column, what.substr(0, semi), what.substr(semi));
      }
      return std::nullopt;
    }
  }

  std::vector<std::string> errors_;
  std::vector<std::string> notes_;
  std::vector<models::InstanceSpec> rows_;
  std::string file_;
  std::string provider_;
  const GpuCatalog& gpus_;
  const StorageCatalog* storage_;
  std::vector<RawRow> raw_;
  std::vector<std::string_view> lines_;  ///< the file's lines (into the text read_rows was given)
  std::map<std::tuple<std::string, int, std::string, std::string>, std::pair<std::size_t, Prices>>
      accelerator_rows_;
  std::set<std::size_t> used_accelerator_rows_;
  std::set<std::size_t> bad_rows_;
  std::set<std::tuple<std::string, std::string, std::string>> taken_;  // (name, region, zone)
  bool warned_billing_ = false;
};

}  // namespace

void InstanceCatalog::add_csv(const std::string& path, const std::string& provider,
                              const GpuCatalog& gpus, const StorageCatalog* storage) {
  add_csv_text(read_text_file(path), path, provider, gpus, storage);
}

void InstanceCatalog::add_csv_text(const std::string& csv_text, const std::string& file_name,
                                   const std::string& provider, const GpuCatalog& gpus,
                                   const StorageCatalog* storage) {
  if (!is_provider_name(provider)) {
    throw ConfigError("invalid provider name '" + provider + "' for " + file_name +
                      "; provider names are lower-case letters, digits, '_' and '-' (aws, gcp, ...)");
  }
  check_input_text(csv_text, file_name);  // names reach the JSON writers: UTF-8 only
  std::set<std::tuple<std::string, std::string, std::string>> taken;
  CsvImport import(file_name, provider, gpus, storage);
  import.run(csv_text, taken);
  if (!import.errors().empty()) {
    throw ConfigError(import.errors());
  }
  // The new file's rows replace earlier files' rows with the same key.
  std::vector<models::InstanceSpec> added = import.take_rows();
  std::set<std::tuple<std::string, std::string, std::string>> replaced;
  for (const auto& row : added) {
    replaced.emplace(row.provider + "/" + row.instance_type, row.region, row.zone);
  }
  std::vector<models::InstanceSpec> kept;
  for (auto& row : rows_) {
    if (replaced.count({row.provider + "/" + row.instance_type, row.region, row.zone}) == 0) {
      kept.push_back(std::move(row));
      continue;
    }
    // A plain SkyPilot file has prices but not our hardware columns: keep the earlier row's.
    for (auto& fresh : added) {
      if (fresh.provider == row.provider && fresh.instance_type == row.instance_type &&
          fresh.region == row.region && fresh.zone == row.zone) {
        if (fresh.interconnect.empty()) fresh.interconnect = row.interconnect;
        if (fresh.network_bytes_per_s <= 0.0) fresh.network_bytes_per_s = row.network_bytes_per_s;
        if (fresh.storage.empty()) fresh.storage = row.storage;
      }
    }
  }
  rows_.clear();
  by_name_.clear();
  for (auto& row : kept) {
    by_name_[row.provider + "/" + row.instance_type].push_back(rows_.size());
    rows_.push_back(std::move(row));
  }
  for (auto& row : added) {
    by_name_[row.provider + "/" + row.instance_type].push_back(rows_.size());
    rows_.push_back(std::move(row));
  }
  notes_.insert(notes_.end(), import.notes().begin(), import.notes().end());
}

InstanceCatalog InstanceCatalog::load_directory(const std::string& dir, const GpuCatalog& gpus,
                                                const StorageCatalog* storage) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".csv") {
      files.push_back(it->path());
    }
  }
  if (ec) {
    throw ConfigError("cannot read directory '" + dir + "': " + ec.message());
  }
  std::sort(files.begin(), files.end());
  InstanceCatalog catalog;
  std::vector<std::string> errors;
  for (const auto& file : files) {
    try {
      catalog.add_csv(file.string(), file.stem().string(), gpus, storage);
    } catch (const ConfigError& e) {
      errors.insert(errors.end(), e.messages().begin(), e.messages().end());
    }
  }
  if (!errors.empty()) {
    throw ConfigError(errors);
  }
  return catalog;
}

const models::InstanceSpec* InstanceCatalog::find(std::string_view provider_slash_type,
                                                  std::string_view region,
                                                  std::string_view zone) const {
  auto it = by_name_.find(provider_slash_type);
  if (it == by_name_.end()) {
    const std::string folded = fold(provider_slash_type);
    it = std::find_if(by_name_.begin(), by_name_.end(),
                      [&](const auto& entry) { return fold(entry.first) == folded; });
    if (it == by_name_.end()) {
      return nullptr;
    }
  }
  for (std::size_t index : it->second) {
    const models::InstanceSpec& row = rows_[index];
    if ((region.empty() || row.region == region) && (zone.empty() || row.zone == zone)) {
      return &row;
    }
  }
  return nullptr;
}

std::vector<const models::InstanceSpec*> InstanceCatalog::find_all(
    std::string_view provider_slash_type) const {
  std::vector<const models::InstanceSpec*> out;
  if (auto it = by_name_.find(provider_slash_type); it != by_name_.end()) {
    for (std::size_t index : it->second) {
      out.push_back(&rows_[index]);
    }
  }
  return out;
}

std::vector<std::string> InstanceCatalog::suggestions(std::string_view unknown_name) const {
  return core::closest(unknown_name, names());
}

std::vector<std::string> InstanceCatalog::names() const {
  std::vector<std::string> out;
  out.reserve(by_name_.size());
  for (const auto& [name, indices] : by_name_) {
    out.push_back(name);
  }
  return out;  // std::map keeps them sorted
}

}  // namespace gpuplan::config
