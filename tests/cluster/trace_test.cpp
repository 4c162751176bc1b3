#include "cluster/trace.h"

#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster/cluster_model.h"
#include "data/dataset.h"

namespace hetps::cluster {
namespace {

using ::testing::HasSubstr;
using namespace std::string_literals;

// Writes `csv` to a file named after the running test and returns its path.
std::string write_trace(const std::string& csv) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string path = ::testing::TempDir() + "hetps_" + test->name() + ".csv";
  std::ofstream(path) << csv;
  return path;
}

config::ClusterConfig traced(const std::string& csv, int workers) {
  config::ClusterConfig cluster;
  cluster.workers = workers;
  cluster.trace = write_trace(csv);
  return cluster;
}

std::string trace_error(const std::string& csv) {
  try {
    read_trace(write_trace(csv), 2);
  } catch (const data::DataError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no error for trace:\n" << csv;
  return "";
}

TEST(TraceReplay, SpeedsFollowTheRowsAndMultiplyTheBaseSpeed) {
  config::ClusterConfig cluster = traced(
      "time,worker,speed\n"
      "3,0,0.5\n"
      "1,1,4\n"
      "10,0,2\n",
      3);
  cluster.speeds = {1, 0.5, 1};
  ClusterModel model(cluster, 1);
  EXPECT_EQ(model.speed(0, 0), 1.0);  // before its first row
  EXPECT_EQ(model.speed(0, 3), 0.5);
  EXPECT_EQ(model.speed(0, 9.5), 0.5);
  EXPECT_EQ(model.speed(0, 10), 2.0);
  EXPECT_EQ(model.speed(1, 0.5), 0.5);
  EXPECT_EQ(model.speed(1, 1), 2.0);
  EXPECT_EQ(model.speed(2, 50), 1.0);  // no rows
}

TEST(TraceReplay, ComputeEndIntegratesTraceAndEpisodesTogether) {
  config::ClusterConfig cluster = traced("time,worker,speed\n0,0,0.5\n10,0,2\n", 1);
  ClusterModel plain(cluster, 1);
  // 5 of work by t = 10 at half speed, the remaining 4 at double speed take 2 s.
  EXPECT_EQ(plain.compute_end(0, 0, 9), 12);
  cluster.stragglers = {{0, 10, 10, 2}};
  ClusterModel slowed(cluster, 1);
  EXPECT_EQ(slowed.speed(0, 10), 1.0);
  EXPECT_EQ(slowed.compute_end(0, 0, 9), 14);
}

TEST(TraceReplay, ToleratesSpacesBlankLinesAndRepeatedTimes) {
  std::vector<PiecewiseConstant> speeds = read_trace(write_trace("time, worker, speed\r\n"
                                                                 " 2 , 1 , 3 \r\n"
                                                                 "\n"
                                                                 "2,1,0.25\n"),
                                                     2);
  ASSERT_EQ(speeds.size(), 2u);
  EXPECT_EQ(speeds[1].value_at(2), 0.25);
  EXPECT_EQ(speeds[0].value_at(2), 1.0);
}

TEST(TraceReplay, ReadsAFileThatBeginsWithAByteOrderMark) {
  std::vector<PiecewiseConstant> speeds =
      read_trace(write_trace("\xEF\xBB\xBFtime,worker,speed\r\n0,0,0.5\r\n"), 1);
  EXPECT_EQ(speeds[0].value_at(1), 0.5);
}

TEST(TraceErrors, MissingFileIsNamed) {
  try {
    read_trace("/nonexistent/speeds.csv", 1);
    FAIL() << "no error for a missing file";
  } catch (const data::DataError& error) {
    EXPECT_STREQ(error.what(), "cluster.trace '/nonexistent/speeds.csv': cannot open the file");
  }
}

TEST(TraceErrors, ADirectoryIsNamedAsOne) {
  const std::string directory = ::testing::TempDir();
  try {
    read_trace(directory, 2);
    FAIL() << "no error for a directory";
  } catch (const data::DataError& error) {
    EXPECT_EQ(error.what(), "cluster.trace '" + directory + "': a directory; expected a CSV file");
  }
}

TEST(TraceErrors, MessagesNameFileLineAndProblem) {
  struct Case {
    std::string csv;
    std::string message;  // after "cluster.trace '<path>', "
  };
  const std::vector<Case> cases = {
      {"", "line 1: the file is empty; expected the header"},
      {"t,w,s\n", "line 1: the header is 't,w,s'; expected 'time,worker,speed'"},
      {"time,worker,speed\n0,1\n", "line 2: 2 fields; expected 3 (time,worker,speed)"},
      {"time,worker,speed\n0,0,1\nsoon,0,1\n", "line 3: time 'soon' is not a number"},
      {"time,worker,speed\n0,1.5,1\n", "line 2: worker '1.5' is not an integer"},
      {"time,worker,speed\n0,1,\n", "line 2: speed '' is not a number"},
      {"time,worker,speed\n0,1,1e-400\n", "line 2: speed '1e-400' is out of the range of a double"},
      {"time,worker,speed\n0,99999999999999999999,1\n",
       "line 2: worker '99999999999999999999' is out of the range of an integer"},
      // A control byte is shown, and a NUL does not end the message.
      {"time,worker,speed\n0,0,1\0002\n"s, "line 2: speed '1\\x002' is not a number"},
      {"ti\000me,worker,speed\n"s,
       "line 1: the header is 'ti\\x00me,worker,speed'; expected 'time,worker,speed'"},
      // Bytes past ASCII too (a binary file's), and a long line is cut after 80 bytes.
      {"\x7f"
       "ELF\xc3\n",
       "line 1: the header is '\\x7fELF\\xc3'; expected 'time,worker,speed'"},
      {std::string(200, 'a') + "\n", "line 1: the header is '" + std::string(80, 'a') +
                                         "... (200 bytes in all)'; expected 'time,worker,speed'"},
      {"time,worker,speed\n-1,0,1\n", "line 2: time -1 must be a finite number >= 0"},
      {"time,worker,speed\n0,0,0\n", "line 2: speed 0 must be a finite number > 0"},
      {"time,worker,speed\n0,2,1\n", "line 2: worker 2 is outside [0, 2) (cluster.workers = 2)"},
      {"time,worker,speed\n5,0,1\n1,1,1\n4,0,2\n",
       "line 4: time 4 of worker 0 is before its previous row's time 5; a worker's rows must be "
       "in non-decreasing time"},
  };
  for (const Case& c : cases) {
    std::string error = trace_error(c.csv);
    EXPECT_THAT(error, HasSubstr("cluster.trace '" + ::testing::TempDir())) << c.csv;
    EXPECT_THAT(error, ::testing::EndsWith(".csv', " + c.message)) << c.csv;
  }
}

}  // namespace
}  // namespace hetps::cluster
