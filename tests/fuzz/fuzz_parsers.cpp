// Fuzzing of every driver-side parser that reads what another process or a user wrote: the
// result channel line, the `--list --json` envelope, asv results files with benchmarks.json,
// pitot JSON (compare's input) and asv.conf.json. Each must end in a value or in pitot's own
// input error (or the JSON error its caller turns into one): never a crash, a hang, or another
// exception. Two ways to run it:
//   fuzz_parsers TARGET SECONDS [SEED]  a seeded random generator (mutations of valid seeds,
//                                       deep nesting, stray bytes, splices) for a bounded time;
//                                       ctest runs this for every target (always, in CI)
//   built with clang and -DPITOT_LIBFUZZER=ON: one libFuzzer target per TARGET (see CMakeLists).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <typeinfo>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/bounded_json.hpp"
#include "driver/common/child.hpp"
#include "driver/compare/sources.hpp"
#include "asv/config.hpp"
#include "driver/common/manifest.hpp"
#include "asv/write.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* const kTargets[] = {"result_line", "list_envelope", "asv_results", "pitot_json", "asv_conf"};

// Valid examples of each input, the seeds every mutation starts from.
std::vector<std::string> seeds(const std::string& target) {
  const std::string point =
      R"({"type":"point","program":"p","benchmark":"b","id":0,"name":"b[n=1]","index":[0],"values":[1],)"
      R"("status":"ok","reason":"","samples":[1e-6,2e-6,1.5e-6],"number":1,"stats":null,"tracks":[],)"
      R"("counters":{},"started_at":1,"duration":0.1})";
  const std::string list =
      R"({"program":"p","benchmarks":[{"name":"b","axes":[{"name":"n","kind":"int","values":[1,2]}],)"
      R"("version":"1","timeout":60,"code":""}],"points":[{"id":0,"name":"b[n=1]","benchmark":"b"},)"
      R"({"id":1,"name":"b[n=2]","benchmark":"b"}],"device_count":1,"devices":[{"gpu":"x","index":0}]})";
  const std::string results =
      R"({"commit_hash":"0123456789abcdef0123456789abcdef01234567","env_name":"e","date":1,"params":{"machine":"m"},)"
      R"("python":"","requirements":{},"env_vars":{},"result_columns":["result","params","version","started_at",)"
      R"("duration","stats_ci_99_a","stats_ci_99_b","stats_q_25","stats_q_75","stats_number","stats_repeat",)"
      R"("samples","profile"],"results":{"p.b":[[1e-6,NaN,null],[["1","2","3"]],"1",1,0.5,[-Infinity,1,2],)"
      R"([Infinity,3,4],[1,1,1],[2,2,2],[1,1,1],[3,3,3],[[1,2,3],null,[1]]]},"durations":{},"version":2})";
  const std::string benchmarks =
      R"({"p.b":{"name":"p.b","type":"time","unit":"seconds","params":[["1","2","3"]],"param_names":["n"],)"
      R"("version":"1","timeout":60},"version":2})";
  if (target == "result_line")
    return {point, R"({"type":"start","id":3})", R"({"type":"done"})", R"({"type":"other","x":[1,{"y":2}]})"};
  if (target == "list_envelope") return {list, R"({"program":"q","benchmarks":[]})"};
  if (target == "asv_results") return {results, benchmarks, results + "\n" + benchmarks};
  if (target == "pitot_json")
    return {R"({"driver":"pitot run","benchmarks":[],"points":[)" + point + "]}", point + "\n" + point,
            R"({"programs":[{"program":"p","points":[)" + point + "]}]}"};
  return {R"({"version":1,"project":"x","repo":".","results_dir":"results", // c
              "html_dir":"html", /* block */ "branches":["main"]})"};
}

// One random change of `s`.
void mutate(std::string& s, std::mt19937_64& rng, const std::vector<std::string>& pool) {
  auto pick = [&](std::size_t n) { return n == 0 ? std::size_t{0} : static_cast<std::size_t>(rng() % n); };
  static const std::vector<std::string> tokens = {
      "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud800", "null", "NaN", "Infinity", "-Infinity", "1e999",
      "-0", "1.5", "18446744073709551616", "-9223372036854775809", "true", "\"\xff\"", "\xc3", "\xed\xa0\x80",
      "\"type\"", "\"point\"", "\"id\"", "\"benchmarks\"", "\"points\"", "\"axes\"", "\"values\"", "\"index\"",
      "\"results\"", "\"result_columns\"", "\"params\"", "\"samples\"", "\"version\"", "2", "\n", "//", "/*", "\0"};
  switch (rng() % 9) {
    case 0:  // flip a byte
      if (!s.empty()) s[pick(s.size())] = static_cast<char>(rng());
      break;
    case 1:  // insert a token
      s.insert(pick(s.size() + 1), tokens[pick(tokens.size())]);
      break;
    case 2:  // delete a span
      if (!s.empty()) {
        std::size_t at = pick(s.size());
        s.erase(at, pick(std::min<std::size_t>(16, s.size() - at) + 1));
      }
      break;
    case 3:  // truncate
      s.resize(pick(s.size() + 1));
      break;
    case 4: {  // deep nesting somewhere
      std::size_t depth = 1 + pick(rng() % 4 == 0 ? 60000 : 300);
      std::string open(depth, rng() % 2 ? '[' : '{'), close;
      if (open[0] == '[') close.assign(depth, ']');
      s.insert(pick(s.size() + 1), open + close);
      break;
    }
    case 5:  // splice with another seed
      if (!pool.empty()) {
        const std::string& other = pool[pick(pool.size())];
        std::size_t a = pick(s.size() + 1), b = pick(other.size() + 1);
        s = s.substr(0, a) + other.substr(b);
      }
      break;
    case 6:  // duplicate a span
      if (!s.empty()) {
        std::size_t at = pick(s.size());
        s.insert(pick(s.size() + 1), s.substr(at, pick(64) + 1));
      }
      break;
    case 7:  // replace a number-like byte by a large or odd number
      s.insert(pick(s.size() + 1), std::to_string(static_cast<std::int64_t>(rng())));
      break;
    default:  // random bytes
      for (std::size_t k = pick(8) + 1; k-- > 0;) s.insert(pick(s.size() + 1), 1, static_cast<char>(rng()));
  }
}

struct Scratch {
  fs::path dir;
  Scratch() {
    dir = fs::temp_directory_path() / ("pitot-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(dir / "results" / "m");
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

// Runs one input through the target's parser. Returns normally on a value or an allowed error.
void run_one(const std::string& target, const std::string& data, const Scratch& scratch) {
  try {
    if (target == "result_line") {
      // run.cpp turns a json::exception into "broke the result protocol".
      try {
        pitot::driver::parse_result_message(data);
      } catch (const json::exception&) {
      }
    } else if (target == "list_envelope") {
      // manifest.cpp's list_program: the child's stdout, then parse_list; json::exception -> InputError.
      try {
        pitot::driver::ProgramInfo info =
            pitot::driver::parse_list({"p", "/bin/p", {}}, pitot::parse_json_bounded(pitot::valid_utf8(data)));
        (void)info;
      } catch (const json::exception&) {
      }
    } else if (target == "asv_results") {
      // The asv dialect (asv/json: run, merge, compare) and the results rows as compare maps
      // them (asv/results; a results file with benchmarks.json).
      try {
        json doc = pitot::parse_python_json(data);
        (void)pitot::dump_python_json(doc);
      } catch (const json::exception&) {
      }
      const auto cut = data.find('\n');
      json benchmarks;
      bool have_benchmarks = false;
      if (cut != std::string::npos) {
        try {
          benchmarks = pitot::driver::compare::parse_python_json(data.substr(cut + 1), "benchmarks");
          have_benchmarks = true;
        } catch (const pitot::driver::InputError&) {
        }
      }
      json results = pitot::driver::compare::parse_python_json(data.substr(0, cut), "results");
      const pitot::AsvBenchmarks described(benchmarks);
      pitot::driver::compare::asv_results_from_json(results, have_benchmarks ? &described : nullptr, "fuzz");
    } else if (target == "pitot_json") {
      const fs::path p = scratch.write("side.json", data);
      pitot::driver::compare::load_side(p.string(), pitot::driver::compare::DatabaseQuery{});
    } else if (target == "asv_conf") {
      const fs::path p = scratch.write("asv.conf.json", data);
      try {
        pitot::find_asv_config(p.string());
      } catch (const pitot::AsvError&) {
      }
      pitot::read_asv_config(p);
    }
  } catch (const pitot::driver::InputError&) {
  } catch (const pitot::AsvError&) {  // asv.conf.json refused by the asv module (asv/config.hpp)
  }
}

int fuzz_for(const std::string& target, double seconds, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<std::string> pool = seeds(target);
  const Scratch scratch;
  const auto stop = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::size_t runs = 0;
  std::string input;
  try {
    for (const auto& s : pool) run_one(target, input = s, scratch), ++runs;
    while (std::chrono::steady_clock::now() < stop) {
      input = pool[rng() % pool.size()];
      for (int k = 1 + static_cast<int>(rng() % 8); k-- > 0;) mutate(input, rng, pool);
      run_one(target, input, scratch);
      ++runs;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_parsers %s: seed %llu, run %zu: %s escaped: %s\ninput (%zu bytes): %.400s\n",
                 target.c_str(), static_cast<unsigned long long>(seed), runs, typeid(e).name(), e.what(),
                 input.size(), input.c_str());
    return 1;
  }
  std::printf("fuzz_parsers %s: %zu inputs in %.0f s (seed %llu), none crashed or threw\n", target.c_str(), runs,
              seconds, static_cast<unsigned long long>(seed));
  return 0;
}

}  // namespace

#ifdef PITOT_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Scratch scratch;
  static const std::string target = [] {
    const char* t = std::getenv("PITOT_FUZZ_TARGET");
    return std::string(t ? t : "result_line");
  }();
  run_one(target, std::string(reinterpret_cast<const char*>(data), size), scratch);  // anything escaping aborts
  return 0;
}
#else
int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: fuzz_parsers TARGET SECONDS [SEED]; targets: result_line list_envelope asv_results "
                 "pitot_json asv_conf\n");
    return 2;
  }
  const std::string target = argv[1];
  bool known = false;
  for (const char* t : kTargets) known = known || target == t;
  if (!known) {
    std::fprintf(stderr, "fuzz_parsers: unknown target %s\n", target.c_str());
    return 2;
  }
  const double seconds = std::atof(argv[2]);
  const std::uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
  return fuzz_for(target, seconds, seed);
}
#endif
