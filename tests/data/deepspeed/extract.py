"""Read the ZeRO facts a card may state out of a DeepSpeed checkout, into the deck's facts file.

Run by hand when the deck moves to a new DeepSpeed commit::

    python tests/data/deepspeed/extract.py /path/to/DeepSpeed > decks/deepspeed-zero.facts.json

The checkout must be a git work tree at that commit (its commit is recorded). It reads source
text only (``ast``; DeepSpeed is never imported, so no torch is needed) and records, with the
line each fact sits on:

- ``config_keys``, the section ``zerodrill validate`` reads because the deck names this file in
  its ``config_keys: facts``: the config block (``zero_optimization``), every key path it accepts
  (each field of the ZeRO config classes, by name or alias) with the values an enum-typed key
  takes, and every key DeepSpeed reads at the top of a config (followed from
  ``DeepSpeedConfig`` into each function and config class the config is handed to), so
  ``zero_allow_untested_optimizer`` is known from the source, not from a list;
- every field of the ``zero_optimization`` config classes, its alias and its default, and the
  defaults of the other sections cards talk about (``/fp16.*``, ``/bf16.*``, ``/aio.*``,
  ``/activation_checkpointing.*``, ``/compile.*``, ``/hybrid_engine.*``, ``zenflow.*``, and
  ``const:NAME`` for the NAME_DEFAULT constants of ``runtime/constants.py`` such as
  ``const:GRADIENT_CLIPPING``);
- the config validators that tie a key to a stage (``overlap_comm``'s stage-dependent default,
  partial offload);
- which stage-gated engine code reads which ZeRO key (the stage branches of
  ``DeepSpeedEngine._configure_zero_optimizer``, and ``if self.zero_optimization_partition_*()``
  blocks), which is where a key does or does not take effect;
- the stages ``PipelineEngine`` accepts.

``validate`` checks the config keys the deck names against the first section;
``tests/test_zero_deck_facts.py`` compares the deck's stated defaults and stages with the rest,
so the facts live in one reviewed place instead of in each test.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ZERO_CONFIG = "deepspeed/runtime/zero/config.py"
OFFLOAD_CONFIG = "deepspeed/runtime/zero/offload_config.py"
LEAF_MODULE_CONFIG = "deepspeed/runtime/zero/leaf_module_config.py"
CONFIG_READER = "deepspeed/runtime/config.py"
ENGINE = "deepspeed/runtime/engine.py"
CONSTANTS = "deepspeed/runtime/constants.py"
PIPE_ENGINE = "deepspeed/runtime/pipe/engine.py"

# Config classes and the key path their fields sit at: ZeRO keys by their path under
# zero_optimization, other sections with a leading "/" (the top of the config).
CLASSES = {
    ZERO_CONFIG: {"DeepSpeedZeroConfig": ""},
    LEAF_MODULE_CONFIG: {"DeepSpeedZeroLeafModuleConfig": "leaf_module."},
    OFFLOAD_CONFIG: {
        "DeepSpeedZeroOffloadParamConfig": "offload_param.",
        "DeepSpeedZeroOffloadOptimizerConfig": "offload_optimizer.",
    },
    "deepspeed/runtime/zenflow/zenflow_config.py": {"ZenFlowConfig": "zenflow."},
    "deepspeed/compile/config.py": {"CompileConfig": "/compile."},
    "deepspeed/runtime/precision_config.py": {
        "DeepSpeedFP16Config": "/fp16.",
        "DeepSpeedBF16Config": "/bf16.",
    },
    # The RLHF hybrid engine's switches (how ZeRO-3 weights are gathered for generation).
    CONFIG_READER: {"HybridEngineConfig": "/hybrid_engine."},
}
# Modules of plain NAME = "key" / NAME_DEFAULT = value constants. Where every NAME carries its
# section's prefix the key path is /section.key; runtime/constants.py mixes sections under
# unprefixed names, so its entries are named by the constant instead (const:GRADIENT_CLIPPING).
CONSTANT_MODULES = {
    CONSTANTS: None,
    "deepspeed/runtime/config.py": None,
    "deepspeed/runtime/swap_tensor/constants.py": ("AIO", "aio"),
    "deepspeed/runtime/activation_checkpointing/config.py": (
        "ACT_CHKPT",
        "activation_checkpointing",
    ),
}
# ZeroStageEnum at the same commit: how the engine's branch conditions name the stages.
STAGE_NAMES = {"disabled": 0, "optimizer_states": 1, "gradients": 2, "weights": 3}


def literal(node: ast.expr | None) -> Any:
    """A default as JSON: numbers, bools, None, strings; ``pp_int(x)`` is x; else its source."""
    if node is None:
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id == "pp_int" and node.args:
            inner = node.args[0]
            if isinstance(inner, ast.Attribute) and ast.unparse(inner) == "sys.maxsize":
                return "sys.maxsize"
            return int(literal(inner))
        if node.func.id == "Field":
            if node.args:
                return literal(node.args[0])
            for kw in node.keywords:
                if kw.arg == "default":
                    return literal(kw.value)
                if kw.arg == "default_factory":
                    return {"factory": ast.unparse(kw.value)}
            return None
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return {"expr": ast.unparse(node)}
    return value


def alias_of(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Field":
        for kw in node.keywords:
            if kw.arg == "alias" and isinstance(kw.value, ast.Constant):
                return kw.value.value
    return None


def deprecated(node: ast.expr | None) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Field":
        return any(
            kw.arg == "json_schema_extra" and "deprecated" in ast.unparse(kw.value)
            for kw in node.keywords
        )
    return False


def config_fields(root: Path) -> dict[str, dict[str, Any]]:
    fields: dict[str, dict[str, Any]] = {}
    for rel, classes in CLASSES.items():
        tree = ast.parse((root / rel).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ClassDef) and node.name in classes):
                continue
            prefix = classes[node.name]
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    name = stmt.target.id
                    if name.startswith("_") or name == "max_stage":
                        continue
                    fields[prefix + name] = {
                        "default": literal(stmt.value),
                        "alias": (prefix + alias_of(stmt.value)) if alias_of(stmt.value) else None,
                        "deprecated": deprecated(stmt.value),
                        "type": ast.unparse(stmt.annotation),
                        "file": rel,
                        "line": stmt.lineno,
                    }
    return fields


def constant_defaults(root: Path) -> dict[str, dict[str, Any]]:
    """Defaults from NAME = "key" / NAME_DEFAULT = value pairs (see CONSTANT_MODULES)."""
    out: dict[str, dict[str, Any]] = {}
    for rel, section in CONSTANT_MODULES.items():
        tree = ast.parse((root / rel).read_text(encoding="utf-8"))
        names: dict[str, str] = {}
        defaults: dict[str, tuple[Any, int]] = {}
        for node in tree.body:  # module level only: the values the config reader uses
            if not (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                continue
            name = node.targets[0].id
            if name.endswith("_DEFAULT"):
                try:
                    defaults[name[: -len("_DEFAULT")]] = (ast.literal_eval(node.value), node.lineno)
                except ValueError:
                    continue
            elif isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                names[name] = node.value.value
        for name, key in names.items():
            if name not in defaults or not key.isidentifier():
                continue
            if section is None:
                path = f"const:{name}"
            elif name == f"{section[0]}_{key.upper()}":
                path = f"/{section[1]}.{key}"
            else:
                continue
            value, line = defaults[name]
            out[path] = {
                "default": value,
                "alias": None,
                "deprecated": False,
                "type": type(value).__name__,
                "file": rel,
                "line": line,
                "key": key,
            }
    return out


def validators(root: Path) -> dict[str, dict[str, Any]]:
    """The model validators of the ZeRO config, with the stage they compare against."""
    out: dict[str, dict[str, Any]] = {}
    tree = ast.parse((root / ZERO_CONFIG).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(
            "validator" in ast.unparse(d) for d in node.decorator_list
        ):
            src = ast.unparse(node)
            out[node.name] = {
                "line": node.lineno,
                "end_line": node.end_lineno,
                "stages": sorted(v for k, v in STAGE_NAMES.items() if f"ZeroStageEnum.{k}" in src),
                "fields": sorted(
                    {
                        a.attr
                        for a in ast.walk(node)
                        if isinstance(a, ast.Attribute)
                        and isinstance(a.value, ast.Name)
                        and a.value.id == "self"
                    }
                ),
            }
    return out


def stage_of_condition(test: ast.expr) -> list[int] | None:
    """Stages for which an ``if zero_stage <op> ZeroStageEnum.<name>`` branch is taken."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if not (isinstance(left, ast.Name) and left.id == "zero_stage"):
        return None
    if not (isinstance(right, ast.Attribute) and right.attr in STAGE_NAMES):
        return None
    n = STAGE_NAMES[right.attr]
    # _configure_zero_optimizer only runs when ZeRO is on, so stage 0 never reaches it.
    candidates = range(1, 4)
    match op:
        case ast.LtE():
            return [s for s in candidates if s <= n]
        case ast.Eq():
            return [n]
        case ast.Lt():
            return [s for s in candidates if s < n]
        case ast.GtE():
            return [s for s in candidates if s >= n]
    return None


# Engine predicates that gate code on the stage, and the stages for which they are true.
STAGE_PREDICATES = {
    "zero_optimization_partition_weights": [3],
    "zero_optimization_partition_gradients": [2, 3],
}


def predicate_stages(test: ast.expr) -> list[int] | None:
    """Stages for which ``if self.<stage predicate>():`` is taken."""
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Attribute)
        and isinstance(test.func.value, ast.Name)
        and test.func.value.id == "self"
    ):
        return STAGE_PREDICATES.get(test.func.attr)
    return None


def engine_reads(root: Path, zero_fields: set[str]) -> dict[str, Any]:
    """For each ZeRO key, the stages of the stage-gated engine code that reads it.

    Two kinds of gate count: the stage branches of ``_configure_zero_optimizer``, which builds
    the optimizer for each stage (stage 0 never gets there), and ``if self.<predicate>():``
    blocks anywhere in the engine, such as the stage-3 path of ``save_16bit_model``.
    """
    tree = ast.parse((root / ENGINE).read_text(encoding="utf-8"))
    engine = next(
        n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "DeepSpeedEngine"
    )
    accessors: dict[str, str] = {}  # engine method -> zero config field it returns
    for node in engine.body:
        if (
            isinstance(node, ast.FunctionDef)
            and len(node.body) == 1
            and isinstance(node.body[0], ast.Return)
            and node.body[0].value is not None
        ):
            for sub in ast.walk(node.body[0].value):
                if not isinstance(sub, ast.Attribute):
                    continue
                owner = ast.unparse(sub.value)
                if owner == "self._config.zero_config" or (
                    owner == "self._config" and sub.attr in zero_fields
                ):
                    accessors[node.name] = sub.attr
    configure = next(
        n
        for n in engine.body
        if isinstance(n, ast.FunctionDef) and n.name == "_configure_zero_optimizer"
    )

    reads: dict[str, dict[str, Any]] = {}
    gates: list[dict[str, Any]] = []

    def record(body: list[ast.stmt], stages: list[int], local: dict[str, str]) -> None:
        for sub in ast.walk(ast.Module(body=body, type_ignores=[])):
            name = None
            if (
                isinstance(sub, ast.Call)
                and isinstance(sub.func, ast.Attribute)
                and isinstance(sub.func.value, ast.Name)
                and sub.func.value.id == "self"
            ):
                name = accessors.get(sub.func.attr)
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                name = local.get(sub.id)
            if name:
                entry = reads.setdefault(name, {"stages": [], "lines": []})
                entry["stages"] = sorted(set(entry["stages"]) | set(stages))
                entry["lines"] = sorted(set(entry["lines"]) | {sub.lineno})

    # Locals of _configure_zero_optimizer that hold a key's value (mics_shard_size = self...()).
    local = {}
    for stmt in configure.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)
            and stmt.value.func.attr in accessors
        ):
            local[stmt.targets[0].id] = accessors[stmt.value.func.attr]
    node: ast.stmt | None = next(
        (s for s in configure.body if isinstance(s, ast.If) and stage_of_condition(s.test)), None
    )
    while isinstance(node, ast.If) and (stages := stage_of_condition(node.test)) is not None:
        gates.append(
            {
                "stages": stages,
                "line": node.lineno,
                "end_line": node.body[-1].end_lineno,
                "condition": ast.unparse(node.test),
            }
        )
        record(node.body, stages, local)
        node = node.orelse[0] if len(node.orelse) == 1 else None

    for sub in ast.walk(engine):
        if isinstance(sub, ast.If) and (stages := predicate_stages(sub.test)) is not None:
            gates.append(
                {
                    "stages": stages,
                    "line": sub.lineno,
                    "end_line": sub.body[-1].end_lineno,
                    "condition": ast.unparse(sub.test),
                }
            )
            record(sub.body, stages, {})
    gates.sort(key=lambda g: g["line"])
    return {"gates": gates, "reads": reads, "accessors": accessors}


def pipeline_stages(root: Path) -> dict[str, Any]:
    """The stages PipelineEngine accepts: its ``assert ...zero_optimization_stage() < X``."""
    tree = ast.parse((root / PIPE_ENGINE).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assert)
            and isinstance(node.test, ast.Compare)
            and "zero_optimization_stage()" in ast.unparse(node.test.left)
            and isinstance(node.test.ops[0], ast.Lt)
            and isinstance(node.test.comparators[0], ast.Attribute)
        ):
            bound = STAGE_NAMES[node.test.comparators[0].attr]
            return {"stages": list(range(bound)), "line": node.lineno}
    raise AssertionError("PipelineEngine's ZeRO stage assertion not found")


def enum_values(root: Path) -> dict[str, list[Any]]:
    """The values of each ``Enum`` class in the config modules: what a field of that type takes.

    An alias member (``ZeroStageEnum.max_stage = 3``) is no value of its own.
    """
    out: dict[str, list[Any]] = {}
    for rel in CLASSES:
        tree = ast.parse((root / rel).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.ClassDef)
                and any(ast.unparse(base) == "Enum" for base in node.bases)
            ):
                continue
            values: list[Any] = []
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant):
                    if stmt.value.value not in values:
                        values.append(stmt.value.value)
            out[node.name] = values
    return out


class Module:
    """One module of the checkout, read for what it defines and imports at its top level."""

    def __init__(self, root: Path, rel: str) -> None:
        self.rel = rel
        self.tree = ast.parse((root / rel).read_text(encoding="utf-8"))
        self.defs: dict[str, ast.FunctionDef | ast.ClassDef] = {}
        self.strings: dict[str, str] = {}
        self.imports: dict[str, tuple[str, str]] = {}  # local name -> (module, its name there)
        self.stars: list[str] = []
        package = rel.rpartition("/")[0].split("/")
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                self.defs[node.name] = node
            elif (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                self.strings[node.targets[0].id] = node.value.value
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                dotted = "/".join([*base, *(node.module or "").split(".")]).strip("/")
                target = module_file(root, dotted)
                if target is None:
                    continue
                for alias in node.names:
                    if alias.name == "*":
                        self.stars.append(target)
                    else:
                        self.imports[alias.asname or alias.name] = (target, alias.name)


def module_file(root: Path, dotted: str) -> str | None:
    """The file of module ``dotted`` (written with '/'), if the checkout has it."""
    for rel in (f"{dotted}.py", f"{dotted}/__init__.py"):
        if (root / rel).is_file():
            return rel
    return None


class Reader:
    """Follows the config dict from where ``DeepSpeedConfig`` gets it to every key read of it.

    A key counts when code reads it from the whole config: ``get_scalar_param(d, KEY, ...)``,
    ``d[KEY]``, ``d.get(KEY)``, ``KEY in d`` (or ``d.keys()``), where ``d`` is the config
    itself, passed along through any function or config class that takes it.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules: dict[str, Module] = {}
        self.keys: dict[str, dict[str, Any]] = {}
        self.followed: set[tuple[int, str, tuple[tuple[str, str], ...]]] = set()

    def module(self, rel: str) -> Module:
        if rel not in self.modules:
            self.modules[rel] = Module(self.root, rel)
        return self.modules[rel]

    def string(self, rel: str, name: str, seen: frozenset[str] = frozenset()) -> str | None:
        """The text constant ``name`` stands for in module ``rel``, through its imports."""
        if rel in seen:
            return None
        module = self.module(rel)
        if name in module.strings:
            return module.strings[name]
        if name in module.imports:
            return self.string(*module.imports[name], seen | {rel})
        for star in module.stars:
            found = self.string(star, name, seen | {rel})
            if found is not None:
                return found
        return None

    def definition(
        self, rel: str, name: str, seen: frozenset[str] = frozenset()
    ) -> tuple[str, ast.FunctionDef | ast.ClassDef] | None:
        if rel in seen:
            return None
        module = self.module(rel)
        if name in module.defs:
            return rel, module.defs[name]
        if name in module.imports:
            return self.definition(*module.imports[name], seen | {rel})
        for star in module.stars:
            found = self.definition(star, name, seen | {rel})
            if found is not None:
                return found
        return None

    def key(self, rel: str, node: ast.expr, env: dict[str, str]) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return env[node.id] if node.id in env else self.string(rel, node.id)
        return None

    def follow(
        self,
        rel: str,
        function: ast.FunctionDef,
        config: str,
        env: dict[str, str],
        owner: ast.ClassDef | None,
    ) -> None:
        """Record the keys ``function`` (in ``rel``) reads of ``config``, an expression such
        as ``param_dict``; ``env`` holds the parameters bound to text constants."""
        mark = (id(function), config, tuple(sorted(env.items())))
        if mark in self.followed:
            return
        self.followed.add(mark)

        def is_config(node: ast.expr) -> bool:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "keys" and not node.args:
                    node = node.func.value
            return ast.unparse(node) == config

        # Names a loop binds to each of a literal tuple of keys in turn (for key in ("a", "b")).
        loops: dict[str, list[str]] = {}
        for node in ast.walk(function):
            if (
                isinstance(node, ast.For | ast.comprehension)
                and isinstance(node.target, ast.Name)
                and isinstance(node.iter, ast.Tuple | ast.List)
            ):
                values = [self.key(rel, item, env) for item in node.iter.elts]
                loops[node.target.id] = [v for v in values if v is not None]

        def read(node: ast.expr | None, at: ast.AST) -> None:
            if isinstance(node, ast.Name) and node.id in loops:
                keys = loops[node.id]
            else:
                key = self.key(rel, node, env) if node is not None else None
                keys = [key] if key is not None else []
            for key in keys:
                if key.isidentifier():
                    self.keys.setdefault(key, {"file": rel, "line": getattr(at, "lineno", 0)})

        for node in ast.walk(function):
            if isinstance(node, ast.Subscript) and is_config(node.value):
                read(node.slice, node)
            elif isinstance(node, ast.Compare) and len(node.ops) == 1:
                if isinstance(node.ops[0], ast.In | ast.NotIn) and is_config(node.comparators[0]):
                    read(node.left, node)
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr == "get" and is_config(func.value):
                    read(node.args[0] if node.args else None, node)
                    continue
                positions = [i for i, arg in enumerate(node.args) if is_config(arg)]
                if not positions:
                    continue
                if positions == [0] and len(node.args) > 1:
                    read(node.args[1], node)  # get_scalar_param(config, KEY, default) and kin
                self.call(rel, node, positions[0], env, owner)

    def call(
        self,
        rel: str,
        node: ast.Call,
        position: int,
        env: dict[str, str],
        owner: ast.ClassDef | None,
    ) -> None:
        """Follow a call that passes the config as positional argument ``position``."""
        func = node.func
        target: tuple[str, ast.FunctionDef | ast.ClassDef] | None = None
        if isinstance(func, ast.Name):
            target = self.definition(rel, func.id)
        elif (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
            and owner is not None
        ):
            method = next(
                (s for s in owner.body if isinstance(s, ast.FunctionDef) and s.name == func.attr),
                None,
            )
            target = (rel, method) if method is not None else None
        if target is None:
            return
        where, definition = target
        cls: ast.ClassDef | None = owner
        if isinstance(definition, ast.ClassDef):
            cls = definition
            init = next(
                (
                    s
                    for s in definition.body
                    if isinstance(s, ast.FunctionDef) and s.name == "__init__"
                ),
                None,
            )
            if init is None:
                return
            definition = init
        params = [a.arg for a in definition.args.posonlyargs + definition.args.args]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        if position >= len(params):
            return
        bound: dict[str, str] = {}
        defaults = definition.args.defaults
        for name, default in zip(params[len(params) - len(defaults) :], defaults, strict=True):
            value = self.key(where, default, {})
            if value is not None:
                bound[name] = value
        for name, arg in zip(params, node.args, strict=False):
            value = self.key(rel, arg, env)
            if value is not None:
                bound[name] = value
        bound.pop(params[position], None)
        self.follow(where, definition, params[position], bound, cls)


def top_level_keys(root: Path) -> dict[str, dict[str, Any]]:
    """The keys DeepSpeed reads at the top of a config, each with where it is first read.

    From ``DeepSpeedConfig``: its ``__init__`` (which reads ``self._param_dict``) and
    ``_initialize_params(param_dict)``, following the config into every function and config
    class it is handed to.
    """
    reader = Reader(root)
    found = reader.definition(CONFIG_READER, "DeepSpeedConfig")
    assert found is not None and isinstance(found[1], ast.ClassDef), "DeepSpeedConfig not found"
    rel, cls = found
    methods = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef)}
    reader.follow(rel, methods["__init__"], "self._param_dict", {}, cls)
    reader.follow(rel, methods["_initialize_params"], "param_dict", {}, cls)
    return dict(sorted(reader.keys.items()))


def config_keys(
    root: Path, fields: dict[str, dict[str, Any]], top_level: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """The section ``zerodrill validate`` reads (a deck's ``config_keys: facts``): the config
    block's name, every key path it accepts (a field's name or alias: the models are pydantic
    with ``populate_by_name``) with the values an enum-typed key takes, and the config's
    top-level keys."""
    block = Reader(root).string(ZERO_CONFIG, "ZERO_OPTIMIZATION")
    assert block in top_level, "zero_optimization is not read at the top of the config"
    enums = enum_values(root)
    keys: dict[str, dict[str, Any]] = {}
    for path, field in fields.items():
        if path.startswith(("/", "const:")):  # other sections of the config
            continue
        entry: dict[str, Any] = {}
        if field["alias"]:
            entry["aliases"] = [field["alias"].rpartition(".")[2]]
        enum = field["type"].removeprefix("Optional[").removesuffix("]")
        if enum in enums:
            entry["values"] = enums[enum]
        keys[path] = entry
    return {"block": block, "keys": dict(sorted(keys.items())), "top_level": sorted(top_level)}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: extract.py DEEPSPEED_CHECKOUT", file=sys.stderr)
        return 2
    root = Path(argv[1])
    commit = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    version = (root / "version.txt").read_text(encoding="utf-8").strip()
    fields = config_fields(root)
    fields = {**constant_defaults(root), **fields}
    top_level = top_level_keys(root)
    facts = {
        "config_keys": config_keys(root, fields, top_level),
        "commit": commit,
        "version": version,
        "fields": fields,
        "validators": validators(root),
        "engine": engine_reads(root, {k for k in fields if not any(c in k for c in "./:")}),
        "pipeline": pipeline_stages(root),
    }
    json.dump(facts, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
