"""The DAG ops cadparam emits, as data: each op's result and members (kind, whether required, the
range a literal must be in, what a reference may name).

Every node the emitter builds is checked against this table (`check_node`): a member the op does
not have or a missing required member is a cadparam bug; a literal out of its range is the
design's mistake and names its line. The kernel defines each op once (`lib/kernel/ops/`);
`tests/design/cadparam_ops_test.ts` holds this table to those specs, member by member, so the two
cannot drift.
"""

from __future__ import annotations

from typing import Any

from .suggest import unknown

# The limits a range may name (docs/dag.md, "Limits"); the kernel resolves them per render.
LIMITS = {"minSegments": 3, "maxSegments": 256, "maxRepeatCount": 1000, "maxGridCount": 10000}

POSITIVE = {"gt": 0}
NON_NEGATIVE = {"ge": 0}
DEGREES = {"gt": 0, "le": 360}
SEGMENTS = {"int": True, "ge": "minSegments", "le": "maxSegments"}
REPEAT_COUNT = {"int": True, "ge": 1, "le": "maxRepeatCount"}


# Every op cadparam emits, by name: declared next to the function that emits it (`declare`).
OPS: dict[str, dict[str, Any]] = {}


def member(kind: str, required: bool = True, **rules: Any) -> dict[str, Any]:
    """A member of `kind` (num, vec, bool, str, choice, nums, points, ref, refs, value, literal,
    name) with its rules (range, n, choices, accepts, min, max, color)."""
    return {"kind": kind, "required": required, **{k: v for k, v in rules.items() if v is not None}}


def num(range_: dict[str, Any] | None = None, required: bool = True) -> dict[str, Any]:
    """A number (or a reference to one) within `range_`."""
    return member("num", required, range=range_)


def vec(n: int, range_: dict[str, Any] | None = None, required: bool = True) -> dict[str, Any]:
    """A vector of `n` numbers, each within `range_`."""
    return member("vec", required, n=n, range=range_)


def flag(required: bool = False) -> dict[str, Any]:
    """A boolean (or a reference to one)."""
    return member("bool", required)


def ref(*accepts: str) -> dict[str, Any]:
    """A reference to a node of one of these types."""
    return member("ref", accepts=list(accepts))


def refs(maximum: int, *accepts: str) -> dict[str, Any]:
    """1–`maximum` references to nodes of these types."""
    return member("refs", accepts=list(accepts), min=1, max=maximum)


def declare(op_name: str, result: str, /, **members: dict[str, Any]) -> None:
    """Declares an op cadparam emits: its result type and its members, in order."""
    if op_name in OPS:
        raise AssertionError(f"op {op_name} declared twice")
    OPS[op_name] = {"result": result, "members": members}


def _bound(value: Any) -> float:
    return LIMITS[value] if isinstance(value, str) else value


def range_text(rules: dict[str, Any]) -> str:
    """A range in words: "> 0", "an integer ≥ 3 and ≤ 256", "non-zero"."""
    words = []
    if "gt" in rules:
        words.append(f"> {rules['gt']}")
    if "ge" in rules:
        words.append(f"≥ {_bound(rules['ge'])}")
    if "le" in rules:
        words.append(f"≤ {_bound(rules['le'])}")
    if rules.get("nonZero"):
        words.append("non-zero")
    text = " and ".join(words)
    return f"an integer {text}".rstrip() if rules.get("int") else text


def in_range(value: float, rules: dict[str, Any]) -> bool:
    """Whether a literal number meets its range (the kernel's `rangeViolation`, limits at their
    defaults)."""
    if rules.get("int") and not float(value).is_integer():
        return False
    if "gt" in rules and not value > rules["gt"]:
        return False
    if "ge" in rules and value < _bound(rules["ge"]):
        return False
    if "le" in rules and value > _bound(rules["le"]):
        return False
    return not (rules.get("nonZero") and value == 0)


def check_node(op_name: str, members: dict[str, Any], is_literal: Any, fail: Any) -> None:
    """Checks one node about to be emitted: its op and members against the table (a mismatch is a
    cadparam bug), then each choice and literal number against its member's rules
    (`fail(message)`)."""
    spec = OPS.get(op_name)
    if spec is None:
        raise AssertionError(f"cadparam emits an op the table does not know: {op_name}")
    known = spec["members"]
    extra = [key for key in members if key not in known]
    missing = [key for key, m in known.items() if m["required"] and key not in members]
    if extra or missing:
        raise AssertionError(f"cadparam's {op_name}: unknown {extra}, missing {missing}")
    for key, value in members.items():
        choices = known[key].get("choices")
        if choices is not None and value not in choices:
            fail(unknown(op_name, key, value, choices))
        rules = known[key].get("range")
        if rules is None:
            continue
        items = list(enumerate(value)) if known[key]["kind"] == "vec" else [(None, value)]
        for i, item in items:
            if is_literal(item) and not in_range(item, rules):
                where = f"{op_name} {key}" if i is None else f"{op_name} {key}[{i}]"
                fail(f"{where} must be {range_text(rules)}, got {item}")
