# What `pitot profile` links: libzip for the package, zlib for the gzip traces.
# Debian's libzip-dev ships a CMake config that fails without the zipcmp/zipmerge/ziptool
# programs, so libzip is found by its header and library instead.
find_package(ZLIB REQUIRED)
find_path(PITOT_LIBZIP_INCLUDE_DIR zip.h REQUIRED)
find_library(PITOT_LIBZIP_LIBRARY zip REQUIRED)
target_include_directories(pitot_driver PRIVATE ${PITOT_LIBZIP_INCLUDE_DIR})
target_link_libraries(pitot_driver PRIVATE ${PITOT_LIBZIP_LIBRARY} ZLIB::ZLIB)
