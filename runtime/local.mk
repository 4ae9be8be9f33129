# runtime: libtile (see below)
