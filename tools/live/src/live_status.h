// Private: the early return of an error Status, for utilsim::live sources.
#pragma once

#include "utilsim/engine/status.h"

// Returns the Status of `expr` when it is an error (from a function that
// returns Status or Result<T>).
#define UTILSIM_LIVE_RETURN_IF_ERROR(expr)         \
  do {                                             \
    if (::utilsim::Status _s = (expr); !_s.ok()) { \
      return _s;                                   \
    }                                              \
  } while (0)
