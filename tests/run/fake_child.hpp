// The fakes of pitot run's ProgramRunner tests (test_program_runner.cpp, test_untrusted_runner.cpp):
// a scripted fake child on a fake clock, a recorder of what the runner reports, a fake program,
// and the fixture that runs them. No process is started and no second passes: time moves only in
// the fake wait().
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/protocol.hpp"
#include "driver/common/manifest.hpp"
#include "driver/run/program_runner.hpp"

namespace pitot::test_run {

using namespace pitot;
using namespace pitot::driver;
using namespace pitot::driver::run;
using std::chrono::milliseconds;

// The fake clock: a child's wait() moves it on by the time waited.
struct FakeTime {
  SteadyClock::time_point now{};
};

// What one fake child writes, when (seconds after its start), and how it ends (no end: it hangs
// until killed).
struct Script {
  std::vector<std::pair<double, std::string>> lines;
  std::optional<ChildEnd> end;
  double end_at = 0;
  std::string stderr_text;
  double cursor = 0;

  Script& after(double seconds) {
    cursor += seconds;
    return *this;
  }
  Script& line(std::string text) {
    lines.emplace_back(cursor, std::move(text));
    return *this;
  }
  Script& exit(int code) {
    end = ChildEnd{true, code, 0};
    end_at = cursor;
    return *this;
  }
  Script& signal(int number) {
    end = ChildEnd{false, 0, number};
    end_at = cursor;
    return *this;
  }
};

class FakeChild final : public ChildProcess {
 public:
  FakeChild(Script script, FakeTime& time) : script_(std::move(script)), time_(time), started_(time.now) {}

  std::vector<std::string> wait(milliseconds timeout) override {
    time_.now += timeout;
    if (killed_) {
      running_ = false;
      end_ = ChildEnd{false, 0, SIGKILL};
      return {};
    }
    const double t = std::chrono::duration<double>(time_.now - started_).count();
    std::vector<std::string> out;
    while (next_ < script_.lines.size() && script_.lines[next_].first <= t) out.push_back(script_.lines[next_++].second);
    if (script_.end && script_.end_at <= t && next_ == script_.lines.size()) {
      running_ = false;
      end_ = *script_.end;
    }
    return out;
  }
  bool running() const override { return running_; }
  const ChildEnd& end() const override { return end_; }
  void kill_group() override { killed_ = true; }
  bool line_overflow() const override { return false; }
  const std::string& stderr_text() const override { return script_.stderr_text; }

 private:
  Script script_;
  FakeTime& time_;
  SteadyClock::time_point started_;
  std::size_t next_ = 0;
  bool running_ = true, killed_ = false;
  ChildEnd end_;
};

// What the runner asked a child for.
struct Request {
  std::vector<int> points;
  bool serial = false;
  std::vector<std::string> argv;
};

inline Request read_request(const std::vector<std::string>& argv) {
  Request r;
  r.argv = argv;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--no-interleave") r.serial = true;
    if (argv[i] != "--points" || i + 1 >= argv.size()) continue;
    std::string list = argv[i + 1];
    std::size_t pos = 0;
    while (pos <= list.size()) {
      const std::size_t comma = std::min(list.find(',', pos), list.size());
      const std::string part = list.substr(pos, comma - pos);
      const std::size_t dash = part.find('-');
      const int lo = std::stoi(part.substr(0, dash));
      const int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
      for (int id = lo; id <= hi; ++id) r.points.push_back(id);
      pos = comma + 1;
    }
  }
  return r;
}

// Records what the runner reports.
struct Recorder final : RunnerOutput {
  std::map<int, PointResult> points;
  int records_of_the_same_point = 0;
  std::vector<std::string> notes;
  void record(std::vector<PointResult> ps) override {
    for (auto& p : ps) {
      records_of_the_same_point += points.count(p.id);
      points[p.id] = std::move(p);
    }
  }
  void note(const std::string& line) override { notes.push_back(line); }
  void running(const std::string&) override {}
  void tick() override {}
};

// A program "fake" with one benchmark "b" of `n` points (b[n=0], b[n=1], ...) whose .timeout() is
// `timeout` seconds, read through the protocol as the driver reads a real one.
inline ProgramInfo fake_program(int n, double timeout = 60) {
  BenchmarkInfo b;
  b.program = "fake";
  b.name = "b";
  b.timeout_seconds = timeout;
  Axis axis;
  axis.name = "n";
  for (int i = 0; i < n; ++i) axis.values.emplace_back(std::int64_t{i});
  b.axes.push_back(axis);
  ListAnswer answer;
  answer.program = "fake";
  answer.benchmarks.push_back(b);
  for (int i = 0; i < n; ++i) answer.points.push_back({i, "b[n=" + std::to_string(i) + "]", "b"});
  return parse_list({"fake", "/fake/fake", {}}, to_json(answer));
}

// How a point of the fake program behaves when its turn comes.
enum class Fault { None, Segv, Hang, Exit2, HangInSetup };

class RunnerTest : public testing::Test {
 protected:
  // A pitot program that announces each point, and reports it unless its fault strikes first.
  // Interleaved, it starts up to `window` points before the first finishes (as the engine does).
  Script pitot_like(const Request& r) {
    Script s;
    const std::size_t window = r.serial ? 1 : std::min<std::size_t>(8, r.points.size());
    std::size_t started = 0;
    auto start_next = [&] {
      const int id = r.points[started++];
      s.after(0.01).line(to_json(StartMessage{id}).dump());
      return id;
    };
    for (std::size_t done = 0; done < r.points.size(); ++done) {
      while (started < r.points.size() && started < done + window) {
        const int id = start_next();
        if (faults[id] == Fault::HangInSetup) return s;  // holds its first turn forever
      }
      const int id = r.points[done];
      switch (faults[id]) {
        case Fault::Segv: return s.after(0.01).signal(SIGSEGV);
        case Fault::Hang: return s;
        case Fault::Exit2: return s.after(0.01).exit(2);
        case Fault::None:
        case Fault::HangInSetup: break;
      }
      PointResult p = skeleton(program, *planned(id));
      p.status = PointStatus::Ok;
      p.samples = {1e-6, 1e-6, 1e-6};
      s.after(0.01).line(to_json(PointMessage{p}).dump());
    }
    return s.line(to_json(DoneMessage{}).dump()).exit(0);
  }

  const PlannedPoint* planned(int id) const { return &program.points.at(static_cast<std::size_t>(id)); }

  void run(std::function<Script(const Request&)> behaviour = nullptr) {
    if (!behaviour) behaviour = [this](const Request& r) { return pitot_like(r); };
    std::vector<const PlannedPoint*> points;
    for (const auto& p : program.points) points.push_back(&p);
    StartChild start = [&](const std::vector<std::string>& argv) -> std::unique_ptr<ChildProcess> {
      requests.push_back(read_request(argv));
      return std::make_unique<FakeChild>(behaviour(requests.back()), time);
    };
    ProgramRunner(settings, program, points, out, interrupted, start, [this] { return time.now; }).run();
  }

  std::vector<int> ok_points() const {
    std::vector<int> ids;
    for (const auto& [id, p] : out.points)
      if (p.status == PointStatus::Ok) ids.push_back(id);
    return ids;
  }
  std::vector<int> failed_points() const {
    std::vector<int> ids;
    for (const auto& [id, p] : out.points)
      if (p.status == PointStatus::Failed) ids.push_back(id);
    return ids;
  }
  const std::string& reason(int id) const { return out.points.at(id).reason; }

  ProgramInfo program = fake_program(4);
  RunnerSettings settings;
  std::map<int, Fault> faults;
  FakeTime time;
  std::atomic<bool> interrupted{false};
  Recorder out;
  std::vector<Request> requests;
};

}  // namespace pitot::test_run
