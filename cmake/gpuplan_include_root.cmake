# Per-library include roots (STYLE.md L1, S6). Every header is included by its path from the
# repository root ("sim/engine.h"), but no target gets the repository root as an include
# directory: each library gets its own root, ${CMAKE_BINARY_DIR}/include/<folder>, which holds
# one symbolic link, <folder> -> the source folder. A library exposes that root PUBLIC, so only
# the targets that link it (the layers allowed above it) can include its headers; a lower layer
# that includes a higher one fails to compile ("No such file or directory"). The layering test
# (tests/layering/) proves it and scans every include.

# gpuplan_include_root(<target> <folder>): <target> exposes <folder>'s headers as "<folder>/...".
function(gpuplan_include_root target folder)
  set(root "${CMAKE_BINARY_DIR}/include/${folder}")
  file(MAKE_DIRECTORY "${root}")
  # Re-created on every configure, so a moved or copied checkout never points at stale sources.
  if(IS_SYMLINK "${root}/${folder}" OR EXISTS "${root}/${folder}")
    file(REMOVE "${root}/${folder}")
  endif()
  file(CREATE_LINK "${PROJECT_SOURCE_DIR}/${folder}" "${root}/${folder}" SYMBOLIC)
  target_include_directories(${target} PUBLIC "${root}")
endfunction()
