# Sourced on the GPU machine by the lab scripts that build pitot there, after they set $root (the
# repository root): .carry/usr, made on the build machine by lab/carry-build-deps.sh, stands in for
# the -dev packages the GPU machine lacks; pip stays offline (the machine has no network). Sets
# $carry and $multiarch; each script sets its own PATH.
carry=$root/.carry/usr
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
export CMAKE_PREFIX_PATH="$carry${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
export LD_LIBRARY_PATH="$carry/lib/$multiarch:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# The Python package built there with CUDA into SITE (a --target folder), its log in LOG; prints
# "Python build: exit N, T s".
build_python_site() {
  local site=$1 log=$2 t
  t=$(date +%s)
  CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=90 -DPITOT_ENABLE_HIP=OFF -DPITOT_BUILD_DRIVER=OFF" CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) \
    python3 -m pip install -v --no-build-isolation --no-deps --target "$site" -C build-dir=/tmp/pitot-python-build \
    "$root/python" > "$log" 2>&1
  echo "Python build: exit $?, $(( $(date +%s) - t )) s"
}
