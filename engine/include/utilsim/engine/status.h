// Errors as values (LevelDB style). A Status is either OK or carries a code
// and a one-line message meant for the user, already naming the file, line,
// field or option at fault where there is one. Both Status and Result are
// [[nodiscard]]: an error is never dropped silently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace utilsim {

// What kind of error a Status carries. Stable numbers: the C ABI returns
// them (utilsim/c/utilsim.h) and the Python module maps them to exceptions.
enum class StatusCode : uint8_t {
  kOk = 0,
  kInvalidArgument = 1,  // bad input: a value, a name, a file's contents
  kNotFound = 2,         // a file, policy, node or job that does not exist
  kIo = 3,               // reading or writing a file failed
  kRuntime = 4,          // anything else that went wrong while running
  kInvariant = 5,        // an always-on invariant was violated (a bug)
  kCancelled = 6,        // stopped on request
};
// "ok", "invalid_argument", "not_found", "io", "runtime", "invariant",
// "cancelled".
const char* StatusCodeName(StatusCode c);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  static Status Ok() { return Status(); }
  // An error of code kRuntime (the common case: the message says what).
  static Status Error(std::string message) {
    return Status(StatusCode::kRuntime, std::move(message));
  }
  // An error of a given code (not kOk).
  static Status Error(StatusCode code, std::string message) {
    return Status(code == StatusCode::kOk ? StatusCode::kRuntime : code, std::move(message));
  }

  bool ok() const { return !message_.has_value(); }
  StatusCode code() const { return code_; }
  // Empty for OK.
  const std::string& message() const {
    static const std::string kEmpty;
    return message_ ? *message_ : kEmpty;
  }
  // The same code with `prefix` before the message ("--flag: " + message).
  Status Prefixed(const std::string& prefix) const {
    return ok() ? *this : Status(code_, prefix + *message_);
  }

 private:
  Status(StatusCode c, std::string m) : code_(c), message_(std::move(m)) {}
  StatusCode code_ = StatusCode::kOk;
  std::optional<std::string> message_;
};

// A value or an error. value() must only be called when ok().
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}       // NOLINT: implicit by design
  Result(Status error) : v_(std::move(error)) {}  // NOLINT; error must not be OK

  bool ok() const { return std::holds_alternative<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace utilsim
