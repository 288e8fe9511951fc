#!/usr/bin/env python3
"""Prepare docs/openapi.json for the client generators.

The server's document nests some schemas' definitions under the schema
that first used them (schemars' `$defs`: `#/components/schemas/Event/$defs/
StartEvent`). openapi-python-client resolves references to
`#/components/schemas/NAME` only and drops a schema it cannot resolve (the
envelope and the events would be missing from the Python client), so this
step hoists every nested definition into `components.schemas` under its
own name and points the references there (and a definition's `#`, its
root, at the schema it was nested in). Two more: an `operationId` that two
operations share (OpenAPI requires them unique; openapi-typescript's
`operations` cannot hold both) becomes one per operation
(`unique_operation_ids`), and a `oneOf` of string constants becomes an
`enum` (`const_unions_as_enums`), and a `oneOf` of a string and a bare
object becomes any value (`loose_object_unions`). It changes nothing else, and nothing at
all in a document without nested `$defs`, shared operation ids and such
unions.

Two definitions of one name must be the same schema, but for `title` and
`$schema` (they are: each is one Rust type); if they ever differ the step
fails, naming it, rather than guess. The output has sorted keys: the same
input always gives the same bytes.

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


def const_unions_as_enums(node):
    """A `oneOf` whose every member is one string `const` (schemars' way to
    document each value of an enum) becomes `enum` of those strings, each
    value's description moved into a list in the schema's. openapi-python-
    client parses such a `oneOf` by its first member only and refuses every
    other value (a real envelope then stays an untyped dict)."""
    if isinstance(node, list):
        return [const_unions_as_enums(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: const_unions_as_enums(value) for key, value in node.items()}
    members = node.get("oneOf")
    if (
        isinstance(members, list)
        and members
        and all(
            isinstance(m, dict)
            and isinstance(m.get("const"), str)
            and m.get("type", "string") == "string"
            and set(m) <= {"const", "type", "description"}
            for m in members
        )
    ):
        del node["oneOf"]
        node["type"] = "string"
        node["enum"] = [m["const"] for m in members]
        described = [f"- `{m['const']}`: {m['description']}" for m in members if m.get("description")]
        if described:
            text = node.get("description", "")
            node["description"] = (text + "\n\n" if text else "") + "\n".join(described)
    return node


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


def loose_object_unions(node):
    """A `oneOf` of plain types one of which is an object with no
    properties (a workflow given as text or as any JSON object):
    openapi-python-client cannot name a class for such a member and drops
    the whole schema, so the union becomes any value here (the server still
    checks it; the generated client passes what it is given)."""
    if isinstance(node, list):
        return [loose_object_unions(n) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: loose_object_unions(v) for k, v in node.items()}
    members = node.get("oneOf")
    if isinstance(members, list) and members and all(
        isinstance(m, dict) and set(m) <= {"type", "title", "additionalProperties"}
        and m.get("type") in ("string", "object", "null") for m in members
    ) and any(m.get("type") == "object" for m in members):
        del node["oneOf"]
        node.pop("type", None)
    return node


def main(argv):
    if len(argv) != 3:
        print("usage: prepare_document.py IN.json OUT.json", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        document = json.load(f)
    document = loose_object_unions(const_unions_as_enums(unique_operation_ids(hoist(document))))
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
