// Sync-Switch's policy file: written and read back, every bad file named with its field, and
// `protocol.policy_file` turned into `protocol.bsp_fraction` when a config is resolved.
#include "config/switch_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config_test_util.h"
#include "protocol/registry.h"

namespace hetps::config {
namespace {

using ::testing::HasSubstr;
using testing::resolve_error;
using testing::resolve_sets;

SwitchPolicy example_policy() {
  return SwitchPolicy{0.375,
                      0.8812,
                      "runs/t/00000000000000aa",
                      0.005,
                      {{0.5, 0.879, "runs/t/00000000000000bb"},
                       {0.25, 0.861, "runs/t/00000000000000cc"},
                       {0.375, 0.8801, "runs/t/00000000000000dd"}},
                      "00000000000000dd",
                      7,
                      {}};
}

// A file named after the running test, removed when destroyed.
class PolicyFile {
 public:
  PolicyFile() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::path(::testing::TempDir()) /
            (std::string(test->test_suite_name()) + "." + test->name() + ".json");
    std::filesystem::remove(path_);
  }
  ~PolicyFile() { std::filesystem::remove(path_); }
  const std::filesystem::path& path() const { return path_; }
  std::string path_text() const { return path_.string(); }
  void write(const std::string& text) const { std::ofstream(path_) << text; }
  // The example policy with `field` replaced by `value` (JSON text).
  void write_with(const std::string& field, const std::string& value) const {
    nlohmann::json json = to_json(example_policy());
    json[nlohmann::json::json_pointer(field)] = nlohmann::json::parse(value);
    write(json.dump());
  }
  std::string read_error() const {
    try {
      read_switch_policy(path_);
    } catch (const ConfigError& error) {
      return error.what();
    }
    return "";
  }

 private:
  std::filesystem::path path_;
};

TEST(SwitchPolicy, WrittenFileReadsBackTheSame) {
  const PolicyFile file;
  write_switch_policy(file.path(), example_policy());
  EXPECT_EQ(read_switch_policy(file.path()), example_policy());
  std::ifstream in(file.path());
  const nlohmann::json json = nlohmann::json::parse(in);
  EXPECT_EQ(json.at("format"), "hetps-sync-switch-policy");
  EXPECT_EQ(json.at("version"), 1);
  EXPECT_EQ(json.at("chosen"), 0.375);
  EXPECT_EQ(json.at("candidates").at(1).at("bsp_fraction"), 0.25);
  EXPECT_EQ(json.at("candidates").at(1).at("run"), "runs/t/00000000000000cc");
}

TEST(SwitchPolicy, BspsOneIsChosenWithoutBeingACandidate) {
  const PolicyFile file;
  SwitchPolicy policy = example_policy();
  policy.chosen = 1;  // no candidate held: the search does not list x = 1 among them
  write_switch_policy(file.path(), policy);
  EXPECT_EQ(read_switch_policy(file.path()), policy);
}

TEST(SwitchPolicy, TheJobSearchedOnReadsBackAndAFileWithoutItIsRead) {
  const PolicyFile file;
  SwitchPolicy policy = example_policy();
  policy.job = {{"cluster.workers", "16"}, {"train.lr", "0.1"}};
  write_switch_policy(file.path(), policy);
  EXPECT_EQ(read_switch_policy(file.path()), policy);
  // Files written before the job was recorded have none, and are read as they were.
  write_switch_policy(file.path(), example_policy());
  EXPECT_FALSE(nlohmann::json::parse(std::ifstream(file.path())).contains("job"));
  EXPECT_EQ(read_switch_policy(file.path()), example_policy());
}

TEST(SwitchPolicy, WritingCreatesTheDirectoryAndLeavesNoTemporaryFile) {
  const PolicyFile file;
  const std::filesystem::path dir = file.path().string() + ".d";
  std::filesystem::remove_all(dir);
  write_switch_policy(dir / "sub" / "policy.json", example_policy());
  EXPECT_EQ(read_switch_policy(dir / "sub" / "policy.json"), example_policy());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir / "sub"), {}), 1);
  std::filesystem::remove_all(dir);
}

TEST(SwitchPolicy, MissingFileIsNamed) {
  const PolicyFile file;
  EXPECT_EQ(file.read_error(),
            "cannot read policy file " + file.path_text() + ": No such file or directory");
}

TEST(SwitchPolicy, ADirectoryIsNamedAsOne) {
  const std::filesystem::path directory = ::testing::TempDir();
  try {
    read_switch_policy(directory);
    FAIL() << "a directory read as a policy file";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.what(),
              "cannot read policy file " + directory.string() + ": a directory; expected a file");
  }
}

// Read whole: /dev/zero would never end.
TEST(SwitchPolicy, ADeviceIsNamedAsOne) {
  try {
    read_switch_policy("/dev/zero");
    FAIL() << "a device read as a policy file";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.what(),
              std::string("cannot read policy file /dev/zero: a device; expected a file"));
  }
}

TEST(SwitchPolicy, InvalidJsonIsNamed) {
  const PolicyFile file;
  file.write("{\"chosen\": ");
  EXPECT_THAT(file.read_error(), HasSubstr(file.path_text() + ": invalid JSON: "));
}

TEST(SwitchPolicy, EveryBadFieldIsNamedWithItsValue) {
  struct Case {
    std::string field;
    std::string value;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"/format", "\"other\"", "format must be \"hetps-sync-switch-policy\", got \"other\""},
           {"/version", "2", "version must be 1, got 2"},
           {"/chosen", "0", "chosen must be a number in (0, 1], got 0"},
           {"/chosen", "1.5", "chosen must be a number in (0, 1], got 1.5"},
           {"/chosen", "\"half\"", "chosen must be a number in (0, 1], got \"half\""},
           {"/chosen", "0.3",
            "chosen must be 1 or the bsp_fraction of one of the candidates (to train with "
            "another x, set protocol.bsp_fraction instead of protocol.policy_file), got 0.3"},
           {"/bsp_accuracy", "-0.1", "bsp_accuracy must be a number in [0, 1], got -0.1"},
           {"/tolerance", "null", "tolerance must be a number in [0, 1], got null"},
           {"/candidates", "{}", "candidates must be a list, got {}"},
           {"/candidates/1", "3", "candidates[1] must be an object, got 3"},
           {"/candidates/2/accuracy", "\"high\"",
            "candidates[2].accuracy must be a number in [0, 1], got \"high\""},
           {"/candidates/0/run", "5", "candidates[0].run must be a string, got 5"},
           {"/seed", "-1", "seed must be an integer >= 0, got -1"},
           {"/job", "[]", "job must be an object of settings, each a TOML value as text, got []"},
           {"/job", "{\"cluster.workers\": 16}", "job.cluster.workers must be a string, got 16"},
           {"/job", "{\"Workers!\": \"16\"}",
            "job must be keyed by setting names, got \"Workers!\""},
           {"/job", "{\"train.lr\": \"0.1\\u001b[2J\"}",
            "job.train.lr must be one line of text, got \"0.1\\u001b[2J\""},
       }) {
    const PolicyFile file;
    file.write_with(c.field, c.value);
    EXPECT_EQ(file.read_error(), file.path_text() + ": " + c.message) << c.field;
  }
}

TEST(SwitchPolicy, MissingFieldIsNamed) {
  const PolicyFile file;
  nlohmann::json json = to_json(example_policy());
  json.at("candidates").at(0).erase("accuracy");
  file.write(json.dump());
  EXPECT_EQ(file.read_error(), file.path_text() + ": candidates[0].accuracy is missing");
  file.write("[1, 2]");
  EXPECT_EQ(file.read_error(), file.path_text() + ": the policy must be a JSON object, got [1,2]");
}

// Sync-Switch with `protocol.policy_file` naming `file`, then `more` settings.
UserSettings with_policy_file(const PolicyFile& file,
                              std::initializer_list<std::string_view> more) {
  UserSettings settings;
  settings.add_set("protocol.name=sync_switch");
  settings.add_string("protocol.policy_file", file.path_text(), "exp.toml:3");
  for (std::string_view set : more) settings.add_set(set);
  return settings;
}

std::string resolve_error_of(const UserSettings& settings) {
  try {
    resolve(settings);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(PolicyFileSetting, SetsBspFractionAndRecordsItInsteadOfTheFile) {
  const PolicyFile file;
  write_switch_policy(file.path(), example_policy());
  const Config config = resolve(with_policy_file(file, {}));
  EXPECT_EQ(config.protocol.params.at("bsp_fraction"), ParamValue(0.375));
  EXPECT_EQ(config.protocol.params.at("policy_file"), ParamValue(std::string()));
  // The same run as one that sets the chosen x itself.
  EXPECT_EQ(config, resolve_sets({"protocol.name=sync_switch", "protocol.bsp_fraction=0.375"}));
}

TEST(PolicyFileSetting, WithBspFractionTooIsRefusedNamingBoth) {
  const PolicyFile file;
  write_switch_policy(file.path(), example_policy());
  EXPECT_EQ(resolve_error_of(with_policy_file(file, {"protocol.bsp_fraction=0.5"})),
            "--set protocol.bsp_fraction=0.5: protocol.bsp_fraction and protocol.policy_file "
            "(given at exp.toml:3) both set Sync-Switch's switch point; set only one of them");
}

TEST(PolicyFileSetting, BadFileIsNamedWithWhereItWasGiven) {
  const PolicyFile file;
  file.write_with("/chosen", "0");
  EXPECT_EQ(resolve_error_of(with_policy_file(file, {})),
            "exp.toml:3: " + file.path_text() + ": chosen must be a number in (0, 1], got 0");
}

TEST(PolicyFileSetting, EmptyIsNoFile) {
  EXPECT_EQ(resolve_sets({"protocol.name=sync_switch", "protocol.policy_file=\"\"",
                          "protocol.bsp_fraction=0.5"})
                .protocol.params.at("bsp_fraction"),
            ParamValue(0.5));
}

TEST(PolicyFileSetting, IsTextAndOnlySyncSwitchHasIt) {
  EXPECT_EQ(resolve_error({"protocol.name=sync_switch", "protocol.policy_file=3"}),
            "--set protocol.policy_file=3: protocol.policy_file: expected text, e.g. a file "
            "path, got 3");
  EXPECT_THAT(resolve_error({"protocol.name=bsp", "protocol.policy_file=p.json"}),
              HasSubstr("protocol 'bsp' has no parameter 'policy_file'"));
}

TEST(ParamSpecText, AcceptsAnyStringAndNothingElse) {
  const protocol::ParamSpec& spec =
      *protocol::find_protocol("sync_switch")->find_param("policy_file");
  EXPECT_TRUE(spec.text);
  EXPECT_EQ(spec.default_value, ParamValue(std::string()));
  EXPECT_EQ(protocol::check_param(spec, std::string("any/path with spaces.json")), std::nullopt);
  EXPECT_EQ(protocol::check_param(spec, 0.5), "expected text, e.g. a file path");
}

}  // namespace
}  // namespace hetps::config
