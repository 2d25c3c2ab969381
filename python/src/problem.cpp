// pitot._engine.run_problem: a Python submission timed against a Python problem by the C++ harness
// (include/pitot/problem.hpp, src/core/problem*.cpp, src/gpu/problem.cpp). The problem's functions
// and the submission are Python callables; each std::function of the pitot::Problem built here
// takes the GIL while it calls one, and a Python exception becomes a std::runtime_error carrying its
// text (the Python side, python/pitot/_problem.py, keeps the exception itself and re-raises it).
//
// Views: host buffers reach Python as writable memoryviews cast to the element type (bf16 as 'H',
// its bits); device buffers through `device_view(ptr, count, typestr, stream)`, a Python factory of
// objects with __cuda_array_interface__ (version 3). The submission's views are made once per
// buffer set and handed again on every call (the harness stages each call's inputs into the same
// buffers), so making them is not timed.
#include <nanobind/nanobind.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <pitot/problem.hpp>
#if defined(PITOT_PYTHON_CUDA)
#include <pitot/cuda.hpp>
#endif

namespace nb = nanobind;

namespace {

[[noreturn]] void raise_python() {
  nb::python_error e;
  throw std::runtime_error(e.what());
}

// fn(args...), with the GIL held by the caller; the result, or the Python exception as a C++ one.
nb::object call(const nb::callable& fn, const nb::tuple& args) {
  PyObject* r = PyObject_Call(fn.ptr(), args.ptr(), nullptr);
  if (!r) raise_python();
  return nb::steal(r);
}

const char* format_of(pitot::DType t) {
  switch (t) {
    case pitot::DType::F32: return "f";
    case pitot::DType::F64: return "d";
    case pitot::DType::BF16: return "H";
    case pitot::DType::I32: return "i";
    case pitot::DType::I64: return "q";
    case pitot::DType::U8: return "B";
  }
  return "B";
}

const char* typestr_of(pitot::DType t) {
  switch (t) {
    case pitot::DType::F32: return "<f4";
    case pitot::DType::F64: return "<f8";
    case pitot::DType::BF16: return "<u2";
    case pitot::DType::I32: return "<i4";
    case pitot::DType::I64: return "<i8";
    case pitot::DType::U8: return "|u1";
  }
  return "|u1";
}

pitot::DType dtype_of(const std::string& name) {
  for (auto t : {pitot::DType::F32, pitot::DType::F64, pitot::DType::BF16, pitot::DType::I32, pitot::DType::I64,
                 pitot::DType::U8})
    if (name == pitot::dtype_name(t)) return t;
  throw std::invalid_argument("unknown element type '" + name + "' (f32, f64, bf16, i32, i64, u8)");
}

nb::object host_view(const pitot::Buffer& b) {
  PyObject* mv = PyMemoryView_FromMemory(static_cast<char*>(b.data()), static_cast<Py_ssize_t>(b.bytes()), PyBUF_WRITE);
  if (!mv) raise_python();
  nb::object view = nb::steal(mv);
  PyObject* cast = PyObject_CallMethod(view.ptr(), "cast", "s", format_of(b.dtype()));
  if (!cast) raise_python();
  return nb::steal(cast);
}

nb::tuple host_views(pitot::Buffers bs) {
  nb::list views;
  for (const auto& b : bs) views.append(host_view(b));
  return nb::tuple(views);
}

// Releases host views once their call or point is over, so a view kept past it raises ValueError
// instead of reaching freed memory (one still exported, to numpy say, stays: BufferError ignored).
void release(const nb::object& views) {
  if (!views.is_valid() || !PyTuple_Check(views.ptr())) return;
  for (nb::handle v : nb::borrow<nb::tuple>(views)) {
    if (!PyMemoryView_Check(v.ptr())) continue;
    PyObject* r = PyObject_CallMethod(v.ptr(), "release", nullptr);
    if (r) Py_DECREF(r);
    else PyErr_Clear();
  }
}

// Calls fn(args...) on host views made for the call, released after it.
void call_on_views(const nb::callable& fn, const nb::tuple& args) {
  try {
    call(fn, args);
  } catch (...) {
    for (nb::handle a : args) release(nb::borrow(a));
    throw;
  }
  for (nb::handle a : args) release(nb::borrow(a));
}

// The buffers' views, made again only when the buffers (or the stream) change.
struct ViewCache {
  std::vector<const void*> key;
  nb::object views;
  ~ViewCache() { release(views); }  // with the GIL held (see run_problem)
  template <class Make>
  nb::object get(pitot::Buffers bs, const void* stream, Make make) {
    std::vector<const void*> k{stream};
    for (const auto& b : bs) k.push_back(b.data());
    if (!views.is_valid() || k != key) {
      release(views);
      views = make();
      key = std::move(k);
    }
    return views;
  }
};

std::vector<pitot::BufferSpec> specs(const nb::callable& fn) {
  nb::gil_scoped_acquire gil;
  std::vector<pitot::BufferSpec> out;
  for (nb::handle t : call(fn, nb::tuple())) {
    nb::tuple spec = nb::cast<nb::tuple>(t);
    out.push_back({nb::cast<std::string>(spec[0]), dtype_of(nb::cast<std::string>(spec[1])),
                   nb::cast<std::int64_t>(spec[2])});
  }
  return out;
}

// `spec`: (name, inputs, outputs, generate, reference, atol, rtol, exact, work, draws,
// inputs_independent, deterministic), the callables taking no shape (the Python side binds the
// point's). `submit(ins, outs)` on the CPU; `submit(ins, outs, stream)` with `device_view` on CUDA.
void run_problem(pitot::State& state, nb::tuple spec, nb::callable submit, nb::object device_view) {
  const nb::callable inputs = nb::cast<nb::callable>(spec[1]), outputs = nb::cast<nb::callable>(spec[2]);
  const nb::callable generate = nb::cast<nb::callable>(spec[3]), reference = nb::cast<nb::callable>(spec[4]);
  const nb::object work = spec[8];
  pitot::Problem p;
  p.name = nb::cast<std::string>(spec[0]);
  p.inputs = [&](const pitot::Shape&) { return specs(inputs); };
  p.outputs = [&](const pitot::Shape&) { return specs(outputs); };
  p.generate = [&](const pitot::Shape&, std::uint64_t seed, pitot::Buffers in) {
    nb::gil_scoped_acquire gil;
    call_on_views(generate, nb::make_tuple(seed, host_views(in)));
  };
  p.reference = [&](const pitot::Shape&, pitot::Buffers in, pitot::Buffers expected) {
    nb::gil_scoped_acquire gil;
    call_on_views(reference, nb::make_tuple(host_views(in), host_views(expected)));
  };
  p.tolerance = nb::cast<bool>(spec[7]) ? pitot::Tolerance::bit_exact()
                                        : pitot::Tolerance::close(nb::cast<double>(spec[5]), nb::cast<double>(spec[6]));
  if (!work.is_none())
    p.work = [&](const pitot::Shape&) {
      nb::gil_scoped_acquire gil;
      nb::tuple w = nb::cast<nb::tuple>(call(nb::cast<nb::callable>(work), nb::tuple()));
      return pitot::Work{nb::cast<double>(w[0]), nb::cast<double>(w[1])};
    };
  p.draws = nb::cast<int>(spec[9]);
  p.inputs_independent = nb::cast<bool>(spec[10]);
  p.deterministic = nb::cast<bool>(spec[11]);
  // The checker's fork as os.fork does it: with the GIL taken and the interpreter told, so the
  // child (which calls generate and reference) does not wait for a GIL another thread held at the
  // fork. Its at-fork hooks (os.register_at_fork) run too.
  PyGILState_STATE fork_gil{};
  p.fork_guard.before = [&fork_gil] {
    fork_gil = PyGILState_Ensure();
    PyOS_BeforeFork();
  };
  p.fork_guard.parent = [&fork_gil] {
    PyOS_AfterFork_Parent();
    PyGILState_Release(fork_gil);
  };
  p.fork_guard.child = [] { PyOS_AfterFork_Child(); };  // the GIL stays this thread's in the checker

  ViewCache in_views, out_views;  // destroyed after `no_gil` below, with the GIL held
  if (device_view.is_none()) {
    pitot::CpuSubmission cpu = [&](pitot::Buffers in, pitot::Buffers out) {
      nb::gil_scoped_acquire gil;
      nb::object i = in_views.get(in, nullptr, [&] { return host_views(in); });
      nb::object o = out_views.get(out, nullptr, [&] { return host_views(out); });
      call(submit, nb::make_tuple(i, o));
    };
    nb::gil_scoped_release no_gil;
    pitot::detail::run_problem(state, p, cpu);
    return;
  }
#if defined(PITOT_PYTHON_CUDA)
  const nb::callable make_view = nb::cast<nb::callable>(device_view);
  auto device_views = [&](pitot::Buffers bs, void* stream) {
    nb::list views;
    for (const auto& b : bs)
      views.append(call(make_view, nb::make_tuple(reinterpret_cast<std::uintptr_t>(b.data()), b.count(),
                                                  typestr_of(b.dtype()), reinterpret_cast<std::uintptr_t>(stream))));
    return nb::object(nb::tuple(views));
  };
  pitot::DeviceSubmission gpu = [&](pitot::Buffers in, pitot::Buffers out, pitot::Launch& l) {
    nb::gil_scoped_acquire gil;
    void* stream = static_cast<void*>(l.stream());
    nb::object i = in_views.get(in, stream, [&] { return device_views(in, stream); });
    nb::object o = out_views.get(out, stream, [&] { return device_views(out, stream); });
    call(submit, nb::make_tuple(i, o, reinterpret_cast<std::uintptr_t>(stream)));
  };
  nb::gil_scoped_release no_gil;
  pitot::detail::run_problem(state, p, gpu);
#else
  throw pitot::UsageError("submission " + state.benchmark_name() +
                          " is a GPU submission, but this pitot module was built without its CUDA backend");
#endif
}

}  // namespace

void bind_problem(nb::module_& m) {
  m.def("run_problem", &run_problem, nb::arg("state"), nb::arg("spec"), nb::arg("submit"),
        nb::arg("device_view").none() = nb::none());
}
