# The layering test (STYLE.md L1, S6), run by CTest as `cmake -P`:
#  1. every quoted include of a library's sources names a folder that library may use:
#       core <- sim <- models <- {config, report} <- cli
#     where config/ and report/ use models/ and core/ but not sim/, and the tier-1 folders of
#     models/ (pure formulas) and models/*.h do not include sim/;
#  2. the probes of tests/layering/ that include a higher layer fail to compile with the
#     lower layer's include roots, and the control probe compiles.
# Arguments: -DSOURCE_DIR=<repository> -DBINARY_DIR=<build folder> -DPROBES=<a;b;...>.

cmake_minimum_required(VERSION 3.20)

set(allowed_core core)
set(allowed_sim core sim)
set(allowed_models core sim models)
set(allowed_config core models config)
set(allowed_report core models report)
set(allowed_cli core sim models config report cli)
# models/ tier 1: pure formulas, no engine (STYLE.md 3.1, E2).
set(tier1 gpu host storage interconnect collective memory cost energy spot calibration workload)

set(violations "")
foreach(layer core sim models config report cli)
  file(GLOB_RECURSE sources "${SOURCE_DIR}/${layer}/*.h" "${SOURCE_DIR}/${layer}/*.cpp")
  foreach(source IN LISTS sources)
    file(RELATIVE_PATH rel "${SOURCE_DIR}" "${source}")
    file(STRINGS "${source}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"[a-z_]+/")
    set(allowed ${allowed_${layer}})
    string(REGEX MATCH "^models/([a-z_]+)/" sub "${rel}")
    set(folder "${CMAKE_MATCH_1}")
    if(rel MATCHES "^models/[^/]+\\.h$" OR (NOT folder STREQUAL "" AND folder IN_LIST tier1))
      set(allowed core models)
    endif()
    foreach(line IN LISTS lines)
      string(REGEX MATCH "\"([a-z_]+)/" m "${line}")
      set(target "${CMAKE_MATCH_1}")
      if(NOT target IN_LIST allowed)
        string(STRIP "${line}" line)
        string(APPEND violations "  ${rel}: ${line} (${rel} may include ${allowed})\n")
      endif()
    endforeach()
  endforeach()
endforeach()
if(NOT violations STREQUAL "")
  message(FATAL_ERROR "layering: includes against the dependency direction (docs/architecture.md):\n${violations}")
endif()

foreach(probe IN LISTS PROBES)
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BINARY_DIR}" --target "layering_probe_${probe}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(STRINGS "${SOURCE_DIR}/tests/layering/${probe}.cpp" header REGEX "^#include \"" LIMIT_COUNT 1)
  string(REGEX MATCH "\"([^\"]+)\"" m "${header}")
  string(REPLACE "." "\\." header_regex "${CMAKE_MATCH_1}")
  if(probe STREQUAL "report_includes_results")
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "layering: the control probe ${probe}.cpp does not compile:\n${out}${err}")
    endif()
  elseif(rc EQUAL 0)
    message(FATAL_ERROR "layering: tests/layering/${probe}.cpp compiles, so a lower layer can include ${CMAKE_MATCH_1}")
  elseif(NOT "${out}${err}" MATCHES "${header_regex}(: No such file|' file not found)")
    message(FATAL_ERROR "layering: ${probe}.cpp failed for another reason than ${CMAKE_MATCH_1}:\n${out}${err}")
  endif()
endforeach()
message(STATUS "layering: includes follow core <- sim <- models <- {config, report} <- cli; ${PROBES} checked")
