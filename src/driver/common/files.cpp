#include "driver/common/files.hpp"

#include "core/bounded_json.hpp"
#include "driver/common/manifest.hpp"

namespace fs = std::filesystem;

namespace pitot::driver {

namespace {

template <class Body>
void as_input_error(Body&& body) {
  try {
    body();
  } catch (const FileError& e) {
    throw InputError(e.what());
  }
}

}  // namespace

FolderLock::FolderLock(const fs::path& dir) {
  as_input_error([&] { lock_.emplace(dir); });
}

void replace_file(const fs::path& path, const std::string& text) {
  as_input_error([&] { pitot::replace_file(path, text); });
}

std::string read_file(const fs::path& path, const std::string& what) {
  const std::string named = what.empty() ? "" : what + " ";
  std::string text;
  try {
    if (!read_file_bounded(path, text))
      throw InputError("cannot read " + named + path.string() + ": no such file, or not readable");
  } catch (const std::length_error& e) {
    throw InputError(named + e.what());
  }
  return text;
}

std::string read_tail(const fs::path& path, std::uint64_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (!in || ec) return {};
  if (size > max_bytes) {
    in.seekg(static_cast<std::streamoff>(size - max_bytes));
    size = max_bytes;
  }
  std::string text(size, '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

}  // namespace pitot::driver
