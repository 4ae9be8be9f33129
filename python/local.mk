# python: the `tile` Python package (pure Python over ctypes; no compiled
# extension) and its tests. python/run-tests runs pytest over python/tests
# with the tree's libtilec (.libs/), libtile (runtime/.libs/), stdlib and
# tilec; it exits 77 (SKIP) when numpy or pytest is missing.
TESTS += python/run-tests
EXTRA_DIST += python/run-tests python/pyproject.toml \
	python/tile/__init__.py python/tile/errors.py python/tile/kernel.py \
	python/tile/interp.py python/tile/gpu.py python/tile/_libs.py \
	python/tile/_types.py python/tile/_scalars.py python/tile/_host.py \
	python/tile/_device.py python/tile/_cache.py \
	python/tile/_log.py python/tile/torch.py python/tile/profile.py \
	python/tile/__main__.py python/tests/test_profile.py \
	python/tests/conftest.py python/tests/test_interp.py \
	python/tests/test_gpu.py python/tests/fakedriver_cases.py \
	python/tests/standin_torch.py python/tests/test_torch.py \
	python/tests/test_ranks.py python/tests/test_ptxas.py
clean-local: clean-python
clean-python:
	rm -rf python/.pytest_cache build-wheel
	find $(srcdir)/python -name __pycache__ -type d -prune -exec rm -rf {} +

# make wheel: build-wheel/dist/tile-VERSION-py3-none-manylinux_2_N_x86_64.whl,
# the package with tilec, libtilec, libtile, the stdlib and libdevice inside
# (python/make_wheel.py says the layout and how the tag is chosen). The
# binaries are built from this tree's distribution files (make distdir) in
# build-wheel/build, configured with --enable-static-llvm, so that tilec
# needs no LLVM where the wheel is installed. Not part of make check (a
# full build): python/tests/test_wheel.py checks the packaging on this
# build's own binaries.
WHEEL_CONFIGURE_FLAGS = --enable-static-llvm --with-llvm-config='$(LLVM_CONFIG)' \
	CC='$(CC)' CFLAGS='-O2'
wheel: distdir
	@test -n '$(LIBDEVICE)' || { echo "make wheel: the wheel carries the CUDA toolkit's libdevice, which configure did not find (--with-cuda=DIR)" >&2; exit 1; }
	rm -rf build-wheel/build && $(MKDIR_P) build-wheel/build
	cd build-wheel/build && $(abs_top_builddir)/$(distdir)/configure \
	    $(WHEEL_CONFIGURE_FLAGS) > configure.log && \
	  $(MAKE) tilec libtilec.la runtime/libtile.la
	chmod -R u+w $(distdir) && rm -rf $(distdir)
	python3 $(srcdir)/python/make_wheel.py build build-wheel/build $(srcdir) build-wheel/dist \
	  '$(LIBDEVICE)'
.PHONY: wheel
EXTRA_DIST += python/make_wheel.py python/tests/test_wheel.py \
	python/tests/data/ncu-softmax-source.csv

# The signature queries of tile_interp.h the binding checks arguments with.
check_PROGRAMS += tests/unit/test_tile_params
TESTS += tests/unit/test_tile_params
tests_unit_test_tile_params_SOURCES = tests/unit/test_tile_params.c \
	tests/unit/check.h
tests_unit_test_tile_params_LDADD = interp/libinterp.la bundle/libtlbir.la \
	bundle/libtlb.la sema/libsema.la parser/libparser.la base/libbase.la -lm

# Writes a real (hand-written PTX) bundle for the GPU-mode tests.
check_PROGRAMS += python/tests/write_vadd_bundle
python_tests_write_vadd_bundle_SOURCES = python/tests/write_vadd_bundle.c \
	tests/unit/vadd_bundle.h
python_tests_write_vadd_bundle_LDADD = bundle/libtlb.la
