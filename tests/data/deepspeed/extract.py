"""Read the ZeRO facts a card may state out of a DeepSpeed checkout, into ``zero-facts.json``.

Run by hand when the deck moves to a new DeepSpeed commit::

    python tests/data/deepspeed/extract.py /path/to/DeepSpeed > tests/data/deepspeed/zero-facts.json

It reads source text only (``ast``; DeepSpeed is never imported, so no torch is needed) and
records, with the line each fact sits on:

- every field of the ``zero_optimization`` config classes, its alias and its default;
- the config validators that tie a key to a stage (``overlap_comm``'s stage-dependent default,
  partial offload);
- which stage branch of ``DeepSpeedEngine._configure_zero_optimizer`` reads which ZeRO key,
  which is where a key does or does not take effect;
- the top-level config keys DeepSpeed reads (``runtime/constants.py``).

The tests compare the deck's stated defaults and stages with this file, so the facts live in one
reviewed place instead of in each test.
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
ENGINE = "deepspeed/runtime/engine.py"
CONSTANTS = "deepspeed/runtime/constants.py"

CLASSES = {
    ZERO_CONFIG: {"DeepSpeedZeroConfig": ""},
    OFFLOAD_CONFIG: {
        "DeepSpeedZeroOffloadParamConfig": "offload_param.",
        "DeepSpeedZeroOffloadOptimizerConfig": "offload_optimizer.",
    },
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
        return any(kw.arg == "json_schema_extra" and "deprecated" in ast.unparse(kw.value)
                   for kw in node.keywords)
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
                    {a.attr for a in ast.walk(node) if isinstance(a, ast.Attribute)
                     and isinstance(a.value, ast.Name) and a.value.id == "self"}
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


def engine_reads(root: Path) -> dict[str, Any]:
    """For each ZeRO key, the stages whose optimizer-construction branch reads it."""
    tree = ast.parse((root / ENGINE).read_text(encoding="utf-8"))
    accessors: dict[str, str] = {}  # engine method -> zero_config field it returns
    configure: ast.FunctionDef | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            if node.name == "_configure_zero_optimizer":
                configure = node
            for sub in ast.walk(node):
                if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Attribute)
                        and sub.value.attr == "zero_config"):
                    # Only one-line accessors count: `return self._config.zero_config.<field>`.
                    if len(node.body) == 1 and isinstance(node.body[0], ast.Return):
                        accessors[node.name] = sub.attr
    assert configure is not None, "DeepSpeedEngine._configure_zero_optimizer not found"

    reads: dict[str, dict[str, Any]] = {}
    branches: list[dict[str, Any]] = []
    node: ast.stmt | None = next(
        (s for s in configure.body if isinstance(s, ast.If) and stage_of_condition(s.test)), None)
    while isinstance(node, ast.If) and (stages := stage_of_condition(node.test)) is not None:
        end = node.body[-1].end_lineno
        branches.append({"stages": stages, "line": node.lineno, "end_line": end,
                         "condition": ast.unparse(node.test)})
        for sub in ast.walk(ast.Module(body=node.body, type_ignores=[])):
            if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                    and isinstance(sub.func.value, ast.Name) and sub.func.value.id == "self"
                    and sub.func.attr in accessors):
                field = accessors[sub.func.attr]
                entry = reads.setdefault(field, {"stages": [], "lines": []})
                entry["stages"] = sorted(set(entry["stages"]) | set(stages))
                entry["lines"].append(sub.lineno)
        node = node.orelse[0] if len(node.orelse) == 1 else None
    return {"function_line": configure.lineno, "branches": branches, "reads": reads,
            "accessors": accessors}


def top_level_keys(root: Path) -> list[str]:
    """String constants of runtime/constants.py whose name marks a config key."""
    tree = ast.parse((root / CONSTANTS).read_text(encoding="utf-8"))
    keys = set()
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            name = node.targets[0].id
            if name.isupper() and not name.endswith("_DEFAULT") and node.value.value.isidentifier():
                keys.add(node.value.value)
    return sorted(keys)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: extract.py DEEPSPEED_CHECKOUT", file=sys.stderr)
        return 2
    root = Path(argv[1])
    commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], check=True,
                            capture_output=True, text=True).stdout.strip()
    version = (root / "version.txt").read_text(encoding="utf-8").strip()
    facts = {
        "commit": commit,
        "version": version,
        "fields": config_fields(root),
        "validators": validators(root),
        "engine": engine_reads(root),
        "top_level_keys": top_level_keys(root),
    }
    json.dump(facts, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
