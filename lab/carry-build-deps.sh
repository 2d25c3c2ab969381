#!/usr/bin/env bash
# Run here (the build machine) before a device call that builds pitot there (lab/python/run-h200.sh,
# lab/users-h200.sh, lab/python/seed-style): copies into .carry/usr what the GPU machine lacks to
# build pitot from source (it has compilers, CUDA, Python and cmake, but none
# of these -dev packages): the header-only nlohmann-json, CLI11 and fmt with their CMake config
# files (they locate themselves, so CMAKE_PREFIX_PATH=.carry/usr finds them), libfmt (fmt's config
# checks that its library exists), and libzip and zlib (the driver's, headers and libraries).
# .carry/ is git-ignored; name it in the device call's carry list. There the scripts source
# lab/carried-deps-env.sh to use it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dst=$root/.carry/usr
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
rm -rf "$dst"
mkdir -p "$dst/include" "$dst/share/cmake" "$dst/lib/$multiarch/cmake"
cp -r /usr/include/nlohmann /usr/include/CLI /usr/include/fmt "$dst/include/"
cp /usr/include/zip.h /usr/include/zipconf.h /usr/include/zlib.h /usr/include/zconf.h "$dst/include/"
cp -r /usr/share/cmake/nlohmann_json /usr/share/cmake/CLI11 "$dst/share/cmake/"
cp -r "/usr/lib/$multiarch/cmake/fmt" "$dst/lib/$multiarch/cmake/"
cp -a /usr/lib/"$multiarch"/libfmt.so* /usr/lib/"$multiarch"/libzip.so* "$dst/lib/$multiarch/"
cp -a /usr/lib/"$multiarch"/libz.so* "$dst/lib/$multiarch/" 2>/dev/null || cp -a /lib/"$multiarch"/libz.so* "$dst/lib/$multiarch/"
# libz.so may link to an absolute path of this machine: point it at the copy.
(cd "$dst/lib/$multiarch" && for l in libz.so libz.so.1; do [ -L "$l" ] && ln -sf "$(basename "$(readlink -f "$l")")" "$l"; done)
du -sh "$root/.carry"
