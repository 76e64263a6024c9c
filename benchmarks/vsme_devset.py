"""Development set for answering a form's datapoints (issue 45, part B): EFRAG's VSME Digital Template
filled from reports with known values, offline and with the loopback model.

    PYTHONPATH=. python3 benchmarks/vsme_devset.py [--companies 6] [--no-bhp] [--json OUT.json]

The set, built at run time (nothing from /work/shared is copied into the project):
- generated reports (`--companies`, a seeded generator): per company a report stating its Scope 1,
  location-based Scope 2, energy, water and employees in varied units and scales (kt / t / Mt CO2e;
  GJ / MWh / PJ; megalitres / m3), in tables and sentences, beside last year's figures (the distractor a
  reporting-year check must catch) and filler pages; gold values in the form's units and gold pages by
  construction;
- BHP's reports in /work/shared/datasets/bhp/ with the FY2021 figures the Climate Transition Action Plan
  states (Scope 1 and 2 16.2 Mt CO2-e on p. 10, Scope 3 402.5 Mt CO2-e on p. 13: `BHP_GOLD`, pages checked
  against PyMuPDF's text by `check_bhp_gold`), reporting year 2021.
The form is /work/shared/vsme/VSME-Digital-Template-1.3.0.xlsx (blank); its datapoints are read with
forms.reader.read_form when it reads the template, else made from the template's own named ranges
(`DEV_POINTS`: named range, label, kind, unit).

Reported per company set: evidence page hit@6 (offline: a gold page among a datapoint's first six
passages in the Evidence sheet), candidate value accuracy (offline: the first / any of the first three
candidates equals the gold value within 0.5 %), value accuracy with the loopback model (a reader that
answers with the figure of the first cited passage in the datapoint's dimension, as a careless model
would: what is written, right or wrong, and what waits), and the seconds to fill the form offline and with
the loopback model.

Measured 2026-11-28 (2 CPU cores shared with other sessions, load 12-15; bge-small ONNX embedder, default
second stage; datapoints read by forms.reader.read_form from the blank template in 51 s):
  32 datapoints (6 generated companies x 5, BHP 2): evidence page hit@6 32/32; candidate value top-1 31/32,
  top-3 32/32 (the miss: BHP's Scope 3, where the 418.7 Mt total inventory of the same page comes first);
  loopback careless reader 31 written right, 1 written wrong (that same 418.7 Mt: on the cited page, so
  the figure check passes it; the check catches figures that are on no cited page, not a wrong concept),
  0 waiting; a form of 7 datapoints (5 inputs, 2 computed totals) in 19.4 s offline, 18.9 s with the model.
  Since the second stage went off by default (issue 44, commit fe86086) BHP's two datapoints are missed
  offline (hit@6 30/32; `retrieval.second_stage = "colbert-question+cross-encoder"` finds them again:
  benchmarks/vsme_languages.py --second-stage).
  The whole template (222 input datapoints and 94 computed, 60-odd of them numeric): 5.9 s a datapoint
  offline on a 10-datapoint slice under the same load, so about half an hour; not run whole.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHARED = Path("/work/shared")
VSME = SHARED / "vsme" / "VSME-Digital-Template-1.3.0.xlsx"
BHP = SHARED / "datasets" / "bhp"
CTAP = "BHP Climate Transition Action Plan.pdf"

# named range, label (the template's wording), kind, unit
DEV_POINTS = [
    ("GrossScope1GreenhouseGasEmissions", "Gross Scope 1 GHG emissions (tCO2e)", "number", "tCO2e"),
    ("GrossLocationBasedScope2GreenhouseGasEmissions", "Gross location-based Scope 2 GHG emissions (tCO2e)",
     "number", "tCO2e"),
    ("TotalGrossLocationBasedScope1AndScope2GHGEmissions", "Total gross Scope 1 and Scope 2 GHG emissions (tCO2e)",
     "number", "tCO2e"),
    ("GrossScope3GreenhouseGasEmissions_CurrentlyStatedMember", "Total gross Scope 3 GHG emissions (tCO2e)",
     "number", "tCO2e"),
    ("TotalEnergyConsumption", "Total energy consumption in MWh", "number", "MWh"),
    ("TotalAmountOfWaterWithdrawnFromAllSites", "Total water withdrawal (m3)", "number", "m3"),
    ("NumberOfEmployees", "Number of employees (headcount)", "number", ""),
]
# BHP FY2021 (Climate Transition Action Plan): named range -> (value in the form's unit, file, page)
BHP_GOLD = {
    "TotalGrossLocationBasedScope1AndScope2GHGEmissions": (16.2e6, CTAP, 10, "16.2 Mt CO2-e"),
    "GrossScope3GreenhouseGasEmissions_CurrentlyStatedMember": (402.5e6, CTAP, 13, "402.5 Mt CO2-e"),
}

# More of BHP's FY2021 datapoints, for retrieval only (benchmarks/vsme_languages.py; not values: two are
# years, one a text): named range -> the gold pages, each with the words on it (PyMuPDF's text, whitespace
# normalised) that make it the page a reviewer would cite; `check_bhp_gold` checks every quote. The
# reduction target and its years are stated on p. 8 (goals and targets) and again on p. 10; the actions
# are p. 10 ("A suite of actions to drive results") and p. 11 (FY2021 progress); the 16.2 Mt total of
# p. 10 is market-based (BHP's Scope 2 method, p. 25), so it is the market-based total's page too.
BHP_PAGES = {
    **{key: ((file_name, page, figure),) for key, (_, file_name, page, figure) in BHP_GOLD.items()},
    "TotalGrossMarketBasedScope1AndScope2GHGEmissions": (
        (CTAP, 10, "The reported Scope 1 and Scope 2 emissions inventory of our operated assets totalled 16.2 Mt "
                   "CO2-e in FY2021"),),
    "GreenhouseGasEmissionReductionTargetBaseYear": (
        (CTAP, 8, "A medium-term target to reduce operational GHG emissions by at least 30 per cent from FY2020 "
                  "levels"),
        (CTAP, 10, "A medium-term target to reduce operational GHG emissions by at least 30 per cent from FY2020 "
                   "levels")),
    "GreenhouseGasEmissionReductionTargetYear": (
        (CTAP, 8, "30 per cent from FY2020 levels18 by FY2030"),
        (CTAP, 10, "30 per cent from FY2020 levels40 by FY2030")),
    "DisclosureOfListOfMainActionsTheEntitySeeksInOrderToAchieveItsTargets": (
        (CTAP, 10, "A suite of actions to drive results"),
        (CTAP, 11, "Examples of actions taken in FY2021 include")),
}

# --------------------------------------------------------------------------- the generated reports


def company_report(folder: Path, i: int, rng: random.Random) -> tuple[str, Path, dict]:
    """A report of company i and its gold {named range: (value in the form's unit, file, page)}."""
    from tests.pdf_factory import make_pdf

    name = f"Company {chr(65 + i)} Holdings"
    year = 2024
    s1, s2 = rng.randint(1_200, 95_000), rng.randint(800, 60_000)
    energy_mwh = rng.randint(5_000, 900_000)
    water_m3 = rng.randint(20_000, 3_000_000)
    employees = rng.randint(40, 9_000)
    prev = {k: round(v * rng.uniform(1.05, 1.25)) for k, v in
            dict(s1=s1, s2=s2, energy=energy_mwh, water=water_m3).items()}
    # Units vary by company: the form's are tCO2e, MWh, m3.
    ghg_unit = ["t", "kt"][i % 2]
    fmt_ghg = (lambda v: f"{v:,}") if ghg_unit == "t" else (lambda v: f"{v / 1000:,.3f}")
    energy_unit = ["MWh", "GJ", "TJ"][i % 3]
    energy_value = {"MWh": energy_mwh, "GJ": energy_mwh * 3.6, "TJ": energy_mwh * 3.6 / 1000}[energy_unit]
    energy_prev = {"MWh": prev["energy"], "GJ": prev["energy"] * 3.6, "TJ": prev["energy"] * 3.6 / 1000}[energy_unit]
    water_text = (f"{water_m3 / 1000:,.1f} megalitres" if i % 2 else f"{water_m3:,} m3")
    water_m3 = round(water_m3 / 1000, 1) * 1000 if i % 2 else water_m3
    filler = [("p", f"Site {k} operations continued with maintenance, logistics, safety training and community "
                    "programmes; no change in the scope of consolidation was made during the year.")
              for k in range(1, 5)]
    pages = [
        [("h1", f"{name} sustainability report {year}"), *filler],
        [("h1", "Greenhouse gas emissions"),
         ("p", f"Emissions are reported under the GHG Protocol, operational control, in {ghg_unit} CO2e."),
         ("table", ["Emissions", f"FY{year} ({ghg_unit} CO2e)", f"FY{year - 1} ({ghg_unit} CO2e)"],
          [["Scope 1", fmt_ghg(s1), fmt_ghg(prev["s1"])],
           ["Scope 2 (location-based)", fmt_ghg(s2), fmt_ghg(prev["s2"])]])],
        [("h1", "Energy"),
         ("p", f"Total energy consumption in {year} was {energy_value:,.1f} {energy_unit}, down from "
               f"{energy_prev:,.1f} {energy_unit} in {year - 1}, as the plants moved to heat pumps."), *filler[:2]],
        [("h1", "Water"),
         ("p", f"Total water withdrawal in {year} was {water_text}, all from municipal supply and rainwater."),
         *filler[2:]],
        [("h1", "Our people"),
         ("p", f"At the end of {year} we employed {employees:,} people (headcount), in five countries.")],
    ]
    folder.mkdir(parents=True, exist_ok=True)
    path = make_pdf(folder / f"{name} report {year}.pdf", pages)
    f = path.name
    gold = {"GrossScope1GreenhouseGasEmissions": (float(s1), f, 2),
            "GrossLocationBasedScope2GreenhouseGasEmissions": (float(s2), f, 2),
            "TotalEnergyConsumption": (float(energy_mwh), f, 3),
            "TotalAmountOfWaterWithdrawnFromAllSites": (float(water_m3), f, 4),
            "NumberOfEmployees": (float(employees), f, 5)}
    return name, path, gold


def check_bhp_gold() -> None:
    """Each BHP gold figure and quote (BHP_GOLD, BHP_PAGES) is on its page in PyMuPDF's text (whitespace
    normalised)."""
    import pymupdf

    for key, pages in BHP_PAGES.items():
        for file_name, page, quote in pages:
            with pymupdf.open(BHP / file_name) as doc:
                text = " ".join(doc[page - 1].get_text().split())
            assert quote in text, (key, file_name, page, quote)


# --------------------------------------------------------------------------- the form

server_url: list[str] = []
READ_SECONDS: list[float] = []  # read_form of the whole template
FULL: list = []  # the whole template as read_form reads it


def vsme_form(keys: set[str]):
    """The VSME template's datapoints for `keys`, as read_form reads the template (what `run` fills)."""
    import dataclasses

    from autofill.forms.reader import read_form

    started = time.monotonic()
    full = read_form(VSME, layout=False)
    READ_SECONDS.append(time.monotonic() - started)
    missing = keys - {dp.key for dp in (*full.datapoints, *full.computed)} if full is not None else keys
    if missing:
        raise SystemExit(f"read_form does not read {sorted(missing)} from {VSME.name}: the set cannot be measured")
    FULL.append(full)
    # The set's datapoints only: no open tables (the set has no table values; run_form answers a form's
    # tables too, so they are left out of the slice rather than timed without being scored).
    form = dataclasses.replace(full, datapoints=tuple(dp for dp in full.datapoints if dp.key in keys),
                               computed=tuple(dp for dp in full.computed if dp.key in keys), tables=())
    return form, "forms.reader.read_form"


# --------------------------------------------------------------------------- the loopback reader


def careless_reader(req: dict) -> str:
    """Answers with the first figure in the form's unit's dimension of the first passage holding one (no
    year check of its own), citing that passage: what a careless model does."""
    from autofill.forms.candidates import candidates
    from autofill.forms.units import parse_unit
    from autofill.records import Passage
    from tests.answer_helpers import passages_in
    from tests.llm_server import last_user_text

    prompt = last_user_text(req)
    field = re.search(r"^Field: (.*)$", prompt, re.MULTILINE)
    unit = re.search(r"^Type: a (?:whole )?number in (.+)\.$", prompt, re.MULTILINE)
    label = field.group(1) if field else ""
    unit_obj = parse_unit(unit.group(1)) if unit else None
    for n, file_name, page, text in passages_in(prompt):
        found = candidates(label, unit_obj, [Passage(str(n), file_name, page, page, "", text, rank=n)], None, 1)
        if found:
            c = found[0]
            return json.dumps({"reasoning": "From the passage.", "answer": f"{c.value:.10g}", "unit": unit_obj.symbol if unit_obj else "",
                               "year": str(c.year or ""), "quote": c.quote[:200], "citations": [n],
                               "confidence": "medium"})
    return json.dumps({"reasoning": "none", "answer": "Not disclosed", "citations": []})


# --------------------------------------------------------------------------- measuring


def measure(settings, company: str, form, gold: dict, providers, out_dir: Path) -> dict:
    from autofill.forms.run import run_form

    started = time.monotonic()
    report = run_form(settings, company, VSME, out_dir=out_dir, providers=providers, form=form)
    seconds = time.monotonic() - started
    by_key = {fa.datapoint.key: fa for fa in report.answers}
    hits = top1 = top3 = written_right = written_wrong = waiting = 0
    for key, (value, file_name, page, *_) in gold.items():
        fa = by_key.get(key)
        if fa is None:
            continue
        first6 = fa.result.passages[:6]
        hits += any(p.file_name == file_name and p.page_start <= page <= p.page_end for p in first6)
        values = [c.value for c in fa.candidates]
        top1 += bool(values) and abs(values[0] - value) <= 0.005 * value
        top3 += any(abs(v - value) <= 0.005 * value for v in values[:3])
        if fa.decision.value in ("written", "form computes it"):
            ok = abs(float(fa.value.value) - value) <= 0.005 * value
            written_right += ok
            written_wrong += not ok
        elif fa.decision.value == "waiting for approval":
            waiting += 1
    return {"datapoints": len(gold), "hit@6": hits, "candidate_top1": top1, "candidate_top3": top3,
            "written_right": written_right, "written_wrong": written_wrong, "waiting": waiting,
            "seconds": round(seconds, 2), "output": str(report.output)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--companies", type=int, default=6)
    ap.add_argument("--no-bhp", action="store_true")
    ap.add_argument("--workspace", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--full", action="store_true", help="also fill the whole template for the last set")
    args = ap.parse_args()
    import logging

    logging.basicConfig(level=logging.WARNING)
    from autofill.ingest.pipeline import ingest_paths
    from autofill.providers.base import Providers
    from autofill.providers.factory import make_embedder
    from autofill.settings import Settings
    from tests.llm_server import LLMServer, by_marker

    root = args.workspace or Path(tempfile.mkdtemp(prefix="vsme-devset-"))
    settings = Settings(workspace=root)
    embedder = make_embedder(settings)
    rng = random.Random(45)
    sets: list[tuple[str, dict, int | None]] = []
    started = time.monotonic()
    for i in range(args.companies):
        name, path, gold = company_report(root / "docs" / f"c{i}", i, rng)
        ingest_paths(settings, name, [path], embedder=embedder)
        sets.append((name, gold, 2024))
    if not args.no_bhp and BHP.is_dir():
        check_bhp_gold()
        ingest_paths(settings, "BHP", [BHP / "BHP Climate Change Report 2020.pdf", BHP / CTAP], embedder=embedder)
        sets.append(("BHP", BHP_GOLD, 2021))
    ingest_s = time.monotonic() - started
    form, source = vsme_form({k for k, *_ in DEV_POINTS})
    results = {"form_datapoints_from": source, "ingest_seconds": round(ingest_s, 1), "sets": {}}
    server = LLMServer().__enter__()
    server_url.append(server.base_url)
    if True:
        server.responder = by_marker({"Fill one field": careless_reader}, default="ok")
        for name, gold, year in sets:
            s = Settings(workspace=root)
            s.run.reporting_year = year
            offline = measure(s, name, form, gold, Providers(embedder=embedder), root / "out-offline")
            m = Settings(workspace=root)
            m.run.reporting_year = year
            m.llm.provider, m.llm.base_url, m.llm.api_key, m.llm.model = "openai", server.base_url, "sk-x", "gpt-4o-mini"
            m.llm.cache = False
            m.retrieval.mode, m.retrieval.reranker = "hybrid", "none"
            from autofill.providers.factory import make_chat

            online = measure(m, name, form, gold, Providers(embedder=embedder, chat=make_chat(m)), root / "out-model")
            results["sets"][name] = {"offline": offline, "loopback": online}
            print(name, json.dumps({"offline": offline, "loopback": online}), flush=True)
    total = {k: sum(r[mode][k] for r in results["sets"].values()) for mode in ("offline",) for k in
             ("datapoints", "hit@6", "candidate_top1", "candidate_top3")}
    total.update({f"loopback_{k}": sum(r["loopback"][k] for r in results["sets"].values())
                  for k in ("written_right", "written_wrong", "waiting")})
    total["offline_seconds_mean"] = round(sum(r["offline"]["seconds"] for r in results["sets"].values())
                                          / max(1, len(results["sets"])), 2)
    total["loopback_seconds_mean"] = round(sum(r["loopback"]["seconds"] for r in results["sets"].values())
                                           / max(1, len(results["sets"])), 2)
    results["total"] = total
    if args.full and FULL and sets:
        name, gold, year = sets[-1]  # the whole template for the last set (BHP when it runs)
        from autofill.forms.run import run_form

        for mode in ("offline", "loopback"):
            s = Settings(workspace=root)
            s.run.reporting_year = year
            providers = Providers(embedder=embedder)
            if mode == "loopback":
                from autofill.providers.factory import make_chat

                s.llm.provider, s.llm.base_url, s.llm.api_key, s.llm.model = ("openai", server_url[0], "sk-x",
                                                                              "gpt-4o-mini")
                s.llm.cache = False
                s.retrieval.mode, s.retrieval.reranker = "hybrid", "none"
                providers = Providers(embedder=embedder, chat=make_chat(s))
            started = time.monotonic()
            report = run_form(s, name, VSME, out_dir=root / f"out-full-{mode}", providers=providers, form=FULL[0])
            with_pages = sum(1 for fa in report.answers if fa.result.passages)
            results[f"full_template_{mode}"] = {"company": name, "datapoints": report.datapoints,
                                                "with_cited_pages": with_pages, "counts": report.counts,
                                                "seconds": round(time.monotonic() - started, 1)}
            print(mode, json.dumps(results[f"full_template_{mode}"]), flush=True)
    results["read_form_seconds"] = round(READ_SECONDS[0], 1) if READ_SECONDS else None
    print(json.dumps(total, indent=1))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    server.__exit__(None, None, None)


if __name__ == "__main__":
    main()
