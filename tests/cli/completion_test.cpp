// Shell completion and the man page (cli/shell_completion.h), generated from `gpuplan --help`:
// the bash script is sourced in a real bash and asked for completions as the shell would; the
// man page is rendered by man -l.
#include <doctest/doctest.h>

#include <string>

#include "run_command.h"

using gpuplan::testing::run_gpuplan;
using gpuplan::testing::TempDir;

namespace {

/// What bash offers after `line` (words split on spaces; a trailing space starts a new word).
std::string complete(const std::string& script, const std::string& line) {
  std::string words;
  std::string word;
  int count = 0;
  for (char c : line + (line.ends_with(" ") ? "" : "")) {
    if (c == ' ') {
      words += "'" + word + "' ";
      word.clear();
      ++count;
    } else {
      word += c;
    }
  }
  words += "'" + word + "'";
  const std::string command = "bash -c \"source " + script + "; COMP_WORDS=(" + words + "); COMP_CWORD=" +
                              std::to_string(count) + "; _gpuplan; echo \\${COMPREPLY[*]}\"";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  ::pclose(pipe);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace

TEST_SUITE("cli.completion") {
  TEST_CASE("the bash completion, sourced in bash: commands, options, option values and choices from --help") {
    const TempDir dir("completion");
    const auto bash = run_gpuplan("completion bash > " + dir / "gpuplan.bash");
    REQUIRE(bash.exit_code == 0);
    const auto registered = gpuplan::testing::run_gpuplan("completion bash");  // also on stdout
    CHECK(registered.out.find("complete -o filenames -F _gpuplan gpuplan\n") != std::string::npos);
    const std::string script = dir / "gpuplan.bash";
    FILE* pipe = ::popen(("bash -c 'source " + script + "; complete -p gpuplan'").c_str(), "r");
    char line[256] = {};
    REQUIRE(std::fgets(line, sizeof line, pipe) != nullptr);
    ::pclose(pipe);
    CHECK(std::string(line) == "complete -o filenames -F _gpuplan gpuplan\n");
    CHECK(complete(script, "gpuplan pl") == "plan");
    CHECK(complete(script, "gpuplan s") == "schema");
    CHECK(complete(script, "gpuplan run x --for") == "--format");
    CHECK(complete(script, "gpuplan run x --format c") == "csv");
    CHECK(complete(script, "gpuplan run x --format h") == "html");
    CHECK(complete(script, "gpuplan plan x --dead") == "--deadline");
    CHECK(complete(script, "gpuplan plan x --catalog") == "--catalogs --catalog");  // common options too
    CHECK(complete(script, "gpuplan list i") == "instances");
    CHECK(complete(script, "gpuplan completion z") == "zsh");
    CHECK(complete(script, "gpuplan schema --format j") == "json");
    const auto zsh = run_gpuplan("completion zsh");
    CHECK(zsh.exit_code == 0);
    CHECK(zsh.out.rfind("#compdef gpuplan\n", 0) == 0);
    CHECK(zsh.out.find("bashcompinit") != std::string::npos);
    CHECK(zsh.out.find(registered.out) != std::string::npos);
    CHECK(run_gpuplan("completion fish").exit_code == 2);
  }

  TEST_CASE("gpuplan help --man: a man page that man -l renders, with every command of --help") {
    const TempDir dir("man");
    REQUIRE(run_gpuplan("help --man > " + dir / "gpuplan.1").exit_code == 0);
    const auto page = gpuplan::testing::run_gpuplan("help --man");
    CHECK(page.out.rfind(".TH GPUPLAN 1 ", 0) == 0);
    FILE* pipe = ::popen(("MANWIDTH=120 man -P cat -l " + dir / "gpuplan.1" + " 2>&1").c_str(), "r");
    std::string rendered;
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) rendered.append(buffer, n);
    const int status = ::pclose(pipe);
    CHECK(status == 0);
    CAPTURE(rendered);
    CHECK(rendered.find("SYNOPSIS") != std::string::npos);
    CHECK(rendered.find("gpuplan - predicts the time, dollars and bottleneck") != std::string::npos);
    for (const char* command : {"gpuplan run SCENARIO", "gpuplan plan SCENARIO --deadline 72h", "gpuplan diagnose LOG",
                                "gpuplan schema", "gpuplan completion bash|zsh", "Exit codes: 0 success"}) {
      CHECK_MESSAGE(rendered.find(command) != std::string::npos, command);
    }
  }
}
