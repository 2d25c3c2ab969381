// Unit tests of pitot profile's parts: the profiler plug-ins (command lines, follow-ups, artifacts),
// size parsing, noise filter, the package plan (dropping order), CSV/ncu summary, CUPTI trace
// merging, the process runner.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>
#include <zlib.h>

#include <nlohmann/json.hpp>

#include "driver/common/files.hpp"
#include "driver/common/manifest.hpp"
#include "process/process.hpp"
#include "driver/profile/noise.hpp"
#include "driver/profile/options.hpp"
#include "driver/profile/package.hpp"
#include "driver/profile/profiler.hpp"
#include "driver/profile/steps.hpp"
#include "driver/profile/summary.hpp"
#include "driver/profile/trace.hpp"

namespace fs = std::filesystem;
using namespace pitot::driver::profile;
using pitot::driver::find_program;
using pitot::driver::ProgramRef;
using pitot::run_captured;

namespace {

// A program found at `path` (an executable: no interpreter).
ProgramRef ref(const std::string& path) { return {fs::path(path).filename().string(), path, {}}; }

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("pitot-profile-test-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// The value after `flag` in argv.
std::string after(const std::vector<std::string>& v, const std::string& flag) {
  auto it = std::find(v.begin(), v.end(), flag);
  return it == v.end() || it + 1 == v.end() ? "<absent>" : *(it + 1);
}

const Profiler& tool(const char* name) {
  const Profiler* p = profiler_named(name);
  if (!p) throw std::logic_error(std::string("no plug-in ") + name);
  return *p;
}

}  // namespace

TEST(ProfileSize, ParsesUnits) {
  EXPECT_EQ(parse_size("8MB"), 8'000'000u);
  EXPECT_EQ(parse_size("500kB"), 500'000u);
  EXPECT_EQ(parse_size("2MiB"), 2u << 20);
  EXPECT_EQ(parse_size("1.5 GB"), 1'500'000'000u);
  EXPECT_EQ(parse_size("12345"), 12345u);
  EXPECT_THROW(parse_size("8 parsecs"), std::invalid_argument);
  EXPECT_THROW(parse_size(""), std::invalid_argument);
  EXPECT_THROW(parse_size("0"), std::invalid_argument);
  EXPECT_EQ(format_bytes(7'600'000), "7.6 MB");
}

TEST(ProfileTools, ParsesToolNames) {
  EXPECT_EQ(profiler_named("ncu"), &ncu_profiler());
  EXPECT_EQ(profiler_named("rocprofv3"), &rocprofv3_profiler());
  EXPECT_EQ(profiler_named("nvprof"), nullptr);
  EXPECT_EQ(profiler_names(), (std::vector<std::string>{"ncu", "nsys", "cupti", "rocprofv3"}));
}

TEST(ProfileTools, NcuCommandCapturesByRangeWithChosenSetAndClocks) {
  Options o;
  o.ncu_set = "basic";
  o.clock_control = "none";
  o.filter = "gemm.*M=4096";
  o.tool_args = {"--cache-control=none"};
  Layout layout{"/w"};
  auto prog = program_command(o, ref("/b/bench_gemm"), layout);
  auto c = tool("ncu").command(o, "/t/ncu", prog, layout);
  EXPECT_EQ(c.argv.front(), "/t/ncu");
  EXPECT_EQ(after(c.argv, "--nvtx-include"), "regex:pitot:.*/");
  EXPECT_TRUE(contains(c.argv, "--nvtx"));
  EXPECT_EQ(after(c.argv, "--set"), "basic");
  EXPECT_EQ(after(c.argv, "--clock-control"), "none");
  EXPECT_EQ(after(c.argv, "--target-processes"), "all");
  EXPECT_EQ(after(c.argv, "--export"), "/w/profile/report");
  // Tool options come before "--", the program and its selection after.
  auto dashes = std::find(c.argv.begin(), c.argv.end(), "--");
  ASSERT_NE(dashes, c.argv.end());
  EXPECT_LT(std::find(c.argv.begin(), c.argv.end(), "--cache-control=none"), dashes);
  std::vector<std::string> tail(dashes + 1, c.argv.end());
  EXPECT_EQ(tail, prog);
  EXPECT_EQ(tail[0], "/b/bench_gemm");
  EXPECT_TRUE(contains(tail, "--profile"));
  EXPECT_EQ(after(tail, "--filter"), "gemm.*M=4096");
  EXPECT_EQ(after(tail, "--json"), "/w/results.json");
  EXPECT_TRUE(c.env.empty());
}

TEST(ProfileTools, CommandsAreBuiltFreshEachTime) {
  // The bug not to repeat: a shared flag list that grows with every run.
  Options o;
  o.tool_args = {"--extra"};
  Layout layout{"/w"};
  auto prog = program_command(o, ref("/b/p"), layout);
  auto first = tool("rocprofv3").command(o, "/t/rocprofv3", prog, layout);
  auto second = tool("rocprofv3").command(o, "/t/rocprofv3", prog, layout);
  EXPECT_EQ(first.argv, second.argv);
  EXPECT_EQ(std::count(second.argv.begin(), second.argv.end(), "--extra"), 1);
  EXPECT_EQ(program_command(o, ref("/b/p"), layout), prog);
}

TEST(ProfileTools, RocprofCommandHasTracesFormatsAndNoHsaUnlessAsked) {
  Options o;
  Layout layout{"/w"};
  auto c = tool("rocprofv3").command(o, "/t/rocprofv3", program_command(o, ref("/b/p"), layout), layout);
  for (const char* flag : {"--kernel-trace", "--hip-trace", "--marker-trace", "--memory-copy-trace", "--scratch-memory-trace"})
    EXPECT_TRUE(contains(c.argv, flag)) << flag;
  EXPECT_FALSE(contains(c.argv, "--hsa-trace"));
  auto fmt_at = std::find(c.argv.begin(), c.argv.end(), "--output-format");
  ASSERT_NE(fmt_at, c.argv.end());
  EXPECT_EQ(*(fmt_at + 1), "pftrace");
  EXPECT_EQ(*(fmt_at + 2), "csv");
  EXPECT_EQ(after(c.argv, "--output-file"), "%pid%");
  EXPECT_TRUE(c.cwd.empty());
  o.hsa_trace = true;
  o.code_objects = true;
  c = tool("rocprofv3").command(o, "/t/rocprofv3", program_command(o, ref("/b/p"), layout), layout);
  EXPECT_TRUE(contains(c.argv, "--hsa-trace"));
  EXPECT_EQ(c.cwd, fs::path("/w/code-objects"));
  ASSERT_EQ(c.env.size(), 1u);
  EXPECT_EQ(c.env[0].first, "GPU_DUMP_CODE_OBJECT");
}

TEST(ProfileTools, CuptiRunsTheProgramItselfWithTheInjection) {
  Options o;
  Layout layout{"/w"};
  auto prog = program_command(o, ref("/b/p"), layout);
  auto c = tool("cupti").command(o, "/lib/libpitot_cupti.so", prog, layout);
  EXPECT_EQ(c.argv, prog);
  std::map<std::string, std::string> env(c.env.begin(), c.env.end());
  EXPECT_EQ(env["CUDA_INJECTION64_PATH"], "/lib/libpitot_cupti.so");
  EXPECT_EQ(env["PITOT_CUPTI_DIR"], "/w/profile/cupti");
  EXPECT_EQ(env["PITOT_CUPTI_CAPTURE"], "profiler-api");
}

TEST(ProfileTools, NsysCapturesFromTheProfilerApi) {
  Options o;
  Layout layout{"/w"};
  auto c = tool("nsys").command(o, "/t/nsys", program_command(o, ref("/b/p"), layout), layout);
  EXPECT_EQ(c.argv[1], "profile");
  EXPECT_EQ(after(c.argv, "--capture-range"), "cudaProfilerApi");
  EXPECT_EQ(after(c.argv, "--trace"), "cuda,nvtx,osrt");
}

// --- the plug-ins, all from the same options ------------------------------------------------------

namespace {

// Options that touch every part of every command line.
Options every_option() {
  Options o;
  o.filter = "copy";
  o.axes = {"n=1024"};
  o.program_args = {"--timing", "hot"};
  o.tool_args = {"--extra=1"};
  o.ncu_set = "basic";
  o.clock_control = "none";
  return o;
}

// What each tool would write where its command line tells it to (as the stand-ins in fake/ do).
void pretend_tool_ran(const Profiler& p, const ToolCommand& c, const Layout& layout) {
  const std::string name = p.name();
  if (name == "ncu") {
    std::ofstream(after(c.argv, "--export") + ".ncu-rep") << "report";
  } else if (name == "nsys") {
    std::ofstream(after(c.argv, "--output") + ".nsys-rep") << "report";
  } else if (name == "rocprofv3") {
    fs::path dir = after(c.argv, "--output-directory");
    fs::create_directories(dir / "host");  // rocprofv3 makes its own folders
    std::ofstream(dir / "host" / "42_results.pftrace") << "PF";
    std::ofstream(dir / "host" / "42_kernel_stats.csv") << "Name,Calls\ncopy,1\n";
  } else if (name == "cupti") {
    std::map<std::string, std::string> env(c.env.begin(), c.env.end());
    // The tracer does not make its folder: the plug-in's folders() must have.
    ASSERT_TRUE(fs::is_directory(env["PITOT_CUPTI_DIR"])) << env["PITOT_CUPTI_DIR"];
    std::string trace =
        "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"cat\":\"nvtx\",\"name\":\"pitot:copy[n=1024]\",\"pid\":7,\"tid\":1,\"ts\":10.0,\"dur\":5.0}\n]}\n";
    gzFile gz = gzopen((fs::path(env["PITOT_CUPTI_DIR"]) / "trace-7.json.gz").c_str(), "wb");
    gzwrite(gz, trace.data(), static_cast<unsigned>(trace.size()));
    gzclose(gz);
  }
  (void)layout;
}

// What the follow-ups would print.
void pretend_followups_ran(const std::vector<Followup>& followups) {
  for (const auto& f : followups) {
    ASSERT_TRUE(fs::exists(f.input)) << "a follow-up reads " << f.input << ", which the tool did not write";
    if (f.output.filename() == "ncu-raw.csv") {
      std::ofstream(f.output) << "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"usecond\"\n"
                                 "\"0\",\"copy_kernel\",\"2.5\"\n";
    } else if (f.argv.size() > 1 && f.argv[1] == "stats") {
      std::ofstream(after(f.argv, "--output") + "_cuda_gpu_kern_sum.csv") << "Time (%),Name\n100.0,copy_kernel\n";
      std::ofstream(f.output) << "log\n";
    } else {
      std::ofstream(f.output) << "text\n";
    }
  }
}

std::vector<std::string> artifact_names(const std::vector<Artifact>& list) {
  std::vector<std::string> out;
  for (const auto& a : list) out.push_back(a.name);
  return out;
}

}  // namespace

TEST(ProfilePlugins, EveryToolRunsTheSameProgramWithItsOptionsBeforeIt) {
  const Options o = every_option();
  const Layout layout{"/w"};
  const auto prog = program_command(o, ref("/b/bench"), layout);
  for (const Profiler* p : profilers()) {
    SCOPED_TRACE(p->name());
    const auto c = p->command(o, "/t/" + p->name(), prog, layout);
    if (p->what_runs() == "the program") {  // a tracer inside the program: the program is the process
      EXPECT_EQ(c.argv, prog);
      continue;
    }
    EXPECT_EQ(c.argv.front(), "/t/" + p->name());
    auto dashes = std::find(c.argv.begin(), c.argv.end(), "--");
    ASSERT_NE(dashes, c.argv.end());
    EXPECT_EQ(std::vector<std::string>(dashes + 1, c.argv.end()), prog);
    EXPECT_EQ(std::count(c.argv.begin(), dashes, "--extra=1"), 1);
    // Everything the tool writes goes under the working folder.
    for (const char* flag : {"--export", "--output", "--output-directory"}) {
      if (contains(c.argv, flag)) {
        EXPECT_EQ(after(c.argv, flag).rfind("/w/profile/", 0), 0u) << flag;
      }
    }
  }
}

TEST(ProfilePlugins, CollectFindsWhatTheCommandToldTheToolToWrite) {
  const std::map<std::string, std::vector<std::string>> expected = {
      {"ncu", {"profile/report.ncu-rep", "profile/ncu-details.txt", "profile/ncu-raw.csv"}},
      {"nsys", {"profile/report.nsys-rep", "profile/stats_cuda_gpu_kern_sum.csv"}},
      {"cupti", {"profile/trace.json.gz"}},
      {"rocprofv3", {"profile/trace.pftrace", "profile/rocprof/host/42_kernel_stats.csv"}},
  };
  const fs::path root = temp_dir("plugins");
  Options o = every_option();
  for (const Profiler* p : profilers()) {
    SCOPED_TRACE(p->name());
    o.keep_dir = (root / p->name()).string();
    const Layout layout = prepare_folders(o, *p, root / "out.zip");
    const auto c = p->command(o, "/t/" + p->name(), program_command(o, ref("/b/bench"), layout), layout);
    pretend_tool_ran(*p, c, layout);
    const auto followups = p->followups("/t/" + p->name(), layout);
    pretend_followups_ran(followups);
    const Collected got = p->collect(o, layout);
    EXPECT_EQ(artifact_names(got.artifacts), expected.at(p->name()));
    EXPECT_EQ(std::count_if(got.artifacts.begin(), got.artifacts.end(), [](const Artifact& a) { return a.rank == kEssential; }), 1);
    for (const auto& a : got.artifacts) EXPECT_TRUE(fs::is_regular_file(a.source)) << a.source;
    EXPECT_FALSE(got.summary.empty());
    // The follow-ups read the report that the collected essential artifact is made of.
    for (const auto& f : followups) EXPECT_EQ(f.input, got.artifacts.front().source);
  }
  fs::remove_all(root);
}

TEST(ProfilePlugins, NothingWrittenMeansNoEssentialArtifact) {
  const fs::path root = temp_dir("plugins-empty");
  Options o = every_option();
  for (const Profiler* p : profilers()) {
    SCOPED_TRACE(p->name());
    o.keep_dir = (root / p->name()).string();
    const Layout layout = prepare_folders(o, *p, root / "out.zip");
    const Collected got = p->collect(o, layout);
    EXPECT_TRUE(got.artifacts.empty()) << artifact_names(got.artifacts).size();
  }
  fs::remove_all(root);
}

TEST(ProfilePlugins, CodeObjectsComeFromCuobjdumpOrTheHipRuntime) {
  const fs::path root = temp_dir("plugins-code");
  Options o;
  o.code_objects = true;
  o.keep_dir = (root / "work").string();
  const Layout layout = prepare_folders(o, rocprofv3_profiler(), root / "out.zip");
  ASSERT_TRUE(fs::is_directory(layout.code_dir()));
  // rocprofv3 runs the program in the code-objects folder, where HIP dumps them.
  EXPECT_EQ(rocprofv3_profiler().command(o, "/t/rocprofv3", {"/b/p"}, layout).cwd, layout.code_dir());
  std::ofstream(layout.code_dir() / "_Z4copy.co") << "ELF";
  EXPECT_EQ(artifact_names(rocprofv3_profiler().code_objects("/b/p", "/t/rocprofv3", layout).artifacts),
            (std::vector<std::string>{"code-objects/_Z4copy.co"}));
  // CUDA tools ask cuobjdump (a stand-in here) for SASS and PTX.
  const fs::path bin = root / "bin";
  fs::create_directories(bin);
  std::ofstream(bin / "cuobjdump") << "#!/bin/sh\necho \"listing $1\"\n";
  fs::permissions(bin / "cuobjdump", fs::perms::owner_all);
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", (bin.string() + ":" + saved).c_str(), 1);
  const Collected cuda = ncu_profiler().code_objects("/b/p", "/t/ncu", layout);
  setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(artifact_names(cuda.artifacts), (std::vector<std::string>{"code-objects/sass.txt", "code-objects/ptx.txt"}));
  EXPECT_EQ(pitot::driver::read_tail(layout.code_dir() / "sass.txt", 100), "listing -sass\n");
  EXPECT_TRUE(cuda.notes.empty());
  fs::remove_all(root);
}

TEST(ProfileFiles, ReadTailKeepsTheEnd) {
  const fs::path d = temp_dir("tail");
  std::ofstream(d / "f") << "0123456789";
  EXPECT_EQ(pitot::driver::read_tail(d / "f", 4), "6789");
  EXPECT_EQ(pitot::driver::read_tail(d / "f", 100), "0123456789");
  EXPECT_EQ(pitot::driver::read_tail(d / "missing", 4), "");
  fs::remove_all(d);
}

TEST(ProfileTools, MissingToolIsNamed) {
  const char* old = std::getenv("PATH");
  std::string saved = old ? old : "";
  setenv("PATH", "/nonexistent-pitot-test", 1);
  try {
    tool("ncu").find("", "/x/pitot");
    ADD_FAILURE() << "no error";
  } catch (const ToolError& e) {
    EXPECT_NE(std::string(e.what()).find("ncu"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--tool-path"), std::string::npos) << e.what();
  }
  setenv("PATH", saved.c_str(), 1);
  EXPECT_THROW(tool("rocprofv3").find("/nonexistent/rocprofv3", "/x/pitot"), ToolError);
  EXPECT_THROW(tool("cupti").find("", "/nonexistent/bin/pitot"), ToolError);
}

// The tracer is named by PITOT_CUPTI_TRACER (or its first name, PITOT_CUPTI_LIBRARY), never by
// PITOT_CUPTI_LIB, which names NVIDIA's libcupti for the kernel clock.
TEST(ProfileTools, CuptiTracerIsFoundByItsOwnVariable) {
  const fs::path d = temp_dir("tracer");
  const fs::path lib = d / "libpitot_cupti.so";
  std::ofstream(lib) << "not a real library";
  for (const char* name : {"PITOT_CUPTI_TRACER", "PITOT_CUPTI_LIBRARY"}) {
    setenv(name, lib.c_str(), 1);
    EXPECT_EQ(tool("cupti").find("", "/nonexistent/bin/pitot"), fs::absolute(lib)) << name;
    unsetenv(name);
  }
  setenv("PITOT_CUPTI_LIB", lib.c_str(), 1);
  try {
    tool("cupti").find("", "/nonexistent/bin/pitot");
    ADD_FAILURE() << "PITOT_CUPTI_LIB must not name the tracer";
  } catch (const ToolError& e) {
    EXPECT_NE(std::string(e.what()).find("PITOT_CUPTI_TRACER"), std::string::npos) << e.what();
  }
  unsetenv("PITOT_CUPTI_LIB");
  fs::remove_all(d);
}

TEST(ProfileTools, VersionLineIsTheOneWithANumber) {
  EXPECT_EQ(version_from_output("NVIDIA (R) Nsight Compute Command Line Profiler\nCopyright (c) 2018\nVersion 2025.3.1.0 (build 1)\n"),
            "Version 2025.3.1.0 (build 1)");
  EXPECT_EQ(version_from_output("NVIDIA Nsight Systems version 2025.1.1\n"), "NVIDIA Nsight Systems version 2025.1.1");
  EXPECT_EQ(version_from_output("\nno number here\n"), "no number here");
}

TEST(ProfileNoise, RemovesBannersKeepsErrorsAndProgramLines) {
  const std::string text =
      "==PROF== Connected to process 1 (bench)\n"
      "bench: point 3 failed: out of memory\n"
      "==WARNING== Found outstanding GPU clock reset\n"
      "==ERROR== The application returned an error code (1).\n"
      "[  0.123] perfetto.cc:42 Configured tracing session 1\n"
      "W20250601 10:11:12.123456 4242 config.cpp:88] a default\n"
      "E20250601 10:11:12.123456 4242 config.cpp:88] a real error\n"
      "Collecting data...\n"
      " - 31 passes\n"
      "0%....50%....100%\n"
      "[1/1] [=====100%] report.nsys-rep\n"
      "the program said [1/1] in the middle\n";
  std::size_t removed = 0;
  std::string kept = filter_noise(text, &removed);
  EXPECT_EQ(removed, 8u);
  EXPECT_EQ(kept,
            "bench: point 3 failed: out of memory\n"
            "==ERROR== The application returned an error code (1).\n"
            "E20250601 10:11:12.123456 4242 config.cpp:88] a real error\n"
            "the program said [1/1] in the middle\n");
  EXPECT_EQ(last_lines("a\nb\nc\n", 2), "b\nc\n");
  EXPECT_EQ(last_lines("a\nb", 5), "a\nb");
}

namespace {
Artifact art(const std::string& name, int rank, std::uint64_t packed) {
  Artifact a;
  a.name = name;
  a.rank = rank;
  a.bytes = a.packed = packed;
  return a;
}
std::vector<std::string> names(const std::vector<Dropped>& d) {
  std::vector<std::string> out;
  for (const auto& x : d) out.push_back(x.artifact.name);
  return out;
}
}  // namespace

TEST(ProfilePackage, KeepsEverythingThatFits) {
  auto plan = plan_package({art("report", kEssential, 1000), art("sass", kCodeObjects, 1000)}, 1'000'000, 0);
  EXPECT_TRUE(plan.dropped.empty());
  EXPECT_TRUE(plan.essential_fits);
  EXPECT_EQ(plan.kept.size(), 2u);
}

TEST(ProfilePackage, DropsByRankThenLargestFirst) {
  std::vector<Artifact> all = {
      art("manifest-core", kCore, 1000),
      art("report", kEssential, 100'000),
      art("details", kSummaryData, 50'000),
      art("stdout", kRawStreams, 60'000),
      art("raw.csv", kToolSideData, 40'000),
      art("ptx", kCodeObjects, 30'000),
      art("sass", kCodeObjects, 80'000),
  };
  // Room for core + report + details + a little: code objects go (largest first), then side data,
  // then streams; the details stay.
  auto plan = plan_package(all, 160'000, 0);
  EXPECT_EQ(names(plan.dropped), (std::vector<std::string>{"sass", "ptx", "raw.csv", "stdout"}));
  EXPECT_TRUE(plan.essential_fits);
  EXPECT_LE(plan.estimate, 160'000u);
  for (const auto& d : plan.dropped) EXPECT_NE(d.reason.find("budget"), std::string::npos);
}

TEST(ProfilePackage, EssentialTooBigKeepsOnlyTheCore) {
  auto plan = plan_package({art("manifest-core", kCore, 1000), art("report", kEssential, 5'000'000),
                            art("sass", kCodeObjects, 10)},
                           1'000'000, 0);
  EXPECT_FALSE(plan.essential_fits);
  ASSERT_EQ(plan.kept.size(), 1u);
  EXPECT_EQ(plan.kept[0].name, "manifest-core");
  EXPECT_EQ(names(plan.dropped), (std::vector<std::string>{"sass", "report"}));
  EXPECT_NE(plan.dropped[1].reason.find("folder"), std::string::npos);
}

TEST(ProfilePackage, ReserveCountsAgainstTheBudget) {
  auto plan = plan_package({art("report", kEssential, 500), art("sass", kCodeObjects, 500)}, 2000, 1000);
  EXPECT_EQ(names(plan.dropped), (std::vector<std::string>{"sass"}));
}

TEST(ProfilePackage, WritesAZipWithinTheEstimate) {
  fs::path d = temp_dir("zip");
  {
    std::ofstream(d / "a.txt") << std::string(100'000, 'x');
    std::ofstream(d / "b.bin") << "already compressed";
  }
  Artifact a{"dir/a.txt", d / "a.txt", "summary", "", kSummaryData, false};
  Artifact b{"b.bin", d / "b.bin", "trace", "", kEssential, true};
  measure(a);
  measure(b);
  EXPECT_EQ(a.bytes, 100'000u);
  EXPECT_LT(a.packed, 2000u);  // deflate on a run of one letter
  EXPECT_EQ(b.packed, b.bytes);
  auto plan = plan_package({a, b}, 1'000'000, 0);
  auto size = write_zip(d / "out.zip", plan.kept);
  EXPECT_EQ(size, fs::file_size(d / "out.zip"));
  EXPECT_LE(size, plan.estimate + 64);
  EXPECT_FALSE(fs::exists(d / ("out.zip.tmp-" + std::to_string(getpid()))));
  // A zip that cannot be written leaves nothing behind.
  EXPECT_THROW(write_zip(d / "missing-folder" / "out.zip", plan.kept), std::runtime_error);
  fs::remove_all(d);
}

TEST(ProfilePackage, TheFinishedZipIsPutInPlaceOrRemoved) {
  // libzip writes the temporary file; output/atomic_file's commit_file syncs and renames it.
  fs::path d = temp_dir("commit");
  fs::create_directories(d / "taken" / "inside");
  std::ofstream(d / "z.tmp") << "zip";
  EXPECT_THROW(pitot::commit_file(d / "z.tmp", d / "taken"), pitot::FileError);  // a folder stands there
  EXPECT_FALSE(fs::exists(d / "z.tmp"));
  std::ofstream(d / "z.tmp") << "zip";
  pitot::commit_file(d / "z.tmp", d / "z.zip");
  EXPECT_FALSE(fs::exists(d / "z.tmp"));
  EXPECT_EQ(fs::file_size(d / "z.zip"), 3u);
  fs::remove_all(d);
}

TEST(ProfileSummary, SplitsQuotedCsv) {
  EXPECT_EQ(split_csv_line(R"("a","b, c",d,"e ""q""")"), (std::vector<std::string>{"a", "b, c", "d", "e \"q\""}));
  EXPECT_EQ(split_csv_line(""), (std::vector<std::string>{""}));
}

TEST(ProfileSummary, NcuTableHasOneLinePerKernelWithItsPoint) {
  const std::string csv =
      "==PROF== noise\n"
      "\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\",\"thread Domain:Push/Pop_Range\",\"gpu__time_duration.sum\"\n"
      "\"\",\"\",\"\",\"\",\"\",\"usecond\"\n"
      "\"0\",\"copy_kernel(float *, int)\",\"(4, 1, 1)\",\"(256, 1, 1)\",\"<default>:pitot:copy[n=1024]:none\",\"2.37\"\n"
      "\"1\",\"gemm\",\"(8, 8, 1)\",\"(128, 1, 1)\",\"<default>:pitot:gemm[M=64]:none\",\"12.35\"\n";
  std::string table = ncu_kernel_table(csv);
  EXPECT_NE(table.find("copy_kernel(float *, int)"), std::string::npos) << table;
  EXPECT_NE(table.find("2.37 us"), std::string::npos) << table;
  EXPECT_NE(table.find("12.35 us"), std::string::npos) << table;
  EXPECT_NE(table.find("copy[n=1024]"), std::string::npos) << table;
  EXPECT_NE(table.find("gemm[M=64]"), std::string::npos) << table;
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 3);
  EXPECT_TRUE(ncu_kernel_table("no,kernels\n").empty());
}

namespace {
void write_gz(const fs::path& p, const std::string& text) {
  gzFile gz = gzopen(p.c_str(), "wb");
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
}
}  // namespace

TEST(ProfileTrace, MergesProcessesByTimeAndSurvivesACutFile) {
  fs::path d = temp_dir("trace");
  write_gz(d / "trace-1.json.gz",
           "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
           "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"a\"}},\n"
           "{\"ph\":\"X\",\"cat\":\"nvtx\",\"name\":\"pitot:copy[n=1]\",\"pid\":1,\"tid\":5,\"ts\":100.0,\"dur\":50.0},\n"
           "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":5,\"ts\":110.0,\"dur\":2.0,\"args\":{\"correlation\":9}},\n"
           "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"copy\",\"pid\":1,\"tid\":1000000007,\"ts\":120.0,\"dur\":7.5,\"args\":{\"correlation\":9}},\n"
           "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"library\",\"pid\":1,\"tid\":1000000007,\"ts\":130.0,\"dur\":5.0,\"args\":{\"correlation\":555}},\n"
           "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"outside\",\"pid\":1,\"tid\":1000000007,\"ts\":400.0,\"dur\":1.0,\"args\":{\"correlation\":77}},\n"
           "{\"ph\":\"M\",\"name\":\"pitot_trace_info\",\"pid\":1,\"args\":{\"pid\":1,\"dropped_records\":3}}\n]}\n");
  write_gz(d / "trace-2.json.gz",
           "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
           "{\"ph\":\"X\",\"cat\":\"memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":2,\"tid\":1000000001,\"ts\":105.0,\"dur\":1.0,\"args\":{\"correlation\":1}},\n"
           "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"cut\",\"pid\":2,\"ts\":1");  // died mid-line
  TraceStats s = merge_cupti_traces(files_with_suffix(d, ".json.gz"), d / "merged.json.gz");
  EXPECT_EQ(s.files, 2);
  EXPECT_EQ(s.processes, 2);
  EXPECT_EQ(s.kernels, 3);
  EXPECT_EQ(s.memcpys, 1);
  EXPECT_EQ(s.broken_lines, 1u);
  EXPECT_EQ(s.dropped_records, 3u);
  ASSERT_EQ(s.points.size(), 1u);
  EXPECT_EQ(s.points[0].name, "copy[n=1]");
  // "copy" by its launch call, "library" (launched by a call the trace lacks) by its time.
  EXPECT_EQ(s.points[0].kernels, 2);
  EXPECT_DOUBLE_EQ(s.points[0].gpu_us, 12.5);

  // The merged file is one valid JSON trace, events in time order, metadata first.
  gzFile gz = gzopen((d / "merged.json.gz").c_str(), "rb");
  std::string text;
  char buf[4096];
  for (int n; (n = gzread(gz, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  gzclose(gz);
  auto j = nlohmann::json::parse(text);
  auto& ev = j["traceEvents"];
  ASSERT_EQ(ev.size(), 8u);
  EXPECT_EQ(ev[0]["ph"], "M");
  double last = -1;
  for (const auto& e : ev) {
    if (e["ph"] == "M") continue;
    EXPECT_GE(e["ts"].get<double>(), last);
    last = e["ts"].get<double>();
  }
  EXPECT_EQ(ev[2]["name"], "pitot:copy[n=1]");
  EXPECT_EQ(ev[3]["pid"], 2);  // the other process's memcpy at 105 sorts between
  fs::remove_all(d);
}

TEST(ProfileTrace, ConcatenatesPerfettoTraces) {
  fs::path d = temp_dir("pftrace");
  std::ofstream(d / "a.pftrace") << "AAA";
  std::ofstream(d / "b.pftrace") << "BB";
  EXPECT_EQ(merge_perfetto({d / "a.pftrace", d / "b.pftrace"}, d / "all"), 5u);
  std::ifstream in(d / "all");
  std::string s((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(s, "AAABB");
  fs::remove_all(d);
}

TEST(ProfileProcess, CapturesStreamsExitCodeAndEnvironment) {
  auto c = run_captured({"/bin/sh", "-c", "echo out; echo err >&2; echo $PITOT_X; exit 3"}, 30, {{"PITOT_X", "set"}});
  EXPECT_TRUE(c.end.started);
  EXPECT_TRUE(c.end.exited);
  EXPECT_EQ(c.end.code, 3);
  EXPECT_EQ(c.out, "out\nset\n");
  EXPECT_EQ(c.err, "err\n");
  EXPECT_EQ(c.end.describe(), "exited with code 3");
}

TEST(ProfileProcess, EndsAHangingGroupAtTheTimeout) {
  auto t0 = std::chrono::steady_clock::now();
  // The shell's child keeps the pipes open too: the whole group must go.
  auto c = run_captured({"/bin/sh", "-c", "sleep 100 & sleep 100"}, 0.5);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(c.end.timed_out);
  EXPECT_FALSE(c.end.ok());
  EXPECT_LT(took, 20);
  EXPECT_NE(c.end.describe().find("time limit"), std::string::npos) << c.end.describe();
}

TEST(ProfileProcess, CapsAStreamThatWritesTooMuch) {
  auto c = run_captured({"/bin/sh", "-c", "head -c 300000 /dev/zero"}, 30, {}, 100000);
  EXPECT_EQ(c.out.size(), 100000u);
  EXPECT_EQ(c.end.stdout_bytes, 300000u);
  EXPECT_EQ(c.end.stdout_cut, 200000u);
}

TEST(ProfileProcess, ReportsAProgramThatCannotStart) {
  auto c = run_captured({"/nonexistent/profiler"}, 30);
  EXPECT_FALSE(c.end.started);
  EXPECT_NE(c.end.describe().find("/nonexistent/profiler"), std::string::npos) << c.end.describe();
}

TEST(ProfileTools, PythonBenchmarkFileStartsUnderItsInterpreter) {
  // A .py file is started as pitot run starts it: imported by $PITOT_PYTHON (here a path) -m pitot.
  const fs::path dir = fs::temp_directory_path() / ("pitot-profile-py-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "bench_x.py";
  std::ofstream(file) << "import pitot\n";
  ::setenv("PITOT_PYTHON", "/opt/python/bin/python3", 1);
  Options o;
  o.filter = "copy";
  const Layout layout{dir / "work"};
  const auto argv = program_command(o, find_program(file.string(), dir), layout);
  ::unsetenv("PITOT_PYTHON");
  fs::remove_all(dir);
  const std::vector<std::string> want = {"/opt/python/bin/python3", "-m", "pitot", file.string(), "--profile", "--quiet",
                                         "--json", layout.results_json().string(), "--filter", "copy"};
  EXPECT_EQ(argv, want);
}

TEST(ProfileProgram, FoundByNameInTheManifestWhenOnlyItIsBuilt) {
  // pitot profile looks a bare name up as pitot run reads the manifest (common/manifest.hpp), but
  // only the named program must be built.
  const fs::path dir = fs::temp_directory_path() / ("pitot-profile-manifest-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "pitot-manifest.json")
      << R"({"version": 1, "programs": [{"name": "pf_built", "path": "pf_built"}, {"name": "pf_unbuilt", "path": "pf_unbuilt"}]})";
  std::ofstream(dir / "pf_built") << "#!/bin/sh\n";
  fs::permissions(dir / "pf_built", fs::perms::owner_all);
  const auto message = [&](const std::string& name) {
    try {
      find_program(name, dir);
    } catch (const pitot::driver::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(find_program("pf_built", dir).path, fs::absolute(dir / "pf_built"));
  EXPECT_NE(message("pf_unbuilt").find("is not built"), std::string::npos) << message("pf_unbuilt");
  EXPECT_NE(message("pf_other").find("it lists: pf_built, pf_unbuilt"), std::string::npos) << message("pf_other");
  EXPECT_NE(message("pf_other").find("pf_other"), std::string::npos);
  fs::remove_all(dir);
  EXPECT_NE(message("pf_built").find("there is no"), std::string::npos) << message("pf_built");
}
