// pitot._engine: pitot's C++ engine bound for Python (nanobind). Benchmarks written in Python
// register into the same registry as PITOT_BENCHMARK; the program's main (src/program) runs them,
// so a Python file answers the flags, outputs, protocol and exit codes of a C++ program. The
// Python side (python/pitot/__init__.py) holds the decorator, the asv-style classes and main().
//
// Threads: the engine runs each live point in its own thread and passes a turn between them. A
// point's Python code runs with the GIL held; every call that may wait for a turn (main, exec)
// releases it, and the timed callables take it back only while they run.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <pitot/pitot.hpp>
#include <pitot/detail/backend_info.hpp>
#include <pitot/detail/ranks.hpp>
#include <pitot/detail/registry.hpp>
#if defined(PITOT_PYTHON_CUDA)
#include <pitot/cuda.hpp>  // registers the CUDA backend when the module loads
#endif

#include "host/machine.hpp"
#include "program/main.hpp"
#include "program/replicate.hpp"

namespace nb = nanobind;

void bind_problem(nb::module_& m);  // python/src/problem.cpp

namespace {

// Calls a Python callable with the GIL held by the caller. A Python exception becomes a C++
// std::runtime_error carrying its text, so no Python object crosses code that holds no GIL; the
// Python side keeps the exception object itself and re-raises it (pitot/__init__.py).
void call_python(PyObject* fn, PyObject* arg) {
  PyObject* r = arg ? PyObject_CallOneArg(fn, arg) : PyObject_CallNoArgs(fn);
  if (r) {
    Py_DECREF(r);
    return;
  }
  nb::python_error e;
  throw std::runtime_error(e.what());
}

// asv's timing attributes, where a benchmark sets them (python/pitot/_asv_measure.py); the defaults leave
// pitot's own settings.
struct Knobs {
  std::int64_t number = 0;   // calls per sample (asv's number); 0: grown until a sample is long enough
  double sample_time = 0;    // that length in seconds (asv's sample_time); 0: --min-sample-time
  double warmup_time = -1;   // seconds of warm-up (asv's warmup_time); < 0: --warmup
  std::int64_t repeat = 0;   // samples to take, then stop (asv's repeat); 0: the stopping rule
};

// A sampler that holds the GIL while the Python work runs (warm-up, one sample, one profiled
// run) and gives it back between them, so other points' threads can run their setup. It applies
// the knobs: the warm-up and sample length the author asked for, and no more than `repeat` samples.
class GilSampler final : public pitot::detail::Sampler {
 public:
  explicit GilSampler(pitot::detail::Sampler& inner, Knobs knobs = {}) : inner_(inner), knobs_(knobs) {}
  const char* backend() const override { return inner_.backend(); }
  void warmup(double warmup_seconds, double min_sample_seconds) override {
    nb::gil_scoped_acquire gil;
    inner_.warmup(knobs_.warmup_time >= 0 ? knobs_.warmup_time : warmup_seconds,
                  knobs_.sample_time > 0 ? knobs_.sample_time : min_sample_seconds);
  }
  pitot::detail::Sample sample() override {
    nb::gil_scoped_acquire gil;
    ++taken_;
    return inner_.sample();
  }
  void run_once() override {
    nb::gil_scoped_acquire gil;
    inner_.run_once();
  }
  std::int64_t iterations_per_sample() const override { return inner_.iterations_per_sample(); }
  bool exhausted() const override { return (knobs_.repeat > 0 && taken_ >= knobs_.repeat) || inner_.exhausted(); }
  void finish() override { inner_.finish(); }
  double harness_seconds() const override { return inner_.harness_seconds(); }

 private:
  pitot::detail::Sampler& inner_;
  Knobs knobs_;
  std::int64_t taken_ = 0;
};

struct PyCall {
  PyObject* fn;
  void operator()() { call_python(fn, nullptr); }
};

// Host clock with asv's fixed `number` of calls per sample (CpuSampler grows its own).
class FixedCountSampler final : public pitot::detail::Sampler {
 public:
  FixedCountSampler(PyCall& call, std::int64_t number) : call_(call), number_(number) {}
  const char* backend() const override { return "cpu"; }
  void warmup(double warmup_seconds, double) override {
    const auto start = std::chrono::steady_clock::now();
    do {
      (void)sample();
    } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < warmup_seconds);
  }
  pitot::detail::Sample sample() override {
    const auto t0 = std::chrono::steady_clock::now();
    for (std::int64_t i = 0; i < number_; ++i) call_();
    const auto t1 = std::chrono::steady_clock::now();
    return {std::chrono::duration<double>(t1 - t0).count() / static_cast<double>(number_)};
  }
  std::int64_t iterations_per_sample() const override { return number_; }

 private:
  PyCall& call_;
  std::int64_t number_;
};

// fn() returning a float, as the value of one sample (a Python exception becomes a C++ one).
struct PyValue {
  PyObject* fn;
  double operator()() {
    PyObject* r = PyObject_CallNoArgs(fn);
    if (!r) {
      nb::python_error e;
      throw std::runtime_error(e.what());
    }
    const double value = PyFloat_AsDouble(r);
    Py_DECREF(r);
    if (value == -1.0 && PyErr_Occurred()) {
      nb::python_error e;
      throw std::runtime_error(e.what());
    }
    return value;
  }
};

// One value, measured once (asv's track, mem and peakmem kinds): no warm-up, one sample, done.
class ValueSampler final : public pitot::detail::Sampler {
 public:
  explicit ValueSampler(PyValue& value) : value_(value) {}
  const char* backend() const override { return "value"; }
  void warmup(double, double) override {}
  pitot::detail::Sample sample() override {
    taken_ = true;
    return {value_()};
  }
  std::int64_t iterations_per_sample() const override { return 1; }
  bool exhausted() const override { return taken_; }

 private:
  PyValue& value_;
  bool taken_ = false;
};

// Host clock: pitot's CPU sampler over fn() (the loop sized so one sample lasts >= 100 us), or
// asv's fixed number of calls per sample.
void exec_cpu(pitot::State& state, nb::callable fn, std::int64_t number, double sample_time, double warmup_time,
              std::int64_t repeat) {
  PyCall call{fn.ptr()};
  pitot::detail::CpuSampler<PyCall> grown(call);
  FixedCountSampler fixed(call, number);
  GilSampler sampler(number > 0 ? static_cast<pitot::detail::Sampler&>(fixed) : grown,
                     Knobs{number, sample_time, warmup_time, repeat});
  nb::gil_scoped_release release;
  pitot::detail::run_schedule(state, sampler);
}

// Manual timing: fn() returns its own seconds per iteration.
void exec_manual(pitot::State& state, nb::callable fn, double warmup_time, std::int64_t repeat) {
  PyValue manual{fn.ptr()};
  pitot::detail::ManualSampler<PyValue> inner(manual);
  GilSampler sampler(inner, Knobs{0, 0, warmup_time, repeat});
  nb::gil_scoped_release release;
  pitot::detail::run_schedule(state, sampler);
}

// A recorded value: fn() once; its number is the point's one sample.
void exec_value(pitot::State& state, nb::callable fn) {
  PyValue value{fn.ptr()};
  ValueSampler inner(value);
  GilSampler sampler(inner);
  nb::gil_scoped_release release;
  pitot::detail::run_schedule(state, sampler);
}

// Device time: the CUDA backend's sampler (cold mode, L2 flush, blocker, clock checks, kernel
// clock) around fn(stream), where stream is pitot's cudaStream_t as an int; the Python side
// makes it the current stream of torch or CuPy for the call.
void exec_device(pitot::State& state, nb::callable fn) {
#if defined(PITOT_PYTHON_CUDA)
  PyObject* f = fn.ptr();
  nb::gil_scoped_release release;
  state.exec([f](pitot::Launch& launch) {
    nb::gil_scoped_acquire gil;
    PyObject* handle = PyLong_FromVoidPtr(static_cast<void*>(launch.stream()));
    if (!handle) {
      nb::python_error e;
      throw std::runtime_error(e.what());
    }
    try {
      call_python(f, handle);
    } catch (...) {
      Py_DECREF(handle);
      throw;
    }
    Py_DECREF(handle);
  });
#else
  (void)fn;
  throw pitot::UsageError("benchmark " + state.benchmark_name() +
                          " is a GPU benchmark, but this pitot module was built without its CUDA backend");
#endif
}

pitot::AxisValue to_value(nb::handle v, pitot::AxisKind kind) {
  if (kind == pitot::AxisKind::String) return nb::cast<std::string>(nb::str(v));
  if (kind == pitot::AxisKind::Float) return nb::cast<double>(v);
  return nb::cast<std::int64_t>(v);
}

// Registers one benchmark. `axes`: (name, kind, values) with kind "int", "float", "string" or
// "pow2" (values are exponents). `fn(state)` runs a point; it returns None, or a str: the reason
// the point failed (the Python side formats the exception and prints its traceback).
// `type`, `unit`: what a sample holds, as asv names it ("time", "seconds" for timed benchmarks).
// `repr_values`: every axis is a string axis of asv's reprs (an asv benchmark's params).
// `asv_key`: the whole asv key when the benchmark sets its own (asv's benchmark_name); else "".
// `multi_rank`: its points run across ranks (docs/ranks.md), as a C++ benchmark's .multi_rank().
void register_benchmark(const std::string& name, nb::callable fn, const std::vector<nb::tuple>& axes,
                        const std::string& version, double timeout, const std::string& source_file,
                        const std::string& code, bool device, const std::string& build_type,
                        const std::string& type, const std::string& unit, bool repr_values,
                        const std::string& asv_key, bool multi_rank) {
  PyObject* f = fn.ptr();
  Py_INCREF(f);  // kept for the life of the process: the registry is destroyed after Python
  // The build asv's env name records: the interpreter ("python3.12"), apart from C++ builds' rows.
  pitot::BuildFlags build{true, true, device, build_type};
  pitot::Benchmark b = pitot::register_benchmark(
      name,
      [f](pitot::State& state) {
        nb::gil_scoped_acquire gil;
        nb::object s = nb::cast(&state, nb::rv_policy::reference);
        PyObject* r = PyObject_CallOneArg(f, s.ptr());
        if (!r) {
          nb::python_error e;
          throw std::runtime_error(e.what());
        }
        std::string failure;
        if (PyUnicode_Check(r)) {
          Py_ssize_t size = 0;
          const char* text = PyUnicode_AsUTF8AndSize(r, &size);
          failure = text ? std::string(text, static_cast<std::size_t>(size)) : "a Python error";
          if (!text) PyErr_Clear();
        }
        Py_DECREF(r);
        if (!failure.empty()) throw std::runtime_error(failure);
      },
      source_file, build);
  for (const auto& a : axes) {
    const auto axis_name = nb::cast<std::string>(a[0]);
    const auto kind = nb::cast<std::string>(a[1]);
    nb::sequence values = nb::cast<nb::sequence>(a[2]);
    if (kind == "pow2") {
      std::vector<int> exponents;
      for (nb::handle v : values) exponents.push_back(nb::cast<int>(v));
      b.axis_pow2(axis_name, exponents);
      continue;
    }
    const pitot::AxisKind k = kind == "int"      ? pitot::AxisKind::Int
                              : kind == "float"  ? pitot::AxisKind::Float
                              : kind == "string" ? pitot::AxisKind::String
                                                 : throw std::invalid_argument("axis " + axis_name + ": unknown kind " + kind);
    if (k == pitot::AxisKind::Int) {
      std::vector<std::int64_t> v;
      for (nb::handle x : values) v.push_back(std::get<std::int64_t>(to_value(x, k)));
      b.axis(axis_name, v);
    } else if (k == pitot::AxisKind::Float) {
      std::vector<double> v;
      for (nb::handle x : values) v.push_back(std::get<double>(to_value(x, k)));
      b.axis(axis_name, v);
    } else {
      std::vector<std::string> v;
      for (nb::handle x : values) v.push_back(std::get<std::string>(to_value(x, k)));
      b.axis(axis_name, v);
    }
  }
  b.version(version);
  b.timeout(timeout);
  if (multi_rank) b.multi_rank();
  pitot::BenchmarkDef& def = pitot::registry().back();
  def.code = code;
  def.type = type;
  def.unit = unit;
  def.repr_values = repr_values;
  def.asv_key = asv_key;
}

// `requirements`: the build this program reports for asv (the interpreter, its version, the GPU
// backend its benchmarks use), in place of the module's compiler and defines (host/machine.hpp).
int run_main(std::vector<std::string> args, std::vector<std::string> self_command,
             std::map<std::string, std::string> requirements) {
  pitot::program::self_command() = std::move(self_command);
  pitot::requirements_override() = std::move(requirements);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  nb::gil_scoped_release release;
  return pitot::program_main(static_cast<int>(args.size()), argv.data());
}

}  // namespace

NB_MODULE(_engine, m) {
  m.doc() = "pitot's C++ engine (registry, sampling, stopping rule, outputs, driver protocol)";
#if defined(PITOT_PYTHON_CUDA)
  m.attr("has_cuda") = true;
#else
  m.attr("has_cuda") = false;
#endif
  nb::class_<pitot::State>(m, "State")
      .def("get_int", &pitot::State::get_int)
      .def("get_float", &pitot::State::get_float)
      .def("get_string", &pitot::State::get_string)
      .def("skip", &pitot::State::skip)
      .def("skipped", &pitot::State::skipped)
      .def("add_items", &pitot::State::add_items)
      .def("add_bytes", &pitot::State::add_bytes)
      .def("add_flops", &pitot::State::add_flops)
      .def("benchmark_name", &pitot::State::benchmark_name)
      .def("point_name", &pitot::State::point_name)
      .def("rank", &pitot::State::rank)
      .def("world_size", &pitot::State::world_size)
      .def("local_rank", [](pitot::State& state) { return pitot::detail::local_rank(state); })
      // Rank 0's bytes on every rank of the point's group (pitot.torch_process_group's port).
      .def("broadcast_bytes", [](pitot::State& state, nb::bytes bytes) {
        const std::string out = pitot::detail::broadcast_bytes(state, std::string_view(bytes.c_str(), bytes.size()));
        return nb::bytes(out.data(), out.size());
      })
      .def("exec_cpu", &exec_cpu, nb::arg("fn"), nb::arg("number") = 0, nb::arg("sample_time") = 0.0,
           nb::arg("warmup_time") = -1.0, nb::arg("repeat") = 0)
      .def("exec_manual", &exec_manual, nb::arg("fn"), nb::arg("warmup_time") = -1.0, nb::arg("repeat") = 0)
      .def("exec_value", &exec_value)
      .def("exec_device", &exec_device)
      // One entry of the point's backend_info, its value as JSON text (which convention timed
      // an asv time_* method: python/pitot/_self_timed.py).
      .def("set_info", [](pitot::State& state, const std::string& key, const std::string& json_value) {
        pitot::detail::set_backend_info(state, key, json_value);
      });
  m.def("register_benchmark", &register_benchmark);
  bind_problem(m);
  m.def("main", &run_main, nb::arg("args"), nb::arg("self_command"), nb::arg("requirements"));
  // The CUDA version the module was built with ("" without CUDA), for the env of GPU benchmarks.
  m.def("cuda_version", [] {
    const auto found = pitot::found_toolkits();
    const auto it = found.find("cuda");
    return it == found.end() ? std::string() : it->second;
  });
  m.def("registered", [] {
    std::vector<std::string> names;
    for (const auto& d : pitot::registry()) names.push_back(d.name);
    return names;
  });
}
