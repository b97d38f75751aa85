// Private: the SQL side of the result store shared by WriteResults (whole
// runs at once) and ResultWriter (rows streamed while a run goes): the
// statements that create the tables and insert rows, and the binding of a
// row of cells. Everything here runs on one connection, on one thread at a
// time.
#pragma once

#include <sqlite3.h>

#include <string>
#include <vector>

#include "result_schema.h"
#include "sqlite_util.h"
#include "utilsim/io/output_path.h"

namespace utilsim::results {

// The guard of a results database (no standard output, its format named)
// and the first check of `path` (not empty; CheckOutput). Sets *g.
Status CheckResultsPath(const std::string& path, const OutputGuard& guard, OutputGuard* g);

// Configures a new, empty database for one writer (page size, no journal,
// exclusive lock, one transaction begun) and creates the tables and the view
// of docs/results.md. Returns false on a SQLite error (db.message() says
// which).
bool CreateResultSchema(Db& db);
// Fills the meta table (schema version, `utilsim_version`, creator).
bool WriteMetaTable(Db& db, const std::string& utilsim_version);

// "INSERT INTO <t>(<columns>) VALUES(?, ...)".
std::string InsertSql(const Table& t);

// Binds `row` to `st` and runs the statement. Text
// cells are bound without copying: what they point into must outlive the call.
bool InsertRow(sqlite3_stmt* st, const std::vector<Cell>& row);

}  // namespace utilsim::results
