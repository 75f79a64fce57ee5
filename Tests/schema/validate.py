#!/usr/bin/env python3
"""Checks the contract's JSON Schemas and the documents that must (or must not) satisfy them.

1. every schema/*.schema.json is a valid draft 2020-12 schema;
2. every pages/*.json validates against page-file.schema.json, and is consistent: page.id is the file name,
   every api action the page can fire is defined in server.actions, every replaceWidget/removeWidget target exists;
3. every docs/examples/*.json validates against the schema of its kind (problem.schema.json when it has no kind);
4. every Tests/PageModelTests/Fixtures/schema-invalid/*.json FAILS envelope.schema.json.

Usage (from the repository root): python3 -m venv .venv && .venv/bin/pip install jsonschema
                                  .venv/bin/python Tests/schema/validate.py
Prints one line per failure and a summary `schema: N passed, M failed`; exits 1 on any failure.
"""
import json
import pathlib
import sys

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

ROOT = pathlib.Path(__file__).resolve().parents[2]
KIND_SCHEMAS = {
    "page": "page.schema.json",
    "nextPage": "next-page.schema.json",
    "actionResponse": "action-response.schema.json",
}
results = {"passed": 0, "failed": 0}


def record(label, problems):
    results["failed" if problems else "passed"] += 1
    for problem in problems:
        print(f"FAIL {label}: {problem}")


def load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def relative(path):
    return path.relative_to(ROOT).as_posix()


schemas = {path.name: load(path) for path in sorted((ROOT / "schema").glob("*.schema.json"))}
registry = Registry().with_resources(
    (schema["$id"], Resource.from_contents(schema)) for schema in schemas.values()
)


def schema_errors(schema_name, document):
    validator = Draft202012Validator(schemas[schema_name], registry=registry)
    return [
        f"{error.json_path}: {error.message[:200]}"
        for error in sorted(validator.iter_errors(document), key=lambda error: list(error.absolute_path))
    ]


def widgets_in(value):
    """Every widget object anywhere inside value (pages, sections, mutations, children)."""
    if isinstance(value, dict):
        if isinstance(value.get("type"), str) and any(key in value for key in ("content", "children", "actions")):
            yield value
        for member in value.values():
            yield from widgets_in(member)
    elif isinstance(value, list):
        for element in value:
            yield from widgets_in(element)


def api_names(value):
    """Every api action name fired anywhere inside value (widget actions and response effects)."""
    if isinstance(value, dict):
        if value.get("type") == "api" and isinstance(value.get("name"), str) and "content" not in value:
            yield value["name"]
        for member in value.values():
            yield from api_names(member)
    elif isinstance(value, list):
        for element in value:
            yield from api_names(element)


def page_file_problems(path, document):
    problems = schema_errors("page-file.schema.json", document)
    if problems:
        return problems
    page, server = document["page"], document.get("server", {})
    actions = server.get("actions", {})
    if page["id"] != path.stem:
        problems.append(f'page.id "{page["id"]}" is not the file name "{path.stem}"')
    for name in sorted(set(api_names(document)) - set(actions)):
        problems.append(f'api action "{name}" is fired but not defined in server.actions')
    ids = {widget.get("id") for widget in widgets_in(page)}
    for name, response in actions.items():
        for mutation in response.get("mutations") or []:
            if mutation["type"] in ("replaceWidget", "removeWidget") and mutation["id"] not in ids:
                problems.append(f'action "{name}": {mutation["type"]} target "{mutation["id"]}" is not on the page')
    return problems


for name, schema in schemas.items():
    try:
        Draft202012Validator.check_schema(schema)
        record(f"schema/{name}", [] if "$id" in schema else ["no $id"])
    except Exception as error:  # SchemaError, with the offending keyword in its message
        record(f"schema/{name}", [str(error).splitlines()[0]])

for path in sorted((ROOT / "pages").glob("*.json")):
    record(relative(path), page_file_problems(path, load(path)))

for path in sorted((ROOT / "docs" / "examples").glob("*.json")):
    document = load(path)
    schema_name = KIND_SCHEMAS.get(document.get("kind"), "problem.schema.json")
    record(f"{relative(path)} ({schema_name})", schema_errors(schema_name, document))

for path in sorted((ROOT / "Tests" / "PageModelTests" / "Fixtures" / "schema-invalid").glob("*.json")):
    accepted = not schema_errors("envelope.schema.json", load(path))
    record(relative(path), ["is valid, but a schema-invalid fixture must fail envelope.schema.json"] if accepted else [])

print(f"schema: {results['passed']} passed, {results['failed']} failed")
sys.exit(1 if results["failed"] else 0)
