"""Tile kernels as PyTorch custom operators (torch.library).

    import tile, tile.torch
    mod = tile.compile("examples/bias_gelu.tile")
    bias_gelu = tile.torch.custom_op(
        "mylib::bias_gelu", mod.bias_gelu,
        outputs={"out": tile.torch.like("x")},
        derived={"n": lambda a: a.x.numel()})
    y = bias_gelu(x, 1.5, -0.25)               # a torch.Tensor like x

Design. A kernel writes its results through pointer parameters; an
operator returns new tensors. custom_op turns one into the other from the
kernel's signature and three things the user says: which stored pointer
parameters are the outputs and how each is allocated (`outputs`: a spec
per name, `like(input)` or a callable giving (shape, dtype)); which
scalar parameters are computed from the inputs rather than passed
(`derived`: sizes, strides); and, for a kernel without grid(...), the
grid. Every other parameter is an input of the operator, in signature
order: pointers become `Tensor`, integers `int`, floats `float`, bools
`bool`, and the operator's schema is written from them, so nothing is
inferred from annotations. The operator is registered with
torch.library.custom_op (mutates_args=(): outputs are always fresh
tensors), with

- a fake implementation (register_fake) that checks the inputs' dtypes
  and devices against the signature and allocates the outputs from their
  specs, so that torch.compile(fullgraph=True) traces through the call
  without a graph break, whatever the sizes (symbolic shapes pass
  through the specs);
- a real implementation that makes the inputs contiguous (a copy only
  when they are not), allocates the outputs, computes the derived scalars
  and launches: tensors on a CUDA device go to the GPU kernel, which runs
  on the device of the tensors (made current for the launch when another
  is, as torch's operators do) and its current torch stream (gpu.py), so
  the launch is recorded under CUDA-graph capture like any torch kernel,
  and each rank of a data-parallel job launches on its own device; CPU
  tensors go to the reference interpreter. The kernel given may be
  either mode's: the other mode's twin is compiled on first need from the
  same source and options (tile.compile records them), so one operator
  serves both devices. A kernel of a bundle (tile.load) has no source and
  runs on CUDA only.

register_autograd(backward) makes the operator differentiable: by
default the inputs and outputs are saved (tensors through
ctx.save_for_backward) and `backward(saved, *grads)` receives them as
attributes named after the kernel's parameters, returning the inputs'
gradients as a tuple in input order or as a dict by name (missing: None).
A backward is typically another such operator (a Tile kernel), so
torch.compile traces the backward too. A setup_context of one's own is
passed to torch.library.register_autograd unchanged, with `backward`.

Misuse is a TileError naming the kernel and the parameter: an output or
derived name that is no such parameter, a stored pointer left out of the
outputs (operators do not mutate their inputs), a spec whose dtype is not
the parameter's type, an input of the wrong dtype or on another device.
"""

import contextlib
import types

import torch
from torch.autograd import forward_ad

from ._log import log
from ._types import TORCH, describe_type, torch_dtype
from .errors import ArgumentError, TileError

__all__ = ["custom_op", "like", "TileOp"]

_SCHEMA_TYPE = {"bool": "bool", "f16": "float", "bf16": "float", "f32": "float",
                "f64": "float"}


_ELEM = {}


def _elem(dtype):
    """The Tile element type of a torch dtype ('f32'), or None (kept per
    dtype: every launch asks)."""
    if dtype not in _ELEM:
        _ELEM[dtype] = TORCH.get(str(dtype).replace("torch.", ""))
    return _ELEM[dtype]


class like:
    """An output spec: the shape (and, unless `dtype` is given, the dtype)
    of the input named `name`."""

    def __init__(self, name, dtype=None):
        self.name, self.dtype = name, dtype

    def __call__(self, a):
        t = getattr(a, self.name)
        return tuple(t.shape), self.dtype or t.dtype

    def __repr__(self):
        return f"like({self.name!r}" + (f", dtype={self.dtype}" if self.dtype else "") + ")"


_NO_CONTEXT = contextlib.nullcontext()


def _on_device(device):
    """torch.cuda.device(device) when `device` is a CUDA device other than
    the current one, so that the launch runs in that device's context and
    on its current stream whatever device is current, as torch's own
    operators do; otherwise a context that does nothing."""
    if device.type == "cuda" and device.index is not None \
            and device.index != torch.cuda.current_device():
        return torch.cuda.device(device)
    return _NO_CONTEXT


# ------------------------------------------------------- the eager fast path
#
# Through torch.library, an eager call costs torch's dispatcher and, with
# autograd, torch.library's autograd wrapper as well: 31 and 55 us of host
# time per call on the H200's host, against 17-23 for the implementation
# itself, launch included (bench/prof_mlp.py; 18 and 33 us this way:
# docs/PERF.md, session 12). Where the dispatcher would do nothing but call
# the implementation, TileOp.__call__ calls it directly, and with autograd
# an autograd.Function made of the same setup and backward:
#   - no keyword arguments, and the signature's count of positional ones;
#   - every argument of exactly the type the schema takes as it is: a
#     torch.Tensor or nn.Parameter (no subclass: fake, functional and
#     user tensor subclasses dispatch themselves), an int, a float or an
#     int for a float, a bool;
#   - nothing intercepting operators: not compiling (torch.compile traces
#     the dispatcher path; Dynamo sees is_compiling() true), not tracing
#     with torch.jit, no TorchFunctionMode or TorchDispatchMode (fake,
#     proxy and functional modes are dispatch modes), no functorch
#     transform (vmap, grad), no forward-mode AD level.
# Anything else takes the dispatcher path. Both paths run the same
# _real, setup and backward, so results and gradients are the same; the
# autograd graph has one node per call either way.

_TENSORS = frozenset((torch.Tensor, torch.nn.Parameter))
_SCALAR_TYPES = {"bool": frozenset((bool,)), "float": frozenset((float, int))}
_INTS = frozenset((int,))


def _eager_types(p):
    """The argument types the fast path passes for parameter p as they are."""
    if p.pointer:
        return _TENSORS
    return _SCALAR_TYPES.get(_SCHEMA_TYPE.get(p.type, "int"), _INTS)


def _probe(name):
    """A torch query the fast path asks, or one that always says "dispatch"
    when this torch lacks it."""
    obj = torch
    for part in name.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return lambda: True
    return obj


_compiling = _probe("torch.compiler.is_compiling")
_jit_tracing = _probe("torch._C._is_tracing")
_function_modes = _probe("torch._C._len_torch_function_stack")
_dispatch_modes = _probe("torch._C._len_torch_dispatch_stack")
_functorch_level = _probe("torch._C._functorch.peek_interpreter_stack")


def _dispatch_needed():
    """Whether something may intercept operators now (see above); a torch
    lacking one of the queries always dispatches."""
    return bool(_compiling() or _jit_tracing() or _function_modes() or _dispatch_modes()
                or _functorch_level() is not None
                or getattr(forward_ad, "_current_level", 0) >= 0)


def _eager_function(op, setup, backward):
    """The autograd.Function of op's fast path: op's implementation with
    the setup and backward given to torch.library.register_autograd."""
    def forward(ctx, *args):
        out = op._real(*args)
        setup(ctx, args, out)
        return out
    return type(f"TileOp_{op.name.replace('::', '_')}", (torch.autograd.Function,), {
        "forward": staticmethod(forward), "backward": staticmethod(backward)})


def _namespace(names, values):
    return types.SimpleNamespace(**dict(zip(names, values)))


# ------------------------------------------------- the implementation, made
#
# An operator's implementation runs at every call, eager or compiled, and
# on the H200's host its general form (_real_generic: loops over the
# parameters, zips, a list per step) cost 21 us a call beside the 8 of the
# launch (docs/PERF.md, session 25). _make_real writes it out for the
# operator's own signature instead: one line per input, output and derived
# value, the dtypes compared by identity, each output's spec known to be
# like(...) (allocated by empty_like: half torch.empty's host time) or a
# callable when it is made. Anything unexpected at a call
# (a dtype or device that is not the signature's, a spec that fails or
# gives another dtype) hands the call to _real_generic, which raises the
# error or does the same work, so both forms behave alike.

_DEVICE_TYPES = ("cpu", "cuda")


def _make_real(op):
    """op's implementation as a function of its inputs (source in
    op._real_source)."""
    inputs = {n: j for j, n in enumerate(op.inputs)}
    tensors = [j for j, _, _ in op._tensor_inputs]
    if not tensors:
        return op._real_generic, None    # it fails: no tensor tells the device
    env = {"generic": op._real_generic, "NS": types.SimpleNamespace, "empty": torch.empty,
           "empty_like": torch.empty_like, "CONTIGUOUS": torch.contiguous_format,
           "elem": _elem, "kernels": {}, "kernel_for": op._kernel_for,
           "DEVICE_TYPES": _DEVICE_TYPES, "cuda_device": torch.cuda.device,
           "current_device": torch.cuda.current_device, "__name__": __name__}
    args = ", ".join(f"i{j}" for j in range(len(op.inputs)))
    fallback = f"return generic({args})"
    lines = []
    for j, _, dtype in op._tensor_inputs:
        env[f"dt{j}"] = dtype
    lines.append(f"if not ({' and '.join(f'i{j}.dtype is dt{j}' for j in tensors)}):")
    lines.append(f"    {fallback}")
    lines.append(f"device = i{tensors[0]}.device")
    other = "".join(f" or i{j}.device != device" for j in tensors[1:])
    lines.append(f"if device.type not in DEVICE_TYPES{other}:")
    lines.append(f"    {fallback}")
    lines += [f"i{j} = i{j}.contiguous()" for j in tensors]
    lines += ["a = NS()", "v = a.__dict__"]
    lines += [f"v[{n!r}] = i{j}" for n, j in inputs.items()]
    for k, (n, spec) in enumerate(op._specs.items()):
        want = op._params[n].type
        src = inputs.get(spec.name) if isinstance(spec, like) else None
        if src is not None and src in tensors and (
                _elem(spec.dtype) if spec.dtype else op._input_params[src].type) == want:
            env[f"odt{k}"] = spec.dtype
            dtype = f", dtype=odt{k}" if spec.dtype else ""
            lines.append(f"o{k} = empty_like(i{src}{dtype}, memory_format=CONTIGUOUS)")
        else:
            env[f"spec{k}"], env[f"ok{k}"] = spec, torch_dtype(torch, want)
            lines += ["try:", f"    s{k}, t{k} = spec{k}(a)", "except Exception:",
                      f"    {fallback}",
                      f"if t{k} is not ok{k} and elem(t{k}) != {want!r}:", f"    {fallback}",
                      f"o{k} = empty(tuple(s{k}), dtype=t{k}, device=device)"]
        lines.append(f"v[{n!r}] = o{k}")
    for m, (n, fn) in enumerate(op._derived.items()):
        env[f"der{m}"] = fn
        lines.append(f"v[{n!r}] = d{m} = der{m}(a)")
    lines += ["k = kernels.get(device.type)", "if k is None:",
              "    k = kernels[device.type] = kernel_for(device)"]
    names = {**{n: f"i{j}" for n, j in inputs.items()},
             **{n: f"o{k}" for k, n in enumerate(op._specs)},
             **{n: f"d{m}" for m, n in enumerate(op._derived)}}
    call = ", ".join(names[n] for n in op._param_names)
    if op._config:
        env["config"] = op._config
        call += ", **config"
    if callable(op._grid):
        env["grid"] = op._grid
        lines.append("g = grid(a)")
        launch = f"k[g]({call})"
    elif op._grid is not None:
        env["GRID"] = op._grid
        launch = f"k[GRID]({call})"
    else:
        launch = f"k({call})"
    lines += ["if device.index is not None and device.type == 'cuda' "
              "and device.index != current_device():",
              "    with cuda_device(device):", f"        {launch}",
              "else:", f"    {launch}"]
    outs = [f"o{k}" for k in range(len(op._specs))]
    lines.append(f"return {outs[0] if len(outs) == 1 else '(' + ', '.join(outs) + ')'}")
    src = f"def real({args}):\n" + "".join(f"    {line}\n" for line in lines)
    exec(compile(src, f"<tile.torch implementation of {op.name}>", "exec"), env)
    return env["real"], src


class TileOp:
    """A Tile kernel registered as the torch custom operator `name`.

    Calling it calls the operator (torch.ops.<ns>.<name>); `opdef` is the
    torch.library CustomOpDef (for torch.library.opcheck), `schema` its
    schema, `inputs` and `outputs` the parameter names."""

    def __init__(self, name, kernel, outputs, derived=None, grid=None, config=None):
        if "::" not in name:
            raise TileError(f"kernel '{kernel.name}': an operator name is "
                            f"'namespace::name', got {name!r}")
        self.name, self.kernel = name, kernel
        self._params = {p.name: p for p in kernel.params}
        self._specs = dict(outputs)
        self._derived = dict(derived or {})
        self._grid, self._config = grid, dict(config or {})
        self._check_declaration()
        self.outputs = list(self._specs)
        self.inputs = [p.name for p in kernel.params
                       if p.name not in self._specs and p.name not in self._derived]
        self._input_params = [self._params[n] for n in self.inputs]
        self._eager_types = [_eager_types(self._params[n]) for n in self.inputs]
        # (position, parameter, torch dtype) of each tensor input; the dtype
        # is what _check_inputs compares first (None: ask _elem)
        self._tensor_inputs = [(i, p, torch_dtype(torch, p.type))
                               for i, p in enumerate(self._input_params) if p.pointer]
        self._param_names = [p.name for p in kernel.params]
        self._eager_autograd = None
        self._twins = {kernel._module.interpret: kernel}
        self._ran_on = set()
        args = ", ".join(self._schema_arg(n) for n in self.inputs)
        rets = ", ".join("Tensor" for _ in self.outputs)
        self.schema = f"({args}) -> " + (rets if len(self.outputs) == 1 else f"({rets})")
        self._real, self._real_source = _make_real(self)
        self.opdef = torch.library.custom_op(name, self._real, mutates_args=(),
                                             schema=self.schema)
        self.opdef.register_fake(self._fake)
        log.info("custom op %s%s from kernel %s of %s", name, self.schema, kernel.name,
                 kernel._module.path)

    def _fail(self, message, name=None):
        p = f" parameter '{name}'" if name else ""
        raise TileError(f"custom op {self.name} (kernel '{self.kernel.name}'){p}: {message}")

    def _check_declaration(self):
        params = self._params
        if not self._specs:
            self._fail("needs at least one output (outputs={'name': spec})")
        for n, spec in self._specs.items():
            p = params.get(n)
            if p is None or not p.pointer:
                self._fail("is not a pointer parameter of the kernel, so it cannot be an "
                           f"output (pointers: {', '.join(q.name for q in params.values() if q.pointer)})", n)
            if not callable(spec):
                self._fail(f"the output spec must be like('input') or a callable "
                           f"returning (shape, dtype), got {spec!r}", n)
        for n, fn in self._derived.items():
            p = params.get(n)
            if p is None or p.pointer:
                self._fail("is not a scalar parameter of the kernel, so it cannot be "
                           "derived", n)
            if not callable(fn):
                self._fail(f"a derived value is a callable of the inputs, got {fn!r}", n)
        for p in params.values():
            if p.pointer and p.stored and p.name not in self._specs:
                self._fail("the kernel stores through it but it is not among the outputs "
                           "(tile.torch operators do not mutate their inputs)", p.name)
        if self._grid is None and not self.kernel.has_grid:
            self._fail("the kernel has no grid(...): give grid= (an int, a tuple, or a "
                       "callable of the inputs)")

    def _schema_arg(self, n):
        p = self._params[n]
        t = "Tensor" if p.pointer else _SCHEMA_TYPE.get(p.type, "int")
        return f"{t} {n}"

    def __call__(self, *args, **kwargs):
        """The operator on args: through torch's dispatcher (opdef), or
        straight to the implementation where that is the same (the eager
        fast path above)."""
        if kwargs or len(args) != len(self._eager_types) or _dispatch_needed():
            return self.opdef(*args, **kwargs)
        grad = False
        for a, types_ok in zip(args, self._eager_types):
            if type(a) not in types_ok:
                return self.opdef(*args)
            if types_ok is _TENSORS and a.requires_grad:
                grad = True
        if grad and torch.is_grad_enabled():
            if self._eager_autograd is None:
                return self.opdef(*args)
            return self._eager_autograd.apply(*args)
        return self._real(*args)

    def __repr__(self):
        return f"<tile.torch op {self.name}{self.schema}: kernel {self.kernel.name}>"

    # ---------------------------------------------------------------- checks

    def _check_inputs(self, args):
        """The inputs' device, after checking each tensor's dtype and that
        they share one device."""
        device = None
        for i, p, dtype in self._tensor_inputs:
            a = args[i]
            if a.dtype is not dtype and _elem(a.dtype) != p.type:
                self._bad_input(p, f"is a tensor of {a.dtype}, but the kernel takes "
                                   f"{describe_type(p)}")
            d = a.device
            if device is None:
                if d.type not in ("cpu", "cuda"):
                    self._bad_input(p, f"is on {d}: Tile runs on CUDA devices and, in the "
                                       f"interpreter, on the CPU")
                device = d
            elif d != device:
                self._bad_input(p, f"is on {d}, but an earlier input is on {device}")
        if device is None:
            self._fail("has no tensor input to tell the device its outputs go to")
        return device

    def _bad_input(self, p, why):
        raise ArgumentError(self.kernel.name, f"{why} (custom op {self.name})",
                            self.kernel.params.index(p), p.name)

    def _output_shapes(self, a):
        """[(shape, dtype)] per output, from the specs, checked."""
        out = []
        for n, spec in self._specs.items():
            try:
                shape, dtype = spec(a)
            except TileError:
                raise
            except Exception as e:  # noqa: BLE001 -- the user's spec failed
                self._fail(f"its output spec {spec!r} failed: {type(e).__name__}: {e}", n)
            want = self._params[n].type
            if _elem(dtype) != want:
                self._fail(f"its output spec gives dtype {dtype}, but the kernel stores "
                           f"{describe_type(self._params[n])}", n)
            out.append((tuple(shape), dtype))
        return out

    # --------------------------------------------------------- implementations

    def _fake(self, *args):
        device = self._check_inputs(args)
        shapes = self._output_shapes(_namespace(self.inputs, args))
        outs = [torch.empty(s, dtype=d, device=device) for s, d in shapes]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _real_generic(self, *args):
        """What the generated implementation (_make_real) does, step by
        step; it takes this way wherever something is not as expected, so
        that every error is raised here."""
        device = self._check_inputs(args)
        args = list(args)
        for i, _, _ in self._tensor_inputs:
            args[i] = args[i].contiguous()
        a = types.SimpleNamespace()
        values = a.__dict__
        values.update(zip(self.inputs, args))
        outs = [torch.empty(s, dtype=d, device=device) for s, d in self._output_shapes(a)]
        values.update(zip(self.outputs, outs))
        for n, fn in self._derived.items():
            values[n] = fn(a)
        kernel = self._kernel_for(device)
        values = [values[n] for n in self._param_names]
        grid = self._grid(a) if callable(self._grid) else self._grid
        with _on_device(device):
            if grid is None:
                kernel(*values, **self._config)
            else:
                kernel[grid](*values, **self._config)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _kernel_for(self, device):
        """The kernel of the mode for `device`: the one given, or its twin
        compiled from the same source and options."""
        interpret = device.type == "cpu"
        k = self._twins.get(interpret)
        if k is None:
            mod = self.kernel._module
            opts = getattr(mod, "_options", None)
            if opts is None:
                self._fail(f"the kernel was loaded from the bundle {mod.path}, which runs on "
                           f"CUDA devices only; for {device} tensors compile its source with "
                           f"tile.compile")
            from . import compile as tile_compile
            twin = tile_compile(mod.path, interpret=interpret, **dict(
                opts, arch=None if interpret else opts["arch"]))
            k = self._twins[interpret] = twin[self.kernel.name]
        if device.type not in self._ran_on:
            self._ran_on.add(device.type)
            log.info("custom op %s runs on %s (%s)", self.name, device.type,
                     "interpreter" if interpret else "GPU")
        return k

    # ---------------------------------------------------------------- autograd

    def register_autograd(self, backward, setup_context=None, materialize_grads=True):
        """Makes the operator differentiable (torch.library.register_autograd).

        Without setup_context: inputs and outputs are saved, and
        backward(saved, *grads) gets them as attributes by parameter name
        (one grad per output); it returns the inputs' gradients as a tuple
        in input order or a dict by input name (missing ones are None).
        materialize_grads=False: the grad of an output nothing used may
        arrive as None instead of a tensor of zeros (ctx.set_materialize_grads;
        saves filling and adding zeros for outputs kept only for the
        backward; with a setup_context of one's own too). With setup_context:
        both go to torch.library unchanged."""
        if setup_context is not None:
            own = setup_context
            if not materialize_grads:
                def setup_context(ctx, inputs, output):
                    ctx.set_materialize_grads(False)
                    own(ctx=ctx, inputs=inputs, output=output)
            torch.library.register_autograd(self.name, backward, setup_context=setup_context)
            self._eager_autograd = None
            return self
        # Which inputs are tensors is the schema's (a pointer parameter is a
        # Tensor, anything else a scalar), so it is worked out once here,
        # not per call; the outputs are all tensors.
        tensor_at = [i for i, _, _ in self._tensor_inputs]
        scalar_at = [(n, i) for i, (n, p) in enumerate(zip(self.inputs, self._input_params))
                     if not p.pointer]
        tensor_names = [self.inputs[i] for i in tensor_at] + self.outputs
        one_output = len(self.outputs) == 1

        def setup(ctx, inputs, output):
            ctx.set_materialize_grads(materialize_grads)
            ctx.save_for_backward(*[inputs[i] for i in tensor_at],
                                  *((output,) if one_output else output))
            ctx.tile_tensors = tensor_names
            ctx.tile_scalars = {n: inputs[i] for n, i in scalar_at}

        def run_backward(ctx, *grads):
            saved = types.SimpleNamespace(**ctx.tile_scalars)
            for n, t in zip(ctx.tile_tensors, ctx.saved_tensors):
                setattr(saved, n, t)
            g = backward(saved, *grads)
            if isinstance(g, dict):
                unknown = set(g) - set(self.inputs)
                if unknown:
                    self._fail(f"backward returned gradients for {sorted(unknown)}, which "
                               f"are not inputs (inputs: {', '.join(self.inputs)})")
                g = tuple(g.get(n) for n in self.inputs)
            elif not isinstance(g, tuple):
                g = (g,)
            if len(g) != len(self.inputs):
                self._fail(f"backward returned {len(g)} gradient(s) for "
                           f"{len(self.inputs)} input(s) ({', '.join(self.inputs)})")
            return g

        torch.library.register_autograd(self.name, run_backward, setup_context=setup)
        self._eager_autograd = _eager_function(self, setup, run_backward)
        return self


def custom_op(name, kernel, outputs, derived=None, grid=None, config=None):
    """The kernel as the torch custom operator `name` ("namespace::name").

    outputs: {param: spec}: the pointer parameters the kernel stores its
    results through, in the order the operator returns them; a spec is
    like("input"[, dtype]) or a callable (inputs) -> (shape, dtype).
    derived: {param: callable (inputs) -> value}: scalar parameters
    computed from the inputs (sizes, strides); these callables and callable
    grids also see the allocated outputs. grid: for a kernel without
    grid(...): an int, a tuple, or a callable of the inputs. config:
    configuration keywords for every launch ({"BLOCK": 1024}).
    The other parameters are the operator's inputs, in signature order;
    callables see them (made contiguous) as attributes named after the
    parameters. Returns a TileOp."""
    return TileOp(name, kernel, outputs, derived, grid, config)
