// See package.hpp.
#include "driver/profile/package.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

#include <fmt/format.h>
#include <zip.h>
#include <zlib.h>

#include "driver/common/files.hpp"
#include "driver/profile/options.hpp"

namespace fs = std::filesystem;

namespace pitot::driver::profile {

namespace {

// Size of `path` once deflated at libzip's default level (what the zip will hold).
std::uint64_t deflated_size(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return 0;
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
  std::vector<char> input(1 << 20);
  std::vector<unsigned char> output(1 << 20);
  std::uint64_t total = 0;
  int flush = Z_NO_FLUSH;
  do {
    in.read(input.data(), static_cast<std::streamsize>(input.size()));
    z.next_in = reinterpret_cast<Bytef*>(input.data());
    z.avail_in = static_cast<uInt>(in.gcount());
    flush = in.eof() ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = output.data();
      z.avail_out = static_cast<uInt>(output.size());
      deflate(&z, flush);
      total += output.size() - z.avail_out;
    } while (z.avail_out == 0);
  } while (flush != Z_FINISH);
  deflateEnd(&z);
  return total;
}

}  // namespace

void measure(Artifact& a) {
  std::error_code ec;
  a.bytes = fs::file_size(a.source, ec);
  if (ec) a.bytes = 0;
  // Deflate never helps much on compressed data; libzip stores such entries whole.
  a.packed = a.store ? a.bytes : std::min<std::uint64_t>(a.bytes, deflated_size(a.source));
}

std::uint64_t entry_overhead(const std::string& name) {
  // Local header (30) + central directory entry (46) + data descriptor (16) + the name twice.
  return 92 + 2 * name.size();
}

PackagePlan plan_package(std::vector<Artifact> artifacts, std::uint64_t budget, std::uint64_t reserve) {
  PackagePlan plan;
  auto size_of = [](const std::vector<Artifact>& list) {
    std::uint64_t total = 22;  // end of central directory
    for (const auto& a : list) total += a.packed + entry_overhead(a.name);
    return total;
  };
  plan.kept = std::move(artifacts);
  while (size_of(plan.kept) + reserve > budget) {
    // The next to go: the highest rank above kEssential, the largest within it.
    auto victim = plan.kept.end();
    for (auto it = plan.kept.begin(); it != plan.kept.end(); ++it) {
      if (it->rank <= kEssential) continue;
      if (victim == plan.kept.end() || it->rank > victim->rank ||
          (it->rank == victim->rank && it->packed > victim->packed))
        victim = it;
    }
    if (victim == plan.kept.end()) break;
    plan.dropped.push_back({*victim, fmt::format("over the size budget ({} allowed)", format_bytes(budget))});
    plan.kept.erase(victim);
  }
  if (size_of(plan.kept) + reserve > budget) {
    // Even the essential part is too big: the zip keeps the core; the full folder stays on disk.
    plan.essential_fits = false;
    std::vector<Artifact> core;
    for (auto& a : plan.kept) {
      if (a.rank == kCore)
        core.push_back(std::move(a));
      else
        plan.dropped.push_back({std::move(a), fmt::format("the essential files alone exceed the size budget ({} "
                                                          "allowed); kept in the folder on disk",
                                                          format_bytes(budget))});
    }
    plan.kept = std::move(core);
  }
  plan.estimate = size_of(plan.kept) + reserve;
  return plan;
}

std::uint64_t write_zip(const fs::path& zip, const std::vector<Artifact>& files) {
  fs::path tmp = zip;
  tmp += fmt::format(".tmp-{}", getpid());
  std::error_code ec;
  fs::remove(tmp, ec);
  int error = 0;
  zip_t* za = zip_open(tmp.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  if (!za) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, error);
    std::string msg = fmt::format("cannot create {}: {}", zip.string(), zip_error_strerror(&ze));
    zip_error_fini(&ze);
    throw std::runtime_error(msg);
  }
  auto fail = [&](const std::string& what) {
    std::string msg = fmt::format("cannot write {}: {}: {}", zip.string(), what, zip_strerror(za));
    zip_discard(za);
    fs::remove(tmp, ec);
    throw std::runtime_error(msg);
  };
  for (const auto& f : files) {
    zip_source_t* src = zip_source_file(za, f.source.c_str(), 0, -1);
    if (!src) fail(f.source.string());
    zip_int64_t index = zip_file_add(za, f.name.c_str(), src, ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE);
    if (index < 0) {
      zip_source_free(src);
      fail(f.name);
    }
    zip_set_file_compression(za, static_cast<zip_uint64_t>(index), f.store ? ZIP_CM_STORE : ZIP_CM_DEFLATE, 0);
  }
  if (zip_close(za) != 0) fail("closing");
  try {
    pitot::commit_file(tmp, zip);  // synced before and after the rename, as every output (output/atomic_file.hpp)
  } catch (const pitot::FileError& e) {
    throw std::runtime_error(fmt::format("cannot move the zip into place at {}: {}", zip.string(), e.what()));
  }
  return fs::file_size(zip);
}

nlohmann::json artifacts_json(const std::vector<Artifact>& kept) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : kept)
    out.push_back({{"name", a.name}, {"bytes", a.bytes}, {"kind", a.kind}, {"description", a.description}});
  return out;
}

nlohmann::json dropped_json(const std::vector<Dropped>& dropped) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : dropped)
    out.push_back({{"name", d.artifact.name},
                   {"bytes", d.artifact.bytes},
                   {"kind", d.artifact.kind},
                   {"rank", d.artifact.rank},
                   {"reason", d.reason}});
  return out;
}

}  // namespace pitot::driver::profile
