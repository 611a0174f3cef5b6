# SPDX-License-Identifier: MIT
"""The report JSON's schema (schema.json, JSON Schema draft 2020-12) and a validator for the part
of JSON Schema it uses (type, required, properties, additionalProperties, items, enum, minimum),
so the check needs nothing outside Debian's python3; python3-jsonschema is used when present."""
import json
import os

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.json")
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def load_schema():
    with open(SCHEMA_PATH) as f:
        return json.load(f)


def _is(value, t):
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, TYPES[t])


def _validate(value, schema, path, errors):
    t = schema.get("type")
    if t is not None:
        types = t if isinstance(t, list) else [t]
        if not any(_is(value, x) for x in types):
            errors.append(f"{path}: expected {'/'.join(types)}, got {type(value).__name__}")
            return
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if "minimum" in schema and _is(value, "number") and value < schema["minimum"]:
        errors.append(f"{path}: {value} < minimum {schema['minimum']}")
    if isinstance(value, dict):
        for req in schema.get("required", []):
            if req not in value:
                errors.append(f"{path}: missing required '{req}'")
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                _validate(v, props[k], f"{path}.{k}", errors)
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected property '{k}'")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            _validate(v, schema["items"], f"{path}[{i}]", errors)


def validate(doc):
    """Returns a list of error strings (empty: valid)."""
    schema = load_schema()
    try:
        import jsonschema  # python3-jsonschema, where installed
        v = jsonschema.Draft202012Validator(schema) if hasattr(jsonschema, "Draft202012Validator") else None
        if v is not None:
            return [f"{'.'.join(str(p) for p in e.absolute_path)}: {e.message}" for e in v.iter_errors(doc)]
    except ImportError:
        pass
    errors = []
    _validate(doc, schema, "$", errors)
    return errors
