# Common compile flags for every lb4mpi target (library, tools, tests, apps).
add_library(lb4mpi_flags INTERFACE)
target_compile_options(lb4mpi_flags INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
  $<$<COMPILE_LANG_AND_ID:C,GNU,Clang>:-Wall -Wextra>)
if(LB4MPI_WERROR)
  target_compile_options(lb4mpi_flags INTERFACE -Werror)
endif()
# g++ 12 at -O3 (the default Release flags, scripts/demo.sh) reports
# -Wrestrict inside libstdc++'s std::string concatenation (GCC bug 105651,
# fixed in 13): a false positive in the standard library, not in our code.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(lb4mpi_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()
if(LB4MPI_SANITIZE)
  target_compile_options(lb4mpi_flags INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                                -fno-sanitize-recover=undefined)
  target_link_options(lb4mpi_flags INTERFACE -fsanitize=address,undefined)
endif()
