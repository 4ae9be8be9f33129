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
	python/tile/_log.py python/tile/torch.py \
	python/tests/conftest.py python/tests/test_interp.py \
	python/tests/test_gpu.py python/tests/fakedriver_cases.py \
	python/tests/standin_torch.py python/tests/test_torch.py \
	python/tests/test_ranks.py
clean-local: clean-python
clean-python:
	rm -rf python/.pytest_cache
	find $(srcdir)/python -name __pycache__ -type d -prune -exec rm -rf {} +

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
