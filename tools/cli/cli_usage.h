// Usage errors of the command line (private to the tools module): what
// utilsim says, and the exit code 2 it returns, when CLI11 refuses the
// arguments, with a did-you-mean for a mistyped subcommand or option.
#pragma once

#include <string>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace utilsim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRuntime = 1;  // bad input, unwritable output, refused run
inline constexpr int kExitUsage = 2;    // a bad command line

// Prints "utilsim: error: MESSAGE" on stderr; returns `code`.
int Fail(const std::string& message, int code);

// The first argument, when it is neither an option nor a subcommand of `app`:
// "unknown subcommand 'compar'; did you mean 'compare'?" (or the list of
// subcommands); "" otherwise.
std::string UnknownSubcommand(CLI::App& app, int argc, char** argv);

// After app.parse threw `e`: help and version print as CLI11 prints them
// (exit 0); everything else is one line on stderr and exit 2, an unknown
// option with the nearest option of its subcommand ("unknown option
// '--polcy' for 'utilsim run'; did you mean --policy?").
int ReportParseError(CLI::App& app, const CLI::ParseError& e);

}  // namespace utilsim::cli
