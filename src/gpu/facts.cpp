#include "gpu/facts.hpp"

#include <algorithm>
#include <cctype>

namespace pitot::PITOT_GPU_NAMESPACE {

std::string product_slug(std::string_view product, std::initializer_list<std::string_view> dropped) {
  std::string name;
  std::string word;
  auto flush_word = [&] {
    if (word.empty() || std::find(dropped.begin(), dropped.end(), word) != dropped.end()) {
      word.clear();
      return;
    }
    if (!name.empty()) name += '-';
    name += word;
    word.clear();
  };
  for (char c : product) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      word += static_cast<char>(std::tolower(u));
    } else {
      flush_word();
    }
  }
  flush_word();
  return name;
}

}  // namespace pitot::PITOT_GPU_NAMESPACE
