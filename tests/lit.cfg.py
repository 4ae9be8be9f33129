# lit configuration for Tile's golden and diagnostic tests.
#
# Each tests/**/*.tile file is one test; `make check` runs them one by one
# through tests/run-lit so that each counts in the Automake summary. The
# substitution %tilec is the freshly built compiler (TILEC from the
# environment), %stdlib the stdlib source directory.
import os
import lit.formats

config.name = "tile"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".tile"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.environ.get("TILE_LIT_EXEC_ROOT",
                                       os.path.join(os.getcwd(), "lit-out"))
tilec = os.environ.get("TILEC", "tilec")
srcroot = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
config.substitutions.append(("%tilec", tilec + " --no-color"))
config.substitutions.append(("%stdlib", os.path.join(srcroot, "stdlib")))
config.substitutions.append(("%examples", os.path.join(srcroot, "examples")))
llvm_bin = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
config.environment["PATH"] = llvm_bin + os.pathsep + os.environ.get("PATH", "")
config.environment["NO_COLOR"] = "1"
config.environment["TILE_STDLIB"] = os.path.join(srcroot, "stdlib")
# Tests of generated PTX may say `REQUIRES: ptxas` (configure found the
# CUDA toolkit's ptxas; its path is the substitution %ptxas).
ptxas = os.environ.get("PTXAS", "")
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
# Inputs that share a directory with tests but are not tests themselves.
config.excludes = ["Inputs"]
