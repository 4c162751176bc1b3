#include "checkpoint/utf8_text.h"

#include <string>
#include <vector>

namespace hetps::checkpoint {
namespace {

// The library's own UTF-8 check is the one dump() applies; a lone string is cheap to write out.
void check_string(const std::string& text) { static_cast<void>(nlohmann::json(text).dump()); }

}  // namespace

void check_text_is_utf8(const nlohmann::json& value) {
  // A stack, not recursion: how deep the bytes nest is the sender's choice.
  std::vector<const nlohmann::json*> pending{&value};
  while (!pending.empty()) {
    const nlohmann::json& next = *pending.back();
    pending.pop_back();
    if (next.is_string()) {
      check_string(next.get_ref<const std::string&>());
    } else if (next.is_object()) {
      for (const auto& [key, member] : next.items()) {
        check_string(key);
        pending.push_back(&member);
      }
    } else if (next.is_array()) {
      for (const nlohmann::json& element : next) pending.push_back(&element);
    }
  }
}

}  // namespace hetps::checkpoint
