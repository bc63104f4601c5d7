"""A quick yes/no check of a record against the same schemas, for speed on big files.

jsonschema builds a validator object per subschema it descends into, which makes it the
slowest step of an import. Most lines are valid, so each line first goes through this check,
compiled from the very same schema dicts; only lines it does not pass are handed to
jsonschema, which decides and says why. The check may say no to a valid value (jsonschema then
accepts it) but never yes to an invalid one: it supports a small set of keywords, refuses to
compile any other, and answers no in every doubtful case.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

SUPPORTED = {
    "type",
    "required",
    "properties",
    "items",
    "enum",
    "const",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "format",
    "description",
    "default",
}  # format: annotation only


def _is_integer(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())


_TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _same(a: Any, b: Any) -> bool:
    # Only strings are compared here; anything else goes to jsonschema's own equality.
    return isinstance(a, str) and isinstance(b, str) and a == b


def compile_check(schema: dict[str, Any]) -> Check:
    unknown = set(schema) - SUPPORTED
    if unknown:
        raise ValueError(f"fastcheck cannot compile keyword(s) {sorted(unknown)}")
    checks: list[Check] = []
    if "type" in schema:
        names = [schema["type"]] if isinstance(schema["type"], str) else schema["type"]
        type_checks = [_TYPES[name] for name in names]
        checks.append(lambda v: any(check(v) for check in type_checks))
    if "enum" in schema:
        options = schema["enum"]
        checks.append(lambda v: any(_same(v, option) for option in options))
    if "const" in schema:
        constant = schema["const"]
        checks.append(lambda v: _same(v, constant))
    required = tuple(schema.get("required", ()))
    properties = {name: compile_check(sub) for name, sub in schema.get("properties", {}).items()}
    if required or properties:

        def check_object(v: Any) -> bool:
            if not isinstance(v, dict):
                return True  # these keywords bind objects only
            if any(name not in v for name in required):
                return False
            return all(check(v[name]) for name, check in properties.items() if name in v)

        checks.append(check_object)
    items = compile_check(schema["items"]) if "items" in schema else None
    min_items, max_items = schema.get("minItems", 0), schema.get("maxItems")
    if items or "minItems" in schema or max_items is not None:

        def check_array(v: Any) -> bool:
            if not isinstance(v, list):
                return True
            if len(v) < min_items or (max_items is not None and len(v) > max_items):
                return False
            return items is None or all(items(x) for x in v)

        checks.append(check_array)
    min_length, max_length = schema.get("minLength", 0), schema.get("maxLength")
    if "minLength" in schema or max_length is not None:
        checks.append(
            lambda v: (
                not isinstance(v, str)
                or (min_length <= len(v) and (max_length is None or len(v) <= max_length))
            )
        )
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(check(v) for check in checks)
