# Script mode (cmake -P), run at build time by tools/CMakeLists.txt:
# installs the charting libraries of the HTML report exactly as pinned by
# tools/report/package-lock.json, into the build folder (never the source
# tree), and touches STAMP on success.
#
#   -DSRC=<tools/report>  folder with package.json, package-lock.json, .npmrc
#   -DDIR=<build>/report-npm  where node_modules is created
#   -DNPM=<path of npm>
#   -DSTAMP=<file touched when done>
#
# `npm ci --ignore-scripts` runs no package scripts and fails rather than
# deviate from the lockfile; `--prefer-offline` takes packages from npm's
# cache (~/.npm) when they are there, so a rebuild needs no network.
foreach(var SRC DIR NPM STAMP)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "npm_ci.cmake: -D${var}=... is required")
  endif()
endforeach()

file(MAKE_DIRECTORY "${DIR}")
foreach(f package.json package-lock.json .npmrc)
  file(COPY_FILE "${SRC}/${f}" "${DIR}/${f}" ONLY_IF_DIFFERENT)
endforeach()

execute_process(
  COMMAND "${NPM}" ci --ignore-scripts --no-audit --no-fund --prefer-offline
  WORKING_DIRECTORY "${DIR}"
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR
    "utilsim: could not install the report's charting libraries (npm packages vega, "
    "vega-lite, vega-embed, pinned in tools/report/package-lock.json).\n"
    "Command: (cd ${DIR} && ${NPM} ci --ignore-scripts --no-audit --no-fund --prefer-offline)\n"
    "npm failed (${rc}):\n${err}\n"
    "If the npm registry is unreachable: run that command once where it is reachable (npm keeps "
    "the packages in its cache, ~/.npm, and later builds use the cache), or configure with "
    "-DUTILSIM_REPORT_NODE_MODULES=<a node_modules folder holding vega, vega-lite and "
    "vega-embed at the locked versions>. See docs/report.md.")
endif()
file(TOUCH "${STAMP}")
