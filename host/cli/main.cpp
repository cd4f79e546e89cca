#include "cli/commands.hpp"

int main(int argc, char** argv) {
  return traceprism::cli::run_command_line(argc, argv, /*may_restart=*/true);
}
