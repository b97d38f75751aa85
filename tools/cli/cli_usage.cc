#include "cli_usage.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "suggest.h"

namespace utilsim::cli {
namespace {

std::vector<CLI::App*> Subcommands(CLI::App& app) {
  return app.get_subcommands([](CLI::App* s) { return !s->get_name().empty(); });
}

std::string SubcommandMessage(CLI::App& app, const std::string& word) {
  std::vector<std::string> names;
  std::string list;
  for (CLI::App* s : Subcommands(app)) {
    names.push_back(s->get_name());
    list += (list.empty() ? "" : ", ") + s->get_name();
  }
  if (word.empty()) return "a subcommand is required: " + list + " (utilsim --help)";
  const std::string near = Suggest(word, names);
  if (!near.empty()) return "unknown subcommand '" + word + "'; did you mean '" + near + "'?";
  return "unknown subcommand '" + word + "' (subcommands: " + list + ")";
}

// "--name" -> "name".
std::string Bare(const std::string& option) {
  return option.substr(std::min(option.find_first_not_of('-'), option.size()));
}

// The message for arguments `cmd` did not expect: the first option-like one
// with its nearest option of `cmd` (by the names without dashes), or the
// subcommands it belongs to; else the first argument.
std::string ExtrasMessage(CLI::App& app, CLI::App& cmd, const std::vector<std::string>& extras) {
  const std::string where = "'utilsim " + cmd.get_name() + "'";
  for (const auto& a : extras) {
    if (a.size() < 2 || a[0] != '-') continue;
    const std::string name = a.substr(0, a.find('='));
    std::vector<std::string> known;
    for (const CLI::Option* o : cmd.get_options()) {
      for (const auto& l : o->get_lnames()) known.push_back(l);
      for (const auto& s : o->get_snames()) known.push_back(s);
    }
    const std::string near = Suggest(Bare(name), known);
    if (!near.empty())
      return "unknown option '" + name + "' for " + where + "; did you mean " +
             (near.size() == 1 ? "-" : "--") + near + "?";
    std::string others;
    for (CLI::App* s : Subcommands(app))
      if (s != &cmd && s->get_option_no_throw(name) != nullptr)
        others += (others.empty() ? "" : ", ") + s->get_name();
    if (!others.empty())
      return "option '" + name + "' does not apply to " + where + " (it is an option of " + others +
             "; utilsim " + cmd.get_name() + " --help lists this one's)";
    return "unknown option '" + name + "' for " + where + " (utilsim " + cmd.get_name() +
           " --help lists them)";
  }
  return "unexpected argument '" + extras.front() + "' for " + where + " (utilsim " +
         cmd.get_name() + " --help)";
}

}  // namespace

int Fail(const std::string& message, int code) {
  std::cerr << "utilsim: error: " << message << "\n";
  return code;
}

std::string UnknownSubcommand(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return "";
  const std::string word = argv[1];
  for (CLI::App* s : Subcommands(app))
    if (s->check_name(word)) return "";
  return SubcommandMessage(app, word);
}

int ReportParseError(CLI::App& app, const CLI::ParseError& e) {
  if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version: as CLI11 prints them
  std::string msg = e.what();
  std::vector<CLI::App*> parsed = app.get_subcommands();
  CLI::App* cmd = parsed.empty() ? nullptr : parsed.back();
  std::vector<std::string> extras = cmd ? cmd->remaining() : std::vector<std::string>{};
  if (extras.empty()) extras = app.remaining();
  // An unknown option explains a missing required one too ("compare
  // --policy x": --policies is required, --policy is not expected).
  const bool option_extra = std::any_of(extras.begin(), extras.end(), [](const std::string& a) {
    return a.size() > 1 && a[0] == '-';
  });
  if (cmd && !extras.empty() &&
      (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr || option_extra)) {
    msg = ExtrasMessage(app, *cmd, extras);
  } else if (parsed.empty() && dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    std::string word;
    for (const auto& r : app.remaining())
      if (!r.empty() && r[0] != '-') {
        word = r;
        break;
      }
    msg = SubcommandMessage(app, word);
  }
  return Fail(msg, kExitUsage);
}

}  // namespace utilsim::cli
