// One layer's error as the error its caller reports: a write the asv writer refuses (FileError)
// becomes its AsvError, an asv file compare cannot read becomes the driver's InputError (exit 2).
#pragma once

#include <utility>

namespace pitot {

// Runs `body` and returns what it returns; a `From` it throws is thrown again as a `To` with the
// same message.
template <class From, class To, class Body>
decltype(auto) rethrow_as(Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (const From& e) {
    throw To(e.what());
  }
}

}  // namespace pitot
