#include "cli/init_command.h"

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "cli/init_templates.h"
#include "cli/output_file.h"

namespace gpuplan::cli {

namespace {

/// `gpuplan init --help`: the command and one line per template.
std::string init_help() {
  std::string out =
      "gpuplan init [--template NAME] [FILE]: write a commented starter scenario to FILE (default "
      "my-job.yaml) that runs as it is; an existing FILE is never replaced\n"
      "Templates (default " +
      std::string(kDefaultInitTemplate) + "):\n";
  for (const InitTemplate& t : init_templates())
    out += "  " + t.name + std::string(8 - t.name.size(), ' ') + t.summary + "\n";
  return out;
}

}  // namespace

int init_main(const std::vector<std::string>& args) {
  std::string path = "my-job.yaml";
  std::string template_name = kDefaultInitTemplate;
  bool have_path = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << init_help();
      return 0;
    }
    if (a == "--template" || a.rfind("--template=", 0) == 0) {
      if (a == "--template" && i + 1 == args.size()) {
        throw std::invalid_argument("gpuplan init --template needs a NAME: gpuplan init --template llm FILE");
      }
      template_name = a == "--template" ? args[++i] : a.substr(a.find('=') + 1);
      continue;
    }
    if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option '" + a + "' of gpuplan init");
    if (have_path) throw std::invalid_argument("gpuplan init takes one FILE, found a second: '" + a + "'");
    path = a;
    have_path = true;
  }
  const InitTemplate& chosen = init_template(template_name);  // before the file check: a bad name says so first
  if (std::filesystem::is_directory(path)) {
    throw std::invalid_argument("'" + path + "' is a folder; name the FILE to write, such as " +
                                (std::filesystem::path(path) / "scenario.yaml").string());
  }
  if (std::filesystem::exists(path)) {
    throw std::invalid_argument("'" + path + "' exists; gpuplan init never replaces a file: name another FILE");
  }
  try {
    write_file_atomically(path, chosen.text);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
  std::cout << "Wrote " << path << "; edit it, then: gpuplan run " << path << "\n";
  return 0;
}

}  // namespace gpuplan::cli
