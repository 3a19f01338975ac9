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


def main():
    d = json.load(sys.stdin)
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
