#!/usr/bin/env python3
"""Example worker for `handoff run` in Python: the same protocol as solver-worker.ts.

Reads one run-contract/v1 dispatch on stdin; solves a `sorry -- hint: TACTIC` line (or any line
given evidence `use: TACTIC`), otherwise declares a missing-library-lemma blocker. Checks the
custody baseline before editing and returns the advanced baseline for the changed file.
Prints progress lines (run-persist-progress/v1) and ends with one handoff record.
"""
import hashlib
import json
import os
import re
import sys


def entry(path):
    real = os.path.realpath(path)
    if not os.path.exists(real):
        return {"path": path, "realpath": real, "exists": False, "sha256": None, "size": None}
    data = open(real, "rb").read()
    return {"path": path, "realpath": real, "exists": True,
            "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")


DISPATCH_KEYS = {"schema", "record", "target", "scope", "mode", "worker", "parameters", "capabilities",
                 "owned_files", "file_baseline", "prior_blocker", "evidence_delta", "budget", "context"}
CONTEXT_KEYS = {"prior_failure", "goal_state", "diagnostics", "search_results", "candidates_tested",
                "code_actions", "scratch_location"}
SCOPES = {"sorry", "deps", "file", "changed", "project"}
MODES = {"prove", "autoprove", "golf"}


def dispatch_defect(d):
    """The first defect of a dispatch record, or None (a compact form of the run-contract/v1 rules)."""
    if not isinstance(d, dict):
        return "a dispatch is a JSON object"
    if not DISPATCH_KEYS <= set(d):
        return "missing keys %s" % sorted(DISPATCH_KEYS - set(d))  # unknown keys are accepted, as by the reference
    if d["schema"] != "run-contract/v1" or d["record"] != "dispatch":
        return "schema/record must be run-contract/v1 dispatch"
    if not isinstance(d["target"], str) or not d["target"] or d["scope"] not in SCOPES or d["mode"] not in MODES:
        return "target/scope/mode invalid"
    if d["worker"] is None and d["parameters"] != {}:
        return "an inline pass takes parameters {} exactly"
    ctx = d["context"]
    if not isinstance(ctx, dict) or not CONTEXT_KEYS <= set(ctx) or not isinstance(ctx["scratch_location"], str):
        return "context must carry its seven members"
    budget = d["budget"]
    if not isinstance(budget, dict) or set(budget) != {"max_cycles", "max_stuck_cycles", "runtime"}:
        return "budget keys differ"
    for k in ("max_cycles", "max_stuck_cycles"):
        if budget[k] is not None and (isinstance(budget[k], bool) or not isinstance(budget[k], int)):
            return "budget.%s must be an integer or null" % k
    owned = d["owned_files"]
    base = d["file_baseline"]
    if not isinstance(owned, list) or not all(isinstance(p, str) for p in owned):
        return "owned_files must be a list of paths"
    if not isinstance(base, dict) or base.get("schema") != "file-baseline/v1" or not base.get("files"):
        return "file_baseline must be a non-empty file-baseline/v1 record"
    covered = {f.get("path") for f in base["files"] if isinstance(f, dict)}
    missing = [p for p in owned if p not in covered]
    if missing:
        return "file_baseline does not cover %s" % missing
    return None


def protocol_error(d, detail):
    """A protocol-error handoff echoing whatever identity parsed."""
    d = d if isinstance(d, dict) else {}
    target = d.get("target") if isinstance(d.get("target"), str) and d.get("target") else None
    return {
        "schema": "run-contract/v1", "record": "handoff",
        "target": target, "scope": d.get("scope") if d.get("scope") in SCOPES else None,
        "mode": d.get("mode") if d.get("mode") in MODES else None,
        "status": "stopped", "stop_reason": "protocol-error", "stop_detail": detail,
        "blocker_kind": None, "blocker_class": None, "blocker_signature": None,
        "attempted_tools": [], "best_candidates": [], "failed_avenues": [],
        "evidence": {"queries": [], "top_candidates": [], "attempts": [],
                     "goal_delta": None, "diagnostic_delta": None},
        "files_owned": [], "files_changed": [], "file_baseline": None, "artifacts": [],
        "next_action": "stop", "new_evidence_required_for_rerun": None,
    }


def main():
    text = sys.stdin.read()
    try:
        d = json.loads(text)
    except ValueError as e:
        emit(protocol_error(None, "malformed dispatch: not JSON (%s)" % e))
        return
    defect = dispatch_defect(d)
    if defect is not None:
        emit(protocol_error(d, "malformed dispatch: " + defect))
        return
    root = os.environ.get("HANDOFF_PROJECT_ROOT", os.getcwd())
    path = d["owned_files"][0]
    rel = os.path.relpath(path, root)
    line_no = int(d["target"].rsplit(":", 1)[1])
    h = {
        "schema": "run-contract/v1", "record": "handoff",
        "target": d["target"], "scope": d["scope"], "mode": d["mode"],
        "status": "solved", "stop_reason": None, "stop_detail": None,
        "blocker_kind": None, "blocker_class": None, "blocker_signature": None,
        "attempted_tools": ["marker-hint"], "best_candidates": [], "failed_avenues": [],
        "evidence": {"queries": [], "top_candidates": [], "attempts": [],
                     "goal_delta": None, "diagnostic_delta": None},
        "files_owned": d["owned_files"], "files_changed": [],
        "file_baseline": d["file_baseline"], "artifacts": [],
        "next_action": "continue", "new_evidence_required_for_rerun": None,
    }
    lines = open(path, encoding="utf-8").read().split("\n")
    text = lines[line_no - 1] if line_no <= len(lines) else ""
    tactic = None
    for e in d["evidence_delta"]:
        m = re.match(r"^use:\s*(.+)$", e)
        if m:
            tactic = m.group(1)
    if tactic is None:
        m = re.search(r"--\s*hint:\s*(.+)$", text)
        tactic = m.group(1).strip() if m else None
    emit({"schema": "run-persist-progress/v1", "attempted_tools": ["marker-hint"]})
    if tactic is None or "sorry" not in text:
        h.update({
            "status": "stuck", "blocker_kind": "proof", "blocker_class": "missing-library-lemma",
            "blocker_signature": f"{rel}:{line_no}:missing library lemma",
            "failed_avenues": ["simp: goal unchanged"],
            "evidence": {"queries": ["library-search: " + text.strip()], "top_candidates": [],
                         "attempts": [{"snippet": "simp", "result": "fail"}],
                         "goal_delta": None, "diagnostic_delta": "missing library lemma"},
            "next_action": "stop",
            "new_evidence_required_for_rerun": "a verified lemma, given as evidence 'use: TACTIC'",
        })
        emit(h)
        return
    # custody: the file must still match the dispatch baseline before editing
    stored = next(f for f in d["file_baseline"]["files"] if f["path"] == path)
    if entry(path) != stored:
        h.update({"status": "stopped", "stop_reason": "operational-error",
                  "stop_detail": "baseline check failed before editing", "next_action": "stop"})
        emit(h)
        return
    lines[line_no - 1] = re.sub(r"sorry(\s*--\s*hint:.*)?$", tactic, text)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    files = [entry(path) if f["path"] == path else f for f in d["file_baseline"]["files"]]
    h.update({
        "best_candidates": [{"candidate": tactic, "outcome": "pass"}],
        "evidence": {"queries": [], "top_candidates": [tactic],
                     "attempts": [{"snippet": tactic, "result": "pass"}],
                     "goal_delta": d["target"] + ": sorry -> " + tactic, "diagnostic_delta": None},
        "files_changed": [path],
        "file_baseline": {"schema": "file-baseline/v1", "files": files},
    })
    emit(h)


if __name__ == "__main__":
    main()
