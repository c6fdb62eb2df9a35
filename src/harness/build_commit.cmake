# Writes the source file that holds the commit the programs are built from (`<program> --version`), at
# every build, and touches it only when the commit or the tree's state changed (so that an unchanged tree
# relinks nothing). Run by the harness's CMakeLists.txt: cmake -DSOURCE_DIR=... -DOUTPUT=... -P build_commit.cmake
set(commit "unknown (not built from a git checkout)")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse HEAD
                  RESULT_VARIABLE status OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(status EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
    set(commit "${head}")
    # Tracked files changed since that commit: the programs are not exactly the commit.
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                    RESULT_VARIABLE status OUTPUT_VARIABLE changes ERROR_QUIET)
    if(status EQUAL 0 AND NOT changes STREQUAL "")
      set(commit "${commit} (with uncommitted changes)")
    endif()
  endif()
endif()
set(content "// Written by src/harness/build_commit.cmake at build time.\nnamespace harness::detail {\nconst char* build_commit() { return \"${commit}\"; }\n}  // namespace harness::detail\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
else()
  set(old "")
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUTPUT}" "${content}")
endif()
