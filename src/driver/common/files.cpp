#include "driver/common/files.hpp"

#include "core/bounded_json.hpp"
#include "core/rethrow.hpp"
#include "driver/common/manifest.hpp"

namespace fs = std::filesystem;

namespace pitot::driver {

FolderLock::FolderLock(const fs::path& dir) {
  rethrow_as<FileError, InputError>([&] { lock_.emplace(dir); });
}

void replace_file(const fs::path& path, const std::string& text) {
  rethrow_as<FileError, InputError>([&] { pitot::replace_file(path, text); });
}

std::string read_file(const fs::path& path, const std::string& what) {
  return rethrow_as<ReadError, InputError>([&] { return read_text_file(path, what); });
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
