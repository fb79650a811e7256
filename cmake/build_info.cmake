# SPDX-License-Identifier: Apache-2.0
# Writes build_info.h (the commit every results file records) at build time, not only at
# configure time: a configured build directory that is rebuilt after a commit or an edit
# otherwise stamps its results with the commit it was configured at. configure_file rewrites
# the header only when its text changes, so an unchanged commit rebuilds nothing.
#   cmake -DSOURCE_DIR=... -DTEMPLATE=... -DOUTPUT=... -DPROJECT_VERSION=...
#         -DCMAKE_BUILD_TYPE=... [-DFA2BENCH_GIT=given] -P build_info.cmake
if(NOT FA2BENCH_GIT)
  execute_process(COMMAND git rev-parse --short=12 HEAD
                  WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE FA2BENCH_GIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND git status --porcelain --untracked-files=no
                  WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(FA2BENCH_GIT AND dirty)
    set(FA2BENCH_GIT "${FA2BENCH_GIT}-dirty")
  endif()
endif()
if(NOT FA2BENCH_GIT)
  set(FA2BENCH_GIT "unknown")
endif()
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
