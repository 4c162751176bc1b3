// A config file as `hetps train --config FILE` takes it: parsed, resolved and validated. Any
// text either becomes a Config that the run directory's config.toml reproduces (round_trip_test)
// or is refused with a ConfigError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "config/error.h"
#include "config/resolve.h"
#include "config/settings.h"
#include "config/toml_writer.h"

namespace {

hetps::config::Config resolve_text(std::string_view text, const std::string& file) {
  hetps::config::UserSettings settings;
  settings.add_text(text, file);
  return hetps::config::resolve(settings);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hetps::config::Config config;
  try {
    config = resolve_text({reinterpret_cast<const char*>(data), size}, "fuzz.toml");
  } catch (const hetps::config::ConfigError&) {
    return 0;
  }
  if (!(resolve_text(hetps::config::to_toml_text(config), "config.toml") == config)) std::abort();
  return 0;
}
