// The protocols hetps knows, their parameters (`protocol.<name>` keys) and how to make one.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "protocol/protocol.h"

namespace hetps::protocol {

struct ParamSpec {
  std::string name;
  config::ParamValue default_value;
  std::string help;
  // Numbers: the allowed closed range and whether only integers are allowed.
  double min = 0;
  double max = 0;
  bool integer = false;
  // Words: the allowed choices (non-empty means the parameter is a word).
  std::vector<std::string> choices;
  // Text: any string, such as a file path (`default_value` a string; range and choices unused).
  bool text = false;
  // A parameter that acts only while a word parameter has one of some values (DBSCAN's radius
  // with grouping = "dbscan"): a value other than the default given otherwise is refused, since
  // it would do nothing (config::resolve).
  struct Condition {
    std::string param;
    std::vector<std::string> values;
  };
  std::optional<Condition> only_with = std::nullopt;

  // Whether this parameter acts among its protocol's `complete` parameters: it has no
  // condition, or the condition holds.
  bool acts_with(const config::ProtocolParams& complete) const;
};

struct ProtocolInfo {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  // `params` holds a value for every ParamSpec (defaults filled in, validated).
  std::function<std::unique_ptr<Protocol>(const config::ProtocolParams& params)> make;

  const ParamSpec* find_param(const std::string& param) const;
};

const std::vector<ProtocolInfo>& all_protocols();
// A protocol a program defines itself (a user's own, a test's), known beside the built-in ones
// while this object lives. Make it before the runs that use it start. Throws
// std::invalid_argument when the name is taken.
//   const ProtocolRegistration mine(ProtocolInfo{"mine", "my protocol", {}, make_mine});
class ProtocolRegistration {
 public:
  explicit ProtocolRegistration(ProtocolInfo info);
  ~ProtocolRegistration();
  ProtocolRegistration(const ProtocolRegistration&) = delete;
  ProtocolRegistration& operator=(const ProtocolRegistration&) = delete;

 private:
  std::string name_;
};
// nullptr when there is no such protocol.
const ProtocolInfo* find_protocol(const std::string& name);
// The names of all protocols, comma separated, for error messages.
std::string protocol_names();

// What a protocol's `start` is told of the run `config` describes.
RunShape run_shape(const config::Config& config);

// Why `value` is not allowed for `spec` ("expected an integer in [0, 1000], got 2.5"), or
// nullopt when it is.
std::optional<std::string> check_param(const ParamSpec& spec, const config::ParamValue& value);

// `given` with every missing parameter set to its default. Throws std::invalid_argument naming
// `protocol.<key>` for an unknown key or a bad value.
config::ProtocolParams complete_params(const ProtocolInfo& info,
                                       const config::ProtocolParams& given);

}  // namespace hetps::protocol
