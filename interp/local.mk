# interp: fragment of the top-level Makefile.am
