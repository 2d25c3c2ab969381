// A clock the card tests move by hand (card::Clock), shared by the NVML and AMD SMI tests.
#pragma once

#include "card/watch.hpp"

namespace pitot::card::testing {

struct FakeTime {
  double now = 100;
  Clock clock() {
    return [this] { return now; };
  }
};

}  // namespace pitot::card::testing
