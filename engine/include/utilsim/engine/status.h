// Errors as values (LevelDB style). A Status is either OK or carries a
// one-line message meant for the user, already naming the file, line, field or
// option at fault where there is one.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace utilsim {

class Status {
 public:
  Status() = default;  // OK
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return !message_.has_value(); }
  // Empty for OK.
  const std::string& message() const {
    static const std::string kEmpty;
    return message_ ? *message_ : kEmpty;
  }

 private:
  explicit Status(std::string m) : message_(std::move(m)) {}
  std::optional<std::string> message_;
};

// A value or an error. value() must only be called when ok().
template <typename T>
class Result {
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
