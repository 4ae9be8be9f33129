# stdlib: the standard library is Tile source, installed as data under
# $(pkgdatadir)/stdlib/std/ (where sema looks for `import "std/..."` when
# neither -I nor TILE_PATH nor TILE_STDLIB names another place) and
# shipped in the tarball.
stdlibstddir = $(pkgdatadir)/stdlib/std
dist_stdlibstd_DATA = stdlib/std/math.tile stdlib/std/random.tile \
	stdlib/std/grid.tile
# The fit behind std/math's gelu coefficients (numpy; not installed).
EXTRA_DIST += stdlib/tools/fit_gelu.py
