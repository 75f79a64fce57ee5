#!/usr/bin/env python3
"""Formats page files the way the hand-written ones in pages/ are formatted.

2-space indentation; a small object or array (one without widgets in it) stays on one line when it fits in
WIDTH columns. Key order is kept as written. Usage: python3 pages/tools/pagejson.py pages/*.json (rewrites in place).
"""
import json
import sys

WIDTH = 120
MULTILINE_KEYS = {"content", "widgets", "children", "sections", "mutations", "page", "widget"}


def _inline(value):
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {_inline(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[ " + ", ".join(_inline(v) for v in value) + " ]"
    return json.dumps(value, ensure_ascii=False)


def _may_inline(value):
    if isinstance(value, dict):
        return not (MULTILINE_KEYS & value.keys()) and all(_may_inline(v) for v in value.values())
    if isinstance(value, list):
        return all(_may_inline(v) for v in value)
    return True


def _format(value, indent, prefix_len):
    text = _inline(value)
    if not isinstance(value, (dict, list)) or not value:
        return text
    if _may_inline(value) and indent + prefix_len + len(text) + 1 <= WIDTH:
        return text
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            key = json.dumps(k, ensure_ascii=False) + ": "
            items.append(pad + key + _format(v, indent + 2, len(key)))
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + _format(v, indent + 2, 0) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def dumps(value):
    """The formatted JSON text of `value`, with a trailing newline."""
    return _format(value, 0, 0) + "\n"


if __name__ == "__main__":
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
        with open(path, "w", encoding="utf-8") as file:
            file.write(dumps(document))
