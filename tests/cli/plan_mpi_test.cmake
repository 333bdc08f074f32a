# CI test of `mpirun -n 2 gpuplan plan ...` (labelled mpi; added only when the build has MPI):
# the gathered plan must be byte-identical to the single-process one.
# Variables: MPIRUN, GPUPLAN, SCENARIO, WORK_DIR.
set(args plan ${SCENARIO} --deadline 48h --providers gcp,lambda --format csv)
execute_process(COMMAND ${GPUPLAN} ${args} --threads 1 -o ${WORK_DIR}/plan_single.csv RESULT_VARIABLE rc1)
if(NOT rc1 EQUAL 0)
  message(FATAL_ERROR "single-process gpuplan plan failed: ${rc1}")
endif()
execute_process(COMMAND ${MPIRUN} -n 2 --allow-run-as-root --oversubscribe ${GPUPLAN} ${args} --threads 1
                        -o ${WORK_DIR}/plan_mpi.csv
                RESULT_VARIABLE rc2 OUTPUT_VARIABLE out2 ERROR_VARIABLE err2)
if(NOT rc2 EQUAL 0)
  message(FATAL_ERROR "mpirun -n 2 gpuplan plan failed: ${rc2}\n${out2}\n${err2}")
endif()
file(READ ${WORK_DIR}/plan_single.csv single)
file(READ ${WORK_DIR}/plan_mpi.csv gathered)
if(NOT single STREQUAL gathered)
  message(FATAL_ERROR "the 2-rank plan differs from the single-process plan")
endif()
string(LENGTH "${single}" n)
message(STATUS "2-rank plan identical to the single-process plan (${n} bytes)")
