#include "checkpoint/cbor_state.h"

#include <stdexcept>
#include <string>

#include <fmt/format.h>

// The builder below is nlohmann's own, outside its public API (see cbor_state.h): a version
// that changed it should fail here, saying so, rather than somewhere inside the library.
static_assert(NLOHMANN_JSON_VERSION_MAJOR == 3 && NLOHMANN_JSON_VERSION_MINOR == 11,
              "cbor_state.cpp wraps nlohmann::detail::json_sax_dom_parser as of nlohmann-json "
              "3.11 (Debian 12's); check its constructor in this version and adapt");

namespace hetps::checkpoint {
namespace {

using Json = nlohmann::json;

// The library's own DOM builder (what from_cbor uses), behind a check of each value as it comes:
// refusing a level (returning false) stops the reader before it descends into it.
class CheckedStateBuilder {
 public:
  explicit CheckedStateBuilder(Json& result) : builder_(result, /*allow_exceptions=*/true) {}

  bool null() { return builder_.null(); }
  bool boolean(bool value) { return builder_.boolean(value); }
  bool number_integer(Json::number_integer_t value) { return builder_.number_integer(value); }
  bool number_unsigned(Json::number_unsigned_t value) { return builder_.number_unsigned(value); }
  bool number_float(Json::number_float_t value, const std::string& text) {
    return builder_.number_float(value, text);
  }
  bool string(std::string& value) { return is_utf8(value) && builder_.string(value); }
  bool binary(Json::binary_t& value) { return builder_.binary(value); }
  bool key(std::string& value) { return is_utf8(value) && builder_.key(value); }
  bool start_object(std::size_t elements) { return descend() && builder_.start_object(elements); }
  bool end_object() {
    --depth_;
    return builder_.end_object();
  }
  bool start_array(std::size_t elements) { return descend() && builder_.start_array(elements); }
  bool end_array() {
    --depth_;
    return builder_.end_array();
  }
  template <typename Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& error) {
    return builder_.parse_error(position, token, error);
  }

  // Why the reader was stopped, when it was stopped here.
  const std::string& refusal() const { return refusal_; }

 private:
  bool descend() {
    if (++depth_ <= kMaxStateDepth) return true;
    refusal_ = fmt::format("nested deeper than {} levels", kMaxStateDepth);
    return false;
  }
  bool is_utf8(const std::string& text) {
    try {
      // The check dump() applies; a lone string is cheap to write out.
      static_cast<void>(Json(text).dump());
      return true;
    } catch (const Json::type_error&) {
      refusal_ = "text that is not UTF-8";
      return false;
    }
  }

  nlohmann::detail::json_sax_dom_parser<Json> builder_;
  int depth_ = 0;
  std::string refusal_;
};

}  // namespace

Json parse_cbor_state(std::span<const std::uint8_t> bytes) {
  Json result;
  CheckedStateBuilder builder(result);
  if (!Json::sax_parse(bytes.begin(), bytes.end(), &builder, Json::input_format_t::cbor)) {
    throw std::invalid_argument(builder.refusal().empty() ? "not one CBOR value"
                                                          : builder.refusal());
  }
  return result;
}

}  // namespace hetps::checkpoint
