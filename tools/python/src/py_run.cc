// utilsim.run: load the inputs, run every policy (in parallel threads,
// without the GIL), optionally write the results database. The same
// library calls as `utilsim compare` (tools/cli/cli.cc), so the same inputs
// give the same results and a byte-identical database.
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <set>
#include <thread>

#include "py_common.h"
#include "py_results.h"
#include "py_spec.h"
#include "utilsim/io/inputs.h"
#include "utilsim/io/output_path.h"
#include "utilsim/results/result_store.h"
#include "utilsim/results/result_writer.h"

namespace utilsim::python {
namespace {

constexpr char kDbFormat[] = "a SQLite results database";

// Runs every policy of `policies` on `in`, `threads` at a time, each in its
// own thread with its own PyErrors; the calling thread waits and checks for
// signals (Ctrl-C stops every run and raises KeyboardInterrupt). Called
// without the GIL.
struct Batch {
  const PreparedRuns* prepared;
  std::vector<std::string> policies;
  size_t threads;

  std::vector<Result<RunResult>> results;
  std::vector<PyErrors> errors;
  std::exception_ptr interrupt;

  void Run() {
    const size_t n = policies.size();
    results.assign(n, Status::Error("not run"));
    errors = std::vector<PyErrors>(n);
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex mu;
    std::condition_variable cv;
    size_t done = 0;
    auto worker = [&] {
      for (size_t i; (i = next++) < n;) {
        PyErrors::Scope scope(&errors[i]);
        PyErrors* e = &errors[i];
        results[i] =
            prepared->Simulate(policies[i], [e, &stop](const EngineEvent&, RunControl& rc) {
              if (e->failed() || stop.load(std::memory_order_relaxed)) rc.RequestStop();
            });
      }
      std::lock_guard<std::mutex> lock(mu);
      ++done;
      cv.notify_all();
    };
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
    std::unique_lock<std::mutex> lock(mu);
    while (!cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return done == threads; })) {
      if (interrupt) continue;
      lock.unlock();
      {
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) {
          try {
            throw py::error_already_set();
          } catch (...) {
            interrupt = std::current_exception();
          }
          stop = true;
        }
      }
      lock.lock();
    }
    lock.unlock();
    for (auto& t : pool) t.join();
  }
};

py::list RunPy(const std::string& trace, const std::string& cluster,
               const std::vector<std::string>& policies, py::object jobs, uint64_t seed,
               int threads, const std::string& out, const std::string& profiles,
               const std::string& format, const py::dict& spec) {
  if (policies.empty()) throw py::value_error("policies: expected at least one policy name");
  if (threads < 0) throw py::value_error("threads: expected 0 (one per core) or more");
  InputOptions input;
  input.trace = trace;
  input.cluster = cluster;
  input.format = format;
  input.seed = seed;
  if (!jobs.is_none()) {
    if (trace.rfind("builtin:", 0) != 0)
      throw py::value_error(
          "jobs: only for built-in workloads (trace='builtin:demo' or "
          "'builtin:bench'); " +
          trace + " has the jobs it has");
    const int64_t j = jobs.cast<int64_t>();
    if (j < 1) throw py::value_error("jobs: expected an integer >= 1, got " + std::to_string(j));
    input.jobs = j;
  }
  RunOptions opt = ParseRunOptions(spec, seed);
  PolicyRegistry reg = RegistrySnapshot();
  if (!profiles.empty())
    if (Status s = LoadProfiles(profiles, &reg); !s.ok()) ThrowStatus(s);
  std::set<std::string> seen;
  for (const auto& p : policies) {
    if (!seen.insert(p).second) throw py::value_error("policies: '" + p + "' given twice");
    PyErrors errors;
    PyErrors::Scope scope(&errors);
    if (auto s = reg.Make(p, seed); !s.ok())
      throw py::value_error("policies: " + s.status().message());
    errors.RaiseIfFailed();  // a Python policy class that cannot be made
  }
  const OutputGuard guard{"out", InputPaths(input, profiles), false, kDbFormat};
  if (Status s = CheckOutput(out, guard); !s.ok()) ThrowStatus(s);
  // One policy: its rows stream into `out` while it runs, as `utilsim run
  // --out` does, so the two files are byte-identical (the rows are kept too,
  // for the DataFrames). Several: written after, as `compare --out` does.
  std::unique_ptr<ResultWriter> writer;
  if (!out.empty() && policies.size() == 1) {
    auto opened = ResultWriter::Open(out, guard);
    if (!opened.ok()) ThrowStatus(opened.status());
    writer = std::move(opened).value();
    opt.spec.sink = writer.get();
  }

  Batch batch;
  Status failed;
  {
    py::gil_scoped_release nogil;
    Result<Inputs> in = LoadInputs(input);
    Result<std::unique_ptr<PreparedRuns>> prepared =
        in.ok() ? PreparedRuns::Build(opt, in.value(), reg) : in.status();
    if (prepared.ok()) {
      const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
      batch.prepared = prepared.value().get();
      batch.policies = policies;
      batch.threads = std::min<size_t>(policies.size(), threads > 0 ? threads : hw);
      batch.Run();
    } else {
      failed = prepared.status();
    }
  }
  if (!failed.ok()) ThrowStatus(failed);
  if (batch.interrupt) std::rethrow_exception(batch.interrupt);
  for (size_t i = 0; i < policies.size(); ++i) {
    batch.errors[i].RaiseIfFailed();
    if (!batch.results[i].ok()) ThrowStatus(batch.results[i].status());
  }
  std::vector<std::shared_ptr<RunData>> runs;
  for (auto& r : batch.results)
    runs.push_back(std::make_shared<RunData>(RunData{std::move(r).value()}));
  if (writer) {
    Status s;
    {
      py::gil_scoped_release nogil;
      s = writer->Commit(&runs.front()->run);
    }
    if (!s.ok()) ThrowStatus(s);
  } else if (!out.empty()) {
    std::vector<RunResult> all;
    for (const auto& r : runs) all.push_back(r->run);
    Status s;
    {
      py::gil_scoped_release nogil;
      s = WriteResults(all, out, guard);
    }
    if (!s.ok()) ThrowStatus(s);
  }
  py::list result;
  for (auto& r : runs) result.append(r);
  return result;
}

}  // namespace

void BindRun(py::module_& m) {
  m.attr("SPEC_KEYS") = SpecKeys();
  m.def("run", &RunPy, py::arg("trace"), py::arg("cluster"), py::arg("policies"), py::arg("jobs"),
        py::arg("seed"), py::arg("threads"), py::arg("out"), py::arg("profiles"), py::arg("format"),
        py::arg("spec"));
}

}  // namespace utilsim::python
