#!/usr/bin/env python3
"""Checks the contract's JSON Schemas and the documents that must (or must not) satisfy them.

1. every schema/*.schema.json is a valid draft 2020-12 schema;
2. every pages/*.json validates against page-file.schema.json, and is consistent: page.id is the file name (the part
   before the dot of a scenario file <pageID>.<scenario>.json), every api action the page can fire is defined in
   server.actions (of any page, for a scenario file), every untemplated replaceWidget/removeWidget target exists;
3. every docs/examples/*.json validates against the schema of its kind (problem.schema.json when it has no kind);
4. every Tests/PageModelTests/Fixtures/schema-invalid/*.json FAILS envelope.schema.json;
5. widget, action and effect types: a typo ("list_rwo") fails page-file.schema.json, a catalog type and an x- type
   (the extension point, docs/check.md) pass.

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


def declared_responses(action):
    """The response envelopes of one declared action: itself, or each response of {"responses": [...]}."""
    if "responses" in action and "kind" not in action:
        return [entry["response"] for entry in action["responses"] if "response" in entry]
    return [action]


def page_file_problems(path, document, all_actions):
    """A page file, or a scenario file <pageID>.<scenario>.json (its actions are declared by the page file)."""
    templated = str(document.get("$schema", "")).endswith("page-template.schema.json")
    problems = schema_errors("page-template.schema.json" if templated else "page-file.schema.json", document)
    if problems:
        return problems
    page, server = document["page"], document.get("server", {})
    actions = server.get("actions", {})
    page_id, _, scenario = path.stem.partition(".")
    if page["id"] != page_id:
        problems.append(f'page.id "{page["id"]}" is not the file name "{page_id}"')
    if scenario and (actions or "variants" in server):
        problems.append("a scenario file declares no actions or variants")
    fired = set(api_names(page)) | {name for action in actions.values() for name in api_names(action)}
    for name in sorted(fired - (all_actions if scenario else set(actions))):
        problems.append(f'api action "{name}" is fired but not defined in server.actions')
    ids = {widget.get("id") for widget in widgets_in(page)}
    for name, action in actions.items():
        for response in declared_responses(action):
            for mutation in response.get("mutations") or []:
                target = mutation.get("id", "")
                if mutation["type"] in ("replaceWidget", "removeWidget") and "{{" not in target and target not in ids:
                    problems.append(f'action "{name}": {mutation["type"]} target "{target}" is not on the page')
    return problems


for name, schema in schemas.items():
    try:
        Draft202012Validator.check_schema(schema)
        record(f"schema/{name}", [] if "$id" in schema else ["no $id"])
    except Exception as error:  # SchemaError, with the offending keyword in its message
        record(f"schema/{name}", [str(error).splitlines()[0]])

page_files = {path: load(path) for path in sorted((ROOT / "pages").glob("*.json"))}
declared_actions = {name for document in page_files.values() for name in document.get("server", {}).get("actions", {})}
for path, document in page_files.items():
    if "kind" not in document and "status" in document:  # a problem scenario file
        record(relative(path), schema_errors("problem.schema.json", document))
        continue
    record(relative(path), page_file_problems(path, document, declared_actions))

for path in sorted((ROOT / "docs" / "examples").glob("*.json")):
    document = load(path)
    schema_name = KIND_SCHEMAS.get(document.get("kind"), "problem.schema.json")
    record(f"{relative(path)} ({schema_name})", schema_errors(schema_name, document))

for path in sorted((ROOT / "Tests" / "PageModelTests" / "Fixtures" / "schema-invalid").glob("*.json")):
    accepted = not schema_errors("envelope.schema.json", load(path))
    record(relative(path), ["is valid, but a schema-invalid fixture must fail envelope.schema.json"] if accepted else [])



def typed_page_file(widget_type, action_type, effect_type):
    """A page file with one widget of widget_type firing action_type, and an action answer with one effect."""
    return {
        "schemaVersion": 1, "kind": "page",
        "page": {"id": "typed", "sections": [{"id": "s", "widgets": [{
            "id": "row", "type": widget_type, "content": {"title": "Row"},
            "actions": {"tap": {"type": action_type, "name": "typed.go", "message": "hi"}}}]}]},
        "server": {"actions": {"typed.go": {
            "schemaVersion": 1, "kind": "actionResponse", "effects": [{"type": effect_type, "message": "done"}]}}},
    }


TYPE_CASES = [
    (("list_row", "api", "toast"), True),
    (("x-map", "x-share", "x-confetti"), True),
    (("list_rwo", "api", "toast"), False),
    (("list_row", "tosat", "toast"), False),
    (("list_row", "api", "taost"), False),
    (("x-", "api", "toast"), False),
]
for types, valid in TYPE_CASES:
    accepted = not schema_errors("page-file.schema.json", typed_page_file(*types))
    record(f"types {types}", [] if accepted == valid else [f"expected {'valid' if valid else 'invalid'}"])


def orders_template(each_member="sortBy"):
    """The orders screen of pages/README.md § Pages from data: a template over data/orders.json."""
    return {
        "schemaVersion": 1, "kind": "page",
        "page": {"id": "orders", "title": "{{data.orders.count}} orders", "sections": [
            {"id": "intro", "widgets": []},
            {"$each": "data.orders", "as": "order", each_member: "-order.id", "groupBy": "order.month", "section": {
                "id": "month.{{group.key}}", "widgets": [
                    {"$each": "group.items", "as": "order", "widgets": [
                        {"id": "order.{{order.id}}", "type": "list_row", "content": {"title": "{{order.id}}"}},
                        {"$if": {"order.status": "processing"}, "widget": {
                            "id": "cancel.{{order.id}}", "type": "button", "content": {"title": "Cancel"},
                            "actions": {"tap": {"type": "api", "name": "orders.cancel"}}}}]}]}}]},
        "server": {"actions": {"orders.cancel": {"responses": [{
            "data": [{"update": "data.orders", "where": {"id": "{{request.payload.orderID}}"},
                      "set": {"status": "cancelled"}}],
            "response": {"schemaVersion": 1, "kind": "actionResponse"}}]}}},
    }


TEMPLATE_CASES = [
    (orders_template(), True),
    (orders_template(each_member="sortby"), False),
    ({**orders_template(), "server": {"item": {"parameter": "orderID", "from": "data.orders", "key": "id", "as": "order"}}}, True),
    ({**orders_template(), "server": {"item": {"parameter": "orderID", "from": "orders", "key": "id"}}}, False),
    ({**orders_template(), "server": {"item": {"parameter": "orderID", "from": "data.orders", "key": "id", "as": "data"}}}, False),
]
for index, (document, valid) in enumerate(TEMPLATE_CASES):
    accepted = not schema_errors("page-template.schema.json", document)
    record(f"template case {index}", [] if accepted == valid else [f"expected {'valid' if valid else 'invalid'}"])

print(f"schema: {results['passed']} passed, {results['failed']} failed")
sys.exit(1 if results["failed"] else 0)
