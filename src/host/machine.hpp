// Facts about the host and the source tree that asv records.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace pitot {

// arch, cpu, num_cpu, os, ram: the keys `asv machine` asks for, all strings.
std::map<std::string, std::string> host_facts();

// The machine name of a GPU product, the one rule for programs and the driver: its alphanumeric
// words in lower case joined by '-', vendor and brand words (nvidia, amd, instinct, radeon)
// dropped: "NVIDIA H100 80GB HBM3" -> "h100-80gb-hbm3", "NVIDIA GeForce RTX 4090" ->
// "geforce-rtx-4090", "AMD Instinct MI325X" -> "mi325x". "" when nothing is left.
std::string machine_name_from_gpu(std::string_view product);

// A machine name from the CPU model when no GPU names it ("xeon-gold-6338", lower case, safe).
std::string machine_name_from_cpu(const std::string& cpu_model);

// A name that is safe as one folder or file name component (letters, digits, . _ -), or throws
// std::invalid_argument naming the problem.
std::string checked_name(const std::string& what, const std::string& name);

struct CommitInfo {
  std::string hash;          // 40 hex
  std::int64_t date_ms = 0;  // commit date, unix ms
};
// git is asked here only (programs, pitot run, compare and init). Each runs git without a shell,
// its errors kept off the terminal, and gives nullopt when git fails or is missing.
// `git rev-parse` and the commit date of `rev` in the repository holding `dir`; nullopt if not a
// repo or `rev` is unknown (or starts with '-', which git would read as an option). The date is
// the author date, as asv takes it.
std::optional<CommitInfo> git_commit(const std::filesystem::path& dir, const std::string& rev = "HEAD");
// The top folder of the work tree holding `dir`.
std::optional<std::string> git_top_level(const std::filesystem::path& dir);
// The branch checked out in the work tree holding `dir` ("HEAD" when detached).
std::optional<std::string> git_branch(const std::filesystem::path& dir);

// What the build is made of, for asv's `requirements`: compiler ("gcc-12.2"), build_type
// (in a program: its benchmarks' own, see build_type_name; else pitot's PITOT_BUILD_TYPE, else
// from NDEBUG) and the toolkit of the program's device backend (toolkits_used): "cuda" ("13.0")
// in a CUDA program, "hip" in a HIP one, neither in a CPU-only program or the driver.
std::map<std::string, std::string> build_requirements();
// The GPU toolkits the build found, {"cuda": "13.0", "hip": "6.2"} (the definitions
// PITOT_CUDA_VERSION and PITOT_HIP_VERSION; host/toolkits.cpp).
std::map<std::string, std::string> found_toolkits();
// Of the `found` toolkits, the one a program whose device backend is `backend` ("cuda", "hip";
// "" for none) uses: what its env and requirements name.
std::map<std::string, std::string> toolkits_used(const std::string& backend, const std::map<std::string, std::string>& found);
// Set by a program that is not a C++ build (the Python module): the requirements it reports
// instead, e.g. {"python": "/venv/bin/python3", "python_version": "3.12"} plus the GPU backend its
// benchmarks use. `python` is asv's interpreter parameter; `python_version` names the env only.
std::optional<std::map<std::string, std::string>>& requirements_override();

}  // namespace pitot
