"""Time and peak memory to fill EFRAG's VSME Digital Template 1.3.0 from BHP's reports (issue 45 part B),
offline (evidence-only: passages and candidate values, nothing written) and with the LOOPBACK model
(tests/llm_server.py on 127.0.0.1: a reader that answers each field with the first figure of its first
passage, and "Not disclosed" for open tables; its replies cost nothing, so the figures measure autofill's
own work around a model, not a real model's latency).

    PYTHONPATH=. python3 benchmarks/vsme_fill.py [--workspace DIR] [--limit N] [--modes offline,loopback]

The BHP reports (/work/shared/datasets/bhp/: the Climate Change Report 2020 and the Climate Transition
Action Plan) are ingested into DIR once (kept there for later runs). The template is read once with
forms.reader.read_form (timed). Each mode fills in a child process of its own (forked after the read), so its
peak resident memory (ru_maxrss) is that fill's: the read form, the store, the models, the answers and the
written copy. `--limit N` fills the first N answerable datapoints, computed totals and open tables of the
template in its order (0: the whole template) and the whole-template time is extrapolated per question
(labelled as such); with 2 shared CPU cores a whole offline fill is about half an hour.

Measured 2026-11-28 (2 CPU cores shared with other sessions, load average 17-20; `--limit 12`, the
template's first 12 questions, all on General Information):
  ingest of the two BHP PDFs 368.5 s, peak 334 MiB; read_form of the template 84.9 s, 93 MiB;
  296 questions in the template (answerable datapoints, computed totals with a type, 8 open tables);
  offline: 12 questions in 71.5 s (6.0 s each: 12 drafts), peak 352 MiB, whole template extrapolated
  1,764 s (about 29 min; the earlier figure of vsme_devset.py: 5.9 s a datapoint under the same load);
  loopback (127.0.0.1 test server, not a real model; hybrid retrieval, no reranker): 12 questions in 51.1 s
  (4.3 s each: 3 written, 7 waiting, 2 not disclosed), peak 211 MiB, whole template extrapolated 1,260 s
  (about 21 min). Not run whole: a whole fill is over this machine's 5-minute benchmark budget.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VSME = Path("/work/shared/vsme/VSME-Digital-Template-1.3.0.xlsx")
BHP = Path("/work/shared/datasets/bhp")
REPORTS = ("BHP Climate Change Report 2020.pdf", "BHP Climate Transition Action Plan.pdf")


def sliced(form, limit: int):
    """The form with only its first `limit` questions (answerable datapoints, computed totals, open
    tables, in that order) left to answer; 0: all of them."""
    from autofill.forms.selection import answerable
    from autofill.forms.tables import answerable_tables

    points, tables = answerable(form), answerable_tables(form)
    computed = [dp for dp in form.computed if dp.kind.value != "text"]
    total = len(points) + len(computed) + len(tables)
    if not limit or limit >= total:
        return form, total, total
    keep_points = points[:limit]
    keep_computed = computed[:max(0, limit - len(keep_points))]
    keep_tables = tables[:max(0, limit - len(keep_points) - len(keep_computed))]
    keys = {dp.key for dp in keep_points} | set(form.reporting_period_keys)
    return dataclasses.replace(form, datapoints=tuple(dp for dp in form.datapoints if dp.key in keys),
                               computed=tuple(keep_computed), tables=tuple(keep_tables)), \
        len(keep_points) + len(keep_computed) + len(keep_tables), total


def loopback_reply(req: dict) -> str:
    from benchmarks.vsme_devset import careless_reader
    from tests.llm_server import last_user_text

    if "Fill one table" in last_user_text(req):
        return json.dumps({"reasoning": "not read", "answer": "Not disclosed", "rows": [], "citations": []})
    return careless_reader(req)


def fill(root: Path, form, mode: str, base_url: str, out: Path) -> dict:
    from autofill.forms.run import run_form
    from autofill.providers.base import Providers
    from autofill.providers.factory import make_chat, make_embedder
    from autofill.settings import Settings

    s = Settings(workspace=root)
    s.run.reporting_year = 2021
    embedder = make_embedder(s)
    providers = Providers(embedder=embedder)
    if mode == "loopback":
        s.llm.provider, s.llm.base_url, s.llm.api_key, s.llm.model = "openai", base_url, "sk-loopback", "gpt-4o-mini"
        s.llm.cache = False
        s.retrieval.mode, s.retrieval.reranker = "hybrid", "none"
        providers = Providers(embedder=embedder, chat=make_chat(s))
    started = time.monotonic()
    report = run_form(s, "BHP", VSME, out_dir=out, providers=providers, form=form)
    seconds = time.monotonic() - started
    return {"seconds": round(seconds, 1), "questions": len(report.answers),
            "decisions": {k: v for k, v in report.counts.items() if v},
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "output": str(report.output)}


def in_child(fn, *args) -> dict:
    """`fn(*args)` in a forked child; its result (or error) through a pipe."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            data = json.dumps(fn(*args)).encode()
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            data = json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode()
        os.write(w, data)
        os.close(w)
        os._exit(0)
    os.close(w)
    chunks = []
    while chunk := os.read(r, 65536):
        chunks.append(chunk)
    os.close(r)
    os.waitpid(pid, 0)
    return json.loads(b"".join(chunks) or b"{}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workspace", type=Path, default=None)
    ap.add_argument("--limit", type=int, default=20, help="questions to answer (0: the whole template)")
    ap.add_argument("--modes", default="offline,loopback")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    import logging

    logging.basicConfig(level=logging.WARNING)
    root = args.workspace or Path(tempfile.mkdtemp(prefix="vsme-fill-"))
    result: dict = {"template": VSME.name, "reports": list(REPORTS), "limit": args.limit}
    from autofill.settings import Settings

    settings = Settings(workspace=root)
    from autofill.store.reading import find_for_reading

    if find_for_reading(settings, "BHP") is None:
        def ingest() -> dict:
            from autofill.ingest.pipeline import ingest_paths
            from autofill.providers.factory import make_embedder

            started = time.monotonic()
            ingest_paths(settings, "BHP", [BHP / name for name in REPORTS], embedder=make_embedder(settings))
            return {"seconds": round(time.monotonic() - started, 1),
                    "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}

        result["ingest"] = in_child(ingest)
        print("ingest", json.dumps(result["ingest"]), flush=True)
    from autofill.forms.reader import read_form

    started = time.monotonic()
    whole = read_form(VSME, layout=False)
    result["read_seconds"] = round(time.monotonic() - started, 1)
    result["read_peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    form, asked, total = sliced(whole, args.limit)
    result.update({"questions_in_template": total, "questions_filled": asked})
    print("read", json.dumps({k: result[k] for k in ("read_seconds", "read_peak_rss_mib", "questions_in_template",
                                                    "questions_filled")}), flush=True)
    from tests.llm_server import LLMServer, by_marker

    with LLMServer() as server:
        server.responder = by_marker({"Fill one": loopback_reply}, default="ok")
        for mode in args.modes.split(","):
            got = in_child(fill, root, form, mode, server.base_url, root / f"out-{mode}")
            if "seconds" in got and asked < total:
                got["whole_template_seconds_extrapolated"] = round(got["seconds"] / max(1, asked) * total)
            result[mode if mode == "offline" else "loopback (127.0.0.1 test server, not a real model)"] = got
            print(mode, json.dumps(got), flush=True)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
