// Header-less PAI table cursor shared by the PAI readers.
#pragma once

#include <string>
#include <utility>

#include "utilsim/traces/csv.h"
#include "utilsim/traces/pai.h"

namespace utilsim::traces::internal {

// A CsvReader over a header-less PAI table with the table's column names;
// Next() skips a first row that equals the column names.
class PaiTableReader {
 public:
  PaiTableReader(CsvReader csv, PaiTable table) : csv_(std::move(csv)), table_(table) {}
  Result<bool> Next() {
    for (;;) {
      auto next = csv_.Next();
      if (!next.ok() || !next.value() || !first_) return next;
      first_ = false;
      const auto& cols = PaiColumns(table_);
      bool header = csv_.size() == cols.size();
      for (size_t i = 0; header && i < cols.size(); ++i) header = csv_.field(i) == cols[i];
      if (!header) return true;
    }
  }
  const CsvReader& csv() const { return csv_; }

 private:
  CsvReader csv_;
  PaiTable table_;
  bool first_ = true;
};

inline Result<PaiTableReader> OpenPaiTable(const std::string& path, PaiTable table) {
  CsvOptions o;
  o.header = false;
  o.column_names = PaiColumns(table);
  auto csv = CsvReader::Open(path, o);
  if (!csv.ok()) return csv.status();
  return PaiTableReader(std::move(csv).value(), table);
}

}  // namespace utilsim::traces::internal
