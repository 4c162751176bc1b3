// The whole `hetps` command line, with "tinycnn" registered:
//   hetps_with_tinycnn train --set model.name=tinycnn
#include "cli/main.h"
#include "tiny_cnn.h"

int main(int argc, char** argv) {
  custom_model::register_tiny_cnn();
  return hetps::cli::main_entry(argc, argv);
}
