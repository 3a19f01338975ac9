#!/usr/bin/env python3
"""A header extractor for Python, speaking handoff-runtime's header-extract protocol.

The "statements" of a Python module are its exported signatures: every public function
(`def`/`async def`, with decorators, parameters, defaults, annotations and return annotation)
and every public class (its bases), methods qualified by their class (`Shape.area`). Public means
listed in the module's `__all__` when it has one, else not starting with `_` (dunder methods such
as `__init__` count: they are the class's interface). A worker that changes one of them during
"make the tests pass" work is caught by the statement fence.

Protocol (docs/fence.md): one JSON request on stdin,
  {"schema": "header-extract-request/v1", "file": "...", "text": "..."}
one JSON response on stdout,
  {"schema": "header-extract-response/v1", "headers": [{"name", "kind", "signature", "line"}]}
or {"schema": "header-extract-response/v1", "error": "..."} for a file that does not parse;
exit 0. A malformed request exits 2. Needs Python >= 3.9 (ast.unparse).
"""
import ast
import json
import sys

RESPONSE = "header-extract-response/v1"


def public(name, exported):
    if exported is not None:
        return name in exported
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def decorators(node):
    return "".join("@" + ast.unparse(d) + " " for d in node.decorator_list)


def function_signature(node):
    returns = " -> " + ast.unparse(node.returns) if node.returns is not None else ""
    return decorators(node) + "(" + ast.unparse(node.args) + ")" + returns


def class_signature(node):
    bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
    return decorators(node) + ("(" + ", ".join(bases) + ")" if bases else "")


def exported_names(tree):
    """The names in a literal module-level __all__, or None."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            try:
                return set(ast.literal_eval(node.value))
            except (ValueError, TypeError, SyntaxError):
                return None
    return None


def collect(body, prefix, exported, out):
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if public(node.name, exported):
                kind = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
                out.append({"name": prefix + node.name, "kind": kind,
                            "signature": function_signature(node), "line": node.lineno})
        elif isinstance(node, ast.ClassDef):
            if public(node.name, exported):
                out.append({"name": prefix + node.name, "kind": "class",
                            "signature": class_signature(node), "line": node.lineno})
                # methods: public by name, whatever __all__ says
                collect(node.body, prefix + node.name + ".", None, out)


def main():
    try:
        request = json.loads(sys.stdin.read())
        text = request["text"]
        if request.get("schema") != "header-extract-request/v1" or not isinstance(text, str):
            raise ValueError("not a header-extract-request/v1")
    except (ValueError, KeyError, TypeError) as e:
        sys.stderr.write("python-signatures: bad request: %s\n" % e)
        return 2
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        json.dump({"schema": RESPONSE, "error": "syntax error at line %s: %s" % (e.lineno, e.msg)}, sys.stdout)
        return 0
    headers = []
    collect(tree.body, "", exported_names(tree), headers)
    json.dump({"schema": RESPONSE, "headers": headers}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
