#!/usr/bin/env python3
"""Prepare docs/openapi.json for the client generators.

The server's document nests some schemas' definitions under the schema
that first used them (schemars' `$defs`: `#/components/schemas/Event/$defs/
StartEvent`). openapi-python-client resolves references to
`#/components/schemas/NAME` only and drops a schema it cannot resolve (the
envelope and the events would be missing from the Python client), so this
step hoists every nested definition into `components.schemas` under its own
name and points the references there (and a definition's `#`, its
root, at the schema it was nested in). And an `operationId` that two
operations share (OpenAPI requires them unique; openapi-typescript's
`operations` cannot hold both) becomes one per operation (see
`unique_operation_ids`). It changes nothing else, and nothing at all in a
document without nested `$defs` and with unique operation ids.

Two definitions of one name must be the same schema, but for `title` and
`$schema` (they are: each is one Rust type); if they ever differ the step
fails, naming it, rather than guess. The output has sorted keys: the same
input always gives the same
bytes.

Usage: prepare_document.py IN.json OUT.json
"""

import json
import re
import sys

NESTED_REF = re.compile(r"^#/components/schemas/[^/]+/\$defs/([^/]+)$")


def flat_refs(node, root=None):
    """`node` with every nested reference pointing at its hoisted name, and
    `#` (schemars' reference to the schema's own root) at `root`."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and value == "#" and root is not None:
                out[key] = f"#/components/schemas/{root}"
                continue
            match = NESTED_REF.match(value) if key == "$ref" and isinstance(value, str) else None
            out[key] = f"#/components/schemas/{match.group(1)}" if match else flat_refs(value, root)
        return out
    if isinstance(node, list):
        return [flat_refs(item, root) for item in node]
    return node


def canonical(schema):
    """The schema's JSON for comparing, without what only names it."""
    named = {k: v for k, v in schema.items() if k not in ("title", "$schema")}
    return json.dumps(named, sort_keys=True)


def hoist(document):
    schemas = document.get("components", {}).get("schemas", {})
    nested = {}  # name -> (where, schema)
    for parent in sorted(schemas):
        defs = schemas[parent].pop("$defs", None) or {}
        schemas[parent] = flat_refs(schemas[parent], parent)
        for name in sorted(defs):
            schema = flat_refs(defs[name], parent)
            where = f"{parent}/$defs/{name}"
            if name in nested and canonical(nested[name][1]) != canonical(schema):
                raise SystemExit(f"prepare_document: {where} and {nested[name][0]} differ")
            nested.setdefault(name, (where, schema))
    document = flat_refs(document)
    schemas = document.get("components", {}).get("schemas", {})
    for name, (where, schema) in nested.items():
        if name in schemas:
            if canonical(schemas[name]) != canonical(schema):
                raise SystemExit(f"prepare_document: {where} differs from the schema {name}")
            continue
        schemas[name] = schema
    return document


METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def unique_operation_ids(document):
    """Give each operation of a shared `operationId` its own: the id, `_`,
    and the last fixed segment of its path (`list` of /v1/models and of
    /v1/skills: `list_models`, `list_skills`). OpenAPI requires unique ids;
    openapi-typescript's `operations` would hold two of one name."""
    operations = []
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            if isinstance(item.get(method), dict) and "operationId" in item[method]:
                operations.append((path, item[method]))
    counts = {}
    for _, operation in operations:
        counts[operation["operationId"]] = counts.get(operation["operationId"], 0) + 1
    taken = set(counts)
    for path, operation in operations:
        old = operation["operationId"]
        if counts[old] < 2:
            continue
        segments = [s for s in path.split("/") if s and not s.startswith("{")]
        new = f"{old}_{segments[-1] if segments else 'root'}".replace("-", "_")
        if new in taken:
            raise SystemExit(f"prepare_document: cannot rename the shared operationId {old} of {path}: {new} is taken")
        taken.add(new)
        operation["operationId"] = new
    return document


def main(argv):
    if len(argv) != 3:
        print("usage: prepare_document.py IN.json OUT.json", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        document = json.load(f)
    document = unique_operation_ids(hoist(document))
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
