#include <gtest/gtest.h>

#include "report/html.h"

namespace hetps::report {
namespace {

TEST(HtmlTest, EscapesEveryCharacterThatMeansSomething) {
  EXPECT_EQ(escape_html("ssp:staleness=8"), "ssp:staleness=8");
  EXPECT_EQ(escape_html("<b>\"Tom's\" & co</b>"),
            "&lt;b&gt;&quot;Tom&#39;s&quot; &amp; co&lt;/b&gt;");
}

// RFC 4648's test vectors.
TEST(HtmlTest, Base64PadsTheLastGroup) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64(std::string("\xff\xfe\x00", 3)), "//4A");
}

}  // namespace
}  // namespace hetps::report
