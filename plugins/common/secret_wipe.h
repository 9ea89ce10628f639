// Key hygiene: strings that held the API key are overwritten before their memory goes
// back to the heap.
#pragma once

#include <string>
#include <vector>

namespace agentrt::providers {

inline void wipe(std::string& s) {
  volatile char* p = s.data();
  for (size_t i = 0; i < s.size(); ++i) p[i] = 0;
  s.clear();
}

inline void wipe(std::vector<std::string>& many) {
  for (std::string& s : many) wipe(s);
}

// Wipes what it watches when the scope ends, however it ends (the key, and the
// request headers that carry it).
template <class T>
class WipeOnExit {
 public:
  explicit WipeOnExit(T& watched) : watched_(watched) {}
  ~WipeOnExit() { wipe(watched_); }
  WipeOnExit(const WipeOnExit&) = delete;
  WipeOnExit& operator=(const WipeOnExit&) = delete;

 private:
  T& watched_;
};

}  // namespace agentrt::providers
