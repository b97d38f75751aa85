// The Prometheus HTTP API response envelope (domain.md §4.4), checked apart
// from the transport so it can be tested on recorded bodies:
// {"status":"success","data":{...}} -> data; {"status":"error",
// "errorType":..,"error":..} -> an error quoting both; a non-200 status
// without such a body, a body that is not JSON, or a success without a data
// object -> an error. Messages start with `where` and, for a non-200
// reply, "HTTP <code>". Never throws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "utilsim/engine/status.h"

namespace utilsim::live::internal {

Result<nlohmann::json> ParseEnvelope(const std::string& where, int http_status,
                                     const std::string& body);

}  // namespace utilsim::live::internal
