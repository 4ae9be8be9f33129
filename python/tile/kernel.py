"""What every kernel object does, in the interpreter and on the GPU alike:
take a call `k(*args, **kwargs)` or `k[grid](*args, **kwargs)` apart into
runtime arguments (positional, or keyword by parameter name), the
configuration asked for (keywords naming compile-time parameters, `warps`
or `stages`) and the grid, and check them against what the kernel was
built with. Each mode then only packs arguments and runs (`_run`).

Per-kernel work (the argument checkers, a configuration string per set of
keywords) is done once and kept, so a repeated launch does no parsing.

A keyword asking for a value no configuration was built with: a module
compiled from source (tile.compile) is compiled again with the keywords as
defines (launch-time choice has the highest precedence), once per set of
keywords, and the launch runs that module's kernel; a loaded bundle cannot
be, and the launch is a ConfigError saying what was built.
"""

from ._log import log
from ._types import describe_type, type_name
from .errors import ArgumentError, ConfigError


_MISSING = object()


def _config_value(v):
    """A configuration value as the configuration list spells it."""
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    t = type_name(v)
    if t is None:
        raise TypeError(f"not a configuration value: {v!r}")
    return t


def normalize_grid(kernel, grid):
    """(x, y, z) of an int or a tuple of 1 to 3 ints."""
    g = tuple(grid) if isinstance(grid, (tuple, list)) else (grid,)
    if not 1 <= len(g) <= 3 or not all(isinstance(d, int) and not isinstance(d, bool)
                                       for d in g):
        raise ArgumentError(kernel, f"a grid is an int or a tuple of 1 to 3 ints, got {grid!r}")
    if any(d < 0 or d >= 2**32 for d in g):
        raise ArgumentError(kernel, f"grid {grid!r} has a dimension out of range")
    return g + (1,) * (3 - len(g))


class Kernel:
    """A kernel of a compiled module.

    k(*args, **config) launches over the kernel's grid(...);
    k[grid](*args, **config) over an explicit grid (an int or a tuple).
    Attributes: name, params (list of Param), configs (list of dicts, one
    per configuration the kernel was built with), has_grid.
    """

    # Set by a mode that cannot select configurations: why not.
    _no_config_reason = None

    def __init__(self, name, params, configs, has_grid):
        self.name = name
        self.params = params
        self.configs = configs
        self.has_grid = has_grid
        self._index = {p.name: i for i, p in enumerate(params)}
        self._config_names = {n for c in configs for n in c}
        self._chosen = {}

    def __repr__(self):
        sig = ", ".join(f"{p.name}: {describe_type(p)}" for p in self.params)
        n = len(self.configs)
        return f"<tile kernel {self.name}({sig})" + (f", {n} configuration(s)>" if n else ">")

    def __getitem__(self, grid):
        g = normalize_grid(self.name, grid)
        return lambda *args, **kwargs: self._launch(g, args, kwargs)

    def __call__(self, *args, **kwargs):
        return self._launch(None, args, kwargs)

    def _launch(self, grid, args, kwargs):
        target, config = self, None
        if kwargs:
            args, target, config = self._split_keywords(args, kwargs)
        if len(args) != len(self.params):
            self._wrong_count(args)
        if grid is None and not self.has_grid:
            raise ArgumentError(self.name, "has no grid(...): launch it with an explicit "
                                f"grid, as k[grid](...)")
        if grid is not None and 0 in grid:
            return None   # no programs to run
        return target._run(grid, args, config)

    def _wrong_count(self, args):
        n = len(self.params)
        names = ", ".join(p.name for p in self.params)
        raise ArgumentError(self.name, f"takes {n} argument{'s' if n != 1 else ''} "
                            f"({names}), got {len(args)}")

    def _split_keywords(self, args, kwargs):
        """(args, kernel, config): runtime arguments given by name join
        `args`; the rest selects the kernel to run (this one, or one
        rebuilt with them) and its configuration string (None: all)."""
        named, config = {}, {}
        for key, v in kwargs.items():
            if key in self._index:
                named[key] = v
            elif key in self._config_names:
                config[key] = v
            else:
                if self._no_config_reason:
                    raise ConfigError(self.name, f"cannot select '{key}': "
                                      f"{self._no_config_reason}")
                raise ConfigError(self.name, f"'{key}' is neither a parameter nor a "
                                  f"compile-time parameter (parameters: "
                                  f"{', '.join(self._index)}; configuration: "
                                  f"{', '.join(sorted(self._config_names))})")
        if named:
            args = list(args)
            for key in named:
                if self._index[key] < len(args):
                    raise ArgumentError(self.name, f"argument '{key}' given twice")
            args += [_MISSING] * (len(self.params) - len(args))
            for key, v in named.items():
                args[self._index[key]] = v
            missing = [p.name for p, a in zip(self.params, args) if a is _MISSING]
            if missing:
                raise ArgumentError(self.name, f"missing argument(s): {', '.join(missing)}")
        if not config:
            return tuple(args), self, None
        return (tuple(args),) + self._select(config)

    def _select(self, config):
        """(kernel, "NAME=V,..." or None) for keyword config values: this
        kernel and the string when a configuration it was built with
        agrees, else the kernel of the module rebuilt with them as defines
        (then no string: it has only such configurations). Kept per key set."""
        key = tuple(sorted((k, type(v).__name__, repr(v)) for k, v in config.items()))
        hit = self._chosen.get(key)
        if hit is not None:
            return hit
        try:
            want = {k: _config_value(v) for k, v in config.items()}
        except TypeError as e:
            raise ConfigError(self.name, str(e)) from None
        if any(all(c.get(k) == v for k, v in want.items()) for c in self.configs):
            hit = (self, ",".join(f"{k}={v}" for k, v in want.items()))
        else:
            hit = (self._rebuilt(config, want), None)
        self._chosen[key] = hit
        return hit

    def _rebuilt(self, config, want):
        """This kernel compiled again with `config` as defines, when its
        module came from source; else the ConfigError of a selection that
        names nothing built."""
        module = getattr(self, "_module", None)
        rebuild = getattr(module, "_rebuild", None)
        asked = ",".join(f"{k}={v}" for k, v in want.items())
        if rebuild is None:
            avail = "; ".join(",".join(f"{k}={v}" for k, v in c.items()) for c in self.configs)
            missing = []
            for k, v in want.items():
                built = sorted({c[k] for c in self.configs if k in c},
                               key=lambda x: (len(x), x))
                if v not in built:
                    missing.append(f"{k}={v} was asked for, but only {k}="
                                   f"{', '.join(built)} {'was' if len(built) == 1 else 'were'}"
                                   f" built")
            where = getattr(module, "bundle_path", None) or getattr(module, "path", "?")
            raise ConfigError(self.name, f"no configuration {asked} was built; "
                              f"available: {avail}" +
                              (f" ({'; '.join(missing)})" if missing else "") +
                              f". The module was loaded from the bundle {where}, which "
                              f"cannot be recompiled: build it with tilec -D NAME=VALUE, "
                              f"or compile the source with tile.compile")
        log.info("kernel %s: no configuration %s was built; compiling %s again with it",
                 self.name, asked, module.path)
        return rebuild(config)[self.name]

    def _run(self, grid, args, config):
        raise NotImplementedError


def parse_configs(text):
    """Configurations of tile_kernel_configs' text, as dicts name -> str."""
    out = []
    for line in (text or "").splitlines():
        if line.strip():
            out.append(dict(item.split("=", 1) for item in line.split(",")))
    return out


class Module:
    """Kernels by name: mod.vadd or mod["vadd"]; `kernels` lists the names.
    A mode supplies _make_kernel(name)."""

    def __init__(self, path, kernels):
        self.path = path
        self.kernels = kernels
        self._made = {}

    def __dir__(self):
        return list(super().__dir__()) + self.kernels

    def __getitem__(self, name):
        k = self._made.get(name)
        if k is None:
            if name not in self.kernels:
                raise KeyError(f"{self.path} has no kernel '{name}' "
                               f"(kernels: {', '.join(self.kernels)})")
            k = self._made[name] = self._make_kernel(name)
        return k

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(e.args[0]) from None
