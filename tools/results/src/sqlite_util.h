// Private: minimal RAII owners of a SQLite connection and statement, for the
// result store. Not thread-safe: connections are opened with
// SQLITE_OPEN_NOMUTEX and must stay on the thread that opened them.
#pragma once

#include <sqlite3.h>

#include <string>

namespace utilsim::results {

// Owns one SQLite connection.
class Db {
 public:
  Db() = default;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db() { sqlite3_close_v2(db_); }

  bool Open(const std::string& file, int flags) {
    // Once per process, before SQLite initialises itself: no memory
    // statistics, which otherwise take a global mutex on every allocation
    // and free (a few per inserted row). Nothing here reads them. Refused,
    // harmlessly, when SQLite was already initialised by other code.
    static const int kNoMemStatus = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    (void)kNoMemStatus;
    return sqlite3_open_v2(file.c_str(), &db_, flags, nullptr) == SQLITE_OK;
  }
  bool Exec(const std::string& sql) {
    return sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
  }
  // Closes the connection now (as the destructor would); statements first.
  void Close() {
    sqlite3_close_v2(db_);
    db_ = nullptr;
  }
  sqlite3* get() const { return db_; }
  int code() const { return db_ ? sqlite3_errcode(db_) : SQLITE_NOMEM; }
  std::string message() const { return db_ ? sqlite3_errmsg(db_) : "out of memory"; }

 private:
  sqlite3* db_ = nullptr;
};

// Owns one prepared statement.
class Stmt {
 public:
  Stmt() = default;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt() { sqlite3_finalize(st_); }

  bool Prepare(const Db& db, const std::string& sql) {
    return sqlite3_prepare_v3(db.get(), sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &st_,
                              nullptr) == SQLITE_OK;
  }
  // Finalizes the statement now (as the destructor would).
  void Finalize() {
    sqlite3_finalize(st_);
    st_ = nullptr;
  }
  sqlite3_stmt* get() const { return st_; }

 private:
  sqlite3_stmt* st_ = nullptr;
};

}  // namespace utilsim::results
