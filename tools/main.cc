#include "utilsim/tools/cli.h"

int main(int argc, char** argv) { return utilsim::tools::RunMain(argc, argv); }
