# cmake -DDOXYGEN=... -DDOXYFILE=... -DHTML=<dir> -DEXPECT="f1|f2|..." -P DocsCheck.cmake
# The test docs.reference: runs Doxygen (which fails on any warning,
# WARN_AS_ERROR), then checks that each function of EXPECT is in the
# reference's index of documented functions (html/globals_func.html for the
# C headers, html/namespacemembers_func.html for the C++ namespace): a
# header without a \file block, or a namespace without a comment, drops out
# of the reference silently, without a warning.
get_filename_component(DOXYFILE "${DOXYFILE}" ABSOLUTE)
get_filename_component(HTML "${HTML}" ABSOLUTE)
get_filename_component(workdir "${DOXYFILE}" DIRECTORY)
execute_process(COMMAND "${DOXYGEN}" "${DOXYFILE}" WORKING_DIRECTORY "${workdir}" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "doxygen failed (exit ${rc}; any warning above is an error, WARN_AS_ERROR)")
endif()
set(index "")
foreach(page globals_func.html namespacemembers_func.html)
  if(EXISTS "${HTML}/${page}")
    file(READ "${HTML}/${page}" text)
    string(APPEND index "${text}")
  endif()
endforeach()
string(REPLACE "|" ";" EXPECT "${EXPECT}")
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
  message(FATAL_ERROR "not in the API reference's index of functions (${HTML}): ${missing}")
endif()
list(LENGTH EXPECT n)
message("the API reference documents the ${n} functions checked")
