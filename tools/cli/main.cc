#include "cli.h"

int main(int argc, char** argv) { return utilsim::cli::RunMain(argc, argv); }
