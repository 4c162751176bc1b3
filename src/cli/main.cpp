#include "cli/main.h"

int main(int argc, char** argv) { return hetps::cli::main_entry(argc, argv); }
