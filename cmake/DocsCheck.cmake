# cmake -DDOXYGEN=... -DDOXYFILES="a|b" -DHTML="dirA|dirB" -DEXPECT="f1|f2|..." -P DocsCheck.cmake
# The test docs.reference: runs Doxygen on each configuration (it fails on
# any warning, WARN_AS_ERROR), then checks that each function of EXPECT is in
# an index of documented functions of the HTML folders (globals_func.html:
# the C headers; namespacemembers_func.html: the C++ namespace and the
# Fortran modules). A C header without a \file block, or a namespace without
# a comment, drops out of the reference silently, without a warning.
string(REPLACE "|" ";" DOXYFILES "${DOXYFILES}")
string(REPLACE "|" ";" HTML "${HTML}")
string(REPLACE "|" ";" EXPECT "${EXPECT}")
foreach(doxyfile IN LISTS DOXYFILES)
  get_filename_component(doxyfile "${doxyfile}" ABSOLUTE)
  get_filename_component(workdir "${doxyfile}" DIRECTORY)
  execute_process(COMMAND "${DOXYGEN}" "${doxyfile}" WORKING_DIRECTORY "${workdir}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "doxygen ${doxyfile} failed (exit ${rc}; any warning above is an error, WARN_AS_ERROR)")
  endif()
endforeach()
set(index "")
foreach(dir IN LISTS HTML)
  get_filename_component(dir "${dir}" ABSOLUTE)
  foreach(page globals_func.html namespacemembers_func.html)
    if(EXISTS "${dir}/${page}")
      file(READ "${dir}/${page}" text)
      string(APPEND index "${text}")
    endif()
  endforeach()
endforeach()
set(missing "")
foreach(f IN LISTS EXPECT)
  # An index entry: <li>DLS_StartLoop()&#160;:&#160;<a ... (Doxygen 1.9).
  string(FIND "${index}" "<li>${f}()" at)
  if(at EQUAL -1)
    list(APPEND missing "${f}")
  endif()
endforeach()
if(missing)
  list(JOIN missing ", " missing)
  message(FATAL_ERROR "not in the API reference's indexes of functions (${HTML}): ${missing}")
endif()
list(LENGTH EXPECT n)
message("the API reference documents the ${n} functions checked")
