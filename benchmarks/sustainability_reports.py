"""A development set of the product's own kind: generated sustainability reports with customer
questionnaires and gold pages, written once, before any retrieval tuning, and never tuned on.

    python benchmarks/sustainability_reports.py OUT_DIR [--companies N] [--index-pages]

Writes one folder per company under OUT_DIR (`<company>/<company> Sustainability Report 2024.pdf`,
`questionnaire.xlsx`, `gold.json`), the layout `benchmarks/retrieval_dev.py --data OUT_DIR` reads.
Deterministic: the same arguments give the same bytes.

What the reports hold, as real ones do: a CEO letter, highlights, governance, targets, a KPI table of
GHG emissions, a carbon-intensity table whose change is explained in a commentary elsewhere, energy,
water and waste, people, supply chain, physical risks, an assurance statement, decarbonisation levers
spread over two narrative pages, and the distractors every report has (a GRI content index and a glossary
naming every topic, financial highlights). The questions use a questionnaire's wording, not the
report's ("internal carbon price" against "shadow price of carbon", "Scope 1" against "direct
emissions from our own operations"); phrasings and section order vary by company. Gold pages are
tracked as the pages are laid out: a question's gold is every page that holds one of its facts.
--index-pages: the GRI content index prints each disclosure's page, as real indexes do (the pages where the
disclosure is reported, not the question's gold: 305-4 names the intensity table, not the commentary), for
measuring `retrieval.content_index` (README, "Framework datapoints"); without it the bytes are as before."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

COMPANIES = [
    ("Calder Cement", "cement", "tonne of cementitious product", "kiln"),
    ("Harbourline Logistics", "logistics", "thousand tonne-kilometres", "depot"),
    ("Verdant Foods", "food processing", "tonne of finished product", "factory"),
    ("Solvay Ridge Chemicals", "specialty chemicals", "tonne of production", "plant"),
    ("Northgate Retail", "retail", "square metre of sales floor", "store"),
    ("Aurora Paper", "pulp and paper", "air-dried tonne", "mill"),
]
YEAR = 2024


def fmt(x: float) -> str:
    return f"{x:,.0f}"


def pick(rng: random.Random, *options: str) -> str:
    return rng.choice(options)


class Report:
    """Pages as lists of build_pdf items, each with the fact keys it holds."""

    def __init__(self) -> None:
        self.pages: list[list[tuple]] = []
        self.facts: list[set[str]] = []

    def page(self, items: list[tuple], facts: tuple[str, ...] = ()) -> None:
        self.pages.append(items)
        self.facts.append(set(facts))

    def gold(self, keys: tuple[str, ...]) -> list[int]:
        return [i + 1 for i, f in enumerate(self.facts) if f & set(keys)]


def _lever_facts(levers: list[tuple[str, str]]) -> tuple[str, ...]:
    """A levers page also answers the renewable-share question when it quotes today's share."""
    return ("levers", "renewable") if any(key == "renewables" for key, _ in levers) else ("levers",)


def numbers(rng: random.Random) -> dict:
    s1 = rng.uniform(300, 4000) * 1000
    s2m = s1 * rng.uniform(0.15, 0.6)
    s2l = s2m * rng.uniform(1.1, 1.5)
    s3 = (s1 + s2m) * rng.uniform(3, 9)
    prev = [v * rng.uniform(1.03, 1.15) for v in (s1, s2m, s2l, s3)]
    out = rng.uniform(2, 20) * 1e6
    prev_out = out * rng.uniform(0.85, 1.1)
    return {
        "s1": s1, "s2m": s2m, "s2l": s2l, "s3": s3, "prev": prev, "out": out, "prev_out": prev_out,
        "base": rng.choice([2019, 2020, 2021]), "target_pct": rng.choice([30, 42, 46, 50, 55]),
        "nz": rng.choice([2040, 2045, 2050]), "re_share": rng.uniform(25, 80), "re_target": rng.choice([80, 90, 100]),
        "energy": rng.uniform(2, 30) * 1e6, "water": rng.uniform(1, 40), "recycled": rng.uniform(40, 95),
        "women": rng.uniform(18, 42), "trifr": rng.uniform(0.8, 4.5), "carbon_price": rng.choice([40, 50, 75, 100, 120]),
        "suppliers": rng.uniform(30, 80), "training": rng.uniform(12, 40), "revenue": rng.uniform(2, 30),
        "employees": rng.randint(3000, 60000), "sites": rng.randint(12, 140),
    }


# The GRI content index: each disclosure and the facts of the pages a report's index names for it (where
# the disclosure is reported: 305-4 names the intensity table, not the commentary elsewhere that explains it).
GRI_INDEX = [("GRI 305-1", "Direct (Scope 1) GHG emissions", ("s1",)),
             ("GRI 305-2", "Energy indirect (Scope 2) GHG emissions", ("s2",)),
             ("GRI 305-4", "GHG emissions intensity", ("intensity_table",)),
             ("GRI 305-5", "Reduction of GHG emissions", ("levers",)),
             ("GRI 302-1", "Energy consumption within the organization", ("energy",)),
             ("GRI 303-3", "Water withdrawal", ("water",)), ("GRI 306-4", "Waste diverted from disposal", ("waste",)),
             ("GRI 405-1", "Diversity of governance bodies", ("women",)), ("GRI 403-9", "Work-related injuries", ("safety",)),
             ("GRI 2-19", "Remuneration policies", ("remuneration",))]


def gri_index(r: Report, pages: bool) -> tuple[list[tuple], tuple]:
    """The GRI content index page: disclosures and topics, and with `pages` the page numbers the report
    prints (the footer's numbers, which are the PDF's here), as real indexes print them. Laid out last,
    so the pages are known."""
    if not pages:
        return [("h1", "GRI content index"), ("table", ["Disclosure", "Topic"], [[c, t] for c, t, _ in GRI_INDEX])], ()
    rows = [[c, t, ", ".join(str(p) for p in r.gold(keys))] for c, t, keys in GRI_INDEX]
    return [("h1", "GRI content index"), ("table", ["Disclosure", "Topic", "Page"], rows)], ()


def build(name: str, sector: str, unit: str, site: str, seed: int,
          index_pages: bool = False) -> tuple[Report, list[dict]]:
    rng = random.Random(f"{seed}:{name}")
    n = numbers(rng)
    y, py = YEAR, YEAR - 1
    inten = (n["s1"] + n["s2m"]) / n["out"]
    prev_inten = (n["prev"][0] + n["prev"][1]) / n["prev_out"]
    change = 100 * (inten / prev_inten - 1)
    levers = [
        ("electrification", f"Electrifying process heat and mobile equipment at our {site}s, starting with the two "
                            f"largest, replaces diesel and natural gas combustion."),
        ("renewables", f"Power purchase agreements for wind and solar electricity will lift the renewable share of our "
                       f"electricity from {n['re_share']:.0f}% to {n['re_target']}%."),
        ("efficiency", f"An energy-efficiency programme of heat recovery, variable-speed drives and compressed-air "
                       f"leak repair across all {n['sites']} {site}s."),
        ("fuels", "Switching from coal and heavy fuel oil to biomass, biogas and hydrotreated vegetable oil where "
                  "supply is certified sustainable."),
        ("ccus", "A carbon capture pilot at our largest site, with a decision on full-scale capture expected by 2027."),
    ]
    rng.shuffle(levers)
    reason = pick(rng, "a fuel switch from coal to natural gas at our two largest {s}s",
                  "the commissioning of a 60 MW solar power purchase agreement", "higher output from our most "
                  "efficient {s}s and the closure of an older {s}").format(s=site)
    reason2 = pick(rng, "partly offset by a colder winter that raised heating fuel use",
                   "partly offset by lower utilisation during a planned maintenance shutdown",
                   "while production volumes were broadly flat")
    r = Report()
    # Cover and CEO letter: generic commitments, numbers rounded and unspecific.
    r.page([("h1", f"{name}"), ("h2", f"Sustainability Report {y}"),
            ("p", f"{name} is a {sector} company with {n['employees']:,} employees and {n['sites']} {site}s. This report "
                  f"covers the financial year {y} and our progress on climate, nature and people."),
            ("h2", "A message from our Chief Executive"),
            ("p", pick(rng, "Climate change is the defining challenge of our industry. This year we made real progress "
                            "against our commitments, and we remain determined to reach net zero.",
                       "Our ambition is to lead our sector in the transition to a low-carbon economy. The year showed "
                       "that decarbonisation and value creation go hand in hand.")),
            ("p", "I want to thank our people, whose commitment to safety and to our communities made this year possible. "
                  "We will keep listening to our stakeholders and report transparently on where we fall short.")])
    sections = []

    sections.append(([("h1", "Governance of sustainability"),
                      ("p", pick(rng, "The Board's Sustainability Committee oversees climate-related risks and "
                                      "opportunities and meets four times a year.",
                                 "Climate matters are overseen by the Board through its Safety, Health and Environment "
                                 "Committee, which reviewed our transition plan twice during the year.")),
                      ("p", pick(rng, f"Executive pay: the annual incentive scorecard of the executive team gives a 15% "
                                      f"weighting to delivering the year's emissions reduction milestone.",
                                 f"Twenty per cent of the long-term incentive plan for senior executives vests on "
                                 f"progress against our {y + 6} operational emissions goal.")),
                      ("p", pick(rng, f"Investment decisions above USD 10 million are tested against a shadow price of "
                                      f"carbon of USD {n['carbon_price']} per tonne, rising over time.",
                                 f"We apply a notional cost of USD {n['carbon_price']} for every tonne of CO2e a project "
                                 f"would emit when we appraise capital projects."))],
                     ("remuneration", "carbon_price")))
    sections.append(([("h1", "Our climate commitments"),
                      ("p", pick(rng, f"We will cut the direct emissions from our own operations and those from the "
                                      f"energy we buy by {n['target_pct']}% by {y + 6}, measured against {n['base']}.",
                                 f"By {y + 6} our operational footprint (fuel burned on our sites plus purchased power) "
                                 f"will be {n['target_pct']}% below its {n['base']} level.")),
                      ("p", f"Our long-term goal is net-zero emissions across our operations and value chain by "
                            f"{n['nz']}. The near-term goal has been validated by an external body as consistent with "
                            f"limiting warming to 1.5 C."),
                      ("p", f"We also aim to source {n['re_target']}% of our electricity from renewable sources by "
                            f"{y + 6} and to halve the water we withdraw in stressed catchments.")],
                     ("target", "netzero")))
    ghg = [("h1", "Greenhouse gas emissions"),
           ("p", "Emissions are reported in tonnes of CO2 equivalent under the operational control approach."),
           ("table", ["Emissions (t CO2e)", str(y - 2), str(py), str(y)],
            [["Direct emissions from own operations", fmt(n["prev"][0] * 1.04), fmt(n["prev"][0]), fmt(n["s1"])],
             ["Purchased energy, market-based", fmt(n["prev"][1] * 1.05), fmt(n["prev"][1]), fmt(n["s2m"])],
             ["Purchased energy, location-based", fmt(n["prev"][2] * 1.03), fmt(n["prev"][2]), fmt(n["s2l"])],
             ["Value chain (upstream and downstream)", fmt(n["prev"][3] * 1.02), fmt(n["prev"][3]), fmt(n["s3"])]]),
           ("p", "Direct emissions correspond to Scope 1 and purchased energy to Scope 2 of the GHG Protocol.")]
    sections.append((ghg, ("s1", "s2")))
    sections.append(([("h1", "Carbon intensity"),
                      ("table", ["Indicator", str(py), str(y), "Change"],
                       [[f"kg CO2e per {unit}", f"{prev_inten * 1000:.1f}", f"{inten * 1000:.1f}", f"{change:+.1f}%"],
                        ["Production (million units)", f"{n['prev_out'] / 1e6:.2f}", f"{n['out'] / 1e6:.2f}", ""]]),
                      ("p", "Intensity is operational emissions divided by output; the output basis did not change.")],
                     ("intensity_table",)))
    sections.append(([("h1", "Performance commentary"),
                      ("p", f"Compared with {py}, the footprint of our sites per unit produced moved by {change:+.1f}%. "
                            f"The main driver was {reason}, {reason2}."),
                      ("p", "Absolute emissions from purchased electricity also fell as the grids we draw on "
                            "decarbonised, which the location-based figures show.")],
                     ("intensity_reason",)))
    sections.append(([("h1", "Our pathway to 2030"),
                      ("p", "Reaching our near-term goal rests on a small number of proven measures, sized by their "
                            "abatement and their cost per tonne."),
                      ("h3", "First, " + levers[0][0]), ("p", levers[0][1]),
                      ("h3", "Second, " + levers[1][0]), ("p", levers[1][1])],
                     _lever_facts(levers[:2])))
    sections.append(([("h1", "Energy"),
                      ("table", ["Energy", str(py), str(y)],
                       [["Total energy consumed (GJ)", fmt(n["energy"] * 1.03), fmt(n["energy"])],
                        ["Electricity from renewable sources (%)", f"{n['re_share'] - 6:.0f}", f"{n['re_share']:.0f}"]])],
                     ("renewable", "energy")))
    sections.append(([("h1", "Beyond the first steps"),
                      ("p", "Further reductions come from measures that are still maturing:"),
                      ("h3", levers[2][0].capitalize()), ("p", levers[2][1]),
                      ("h3", levers[3][0].capitalize()), ("p", levers[3][1]),
                      ("p", "Residual emissions after these measures will be addressed with high-quality removals.")],
                     _lever_facts(levers[2:4])))
    sections.append(([("h1", "Water and circularity"),
                      ("table", ["Indicator", str(y)],
                       [["Water withdrawn (million m3)", f"{n['water']:.1f}"],
                        ["Waste diverted from landfill (%)", f"{n['recycled']:.0f}"]]),
                      ("p", "Most of our water is withdrawn from surface sources and returned after treatment.")],
                     ("water", "waste")))
    sections.append(([("h1", "Our people"),
                      ("p", f"Safety: the total recordable injury frequency was {n['trifr']:.2f} per million hours "
                            f"worked. Every employee received {n['training']:.0f} hours of training on average."),
                      ("p", f"Women held {n['women']:.0f}% of senior leadership roles at year end, against a goal "
                            f"of 40% by {y + 6}.")],
                     ("women", "safety")))
    sections.append(([("h1", "Working with suppliers"),
                      ("p", f"We asked our largest suppliers, covering {n['suppliers']:.0f}% of purchasing spend, to "
                            f"disclose their footprint through a common platform and to set reduction goals. "
                            f"Low-carbon criteria now form part of every tender above USD 1 million.")],
                     ("suppliers",)))
    sections.append(([("h1", "Climate risk and resilience"),
                      ("p", pick(rng, f"Scenario analysis identified flooding of coastal {site}s, heat stress on workers "
                                      f"and water scarcity at inland sites as the most material acute and chronic hazards.",
                                 f"The hazards that matter most to our {site}s are river flooding, extreme heat and "
                                 f"prolonged drought, which could interrupt production and raise costs.")),
                      ("p", "Transition risks include carbon pricing, changing customer preferences and the cost of new "
                            "technology.")],
                     ("physical",)))
    rng.shuffle(sections)
    for items, facts in sections:
        r.page(items, facts)
    r.page([("h1", "Independent assurance statement"),
            ("p", f"We were engaged by {name} to provide limited assurance over selected sustainability information for "
                  f"{y}, including the emissions and energy data. Based on the procedures performed, nothing has come to "
                  f"our attention that causes us to believe the selected information is not prepared, in all material "
                  f"respects, in accordance with the reporting criteria. ISAE 3000 and ISAE 3410 were applied.")],
           ("assurance",))
    r.page([("h1", "Financial highlights"),
            ("table", ["USD billion", str(py), str(y)],
             [["Revenue", f"{n['revenue'] * 0.95:.1f}", f"{n['revenue']:.1f}"],
              ["Capital expenditure", f"{n['revenue'] * 0.08:.2f}", f"{n['revenue'] * 0.09:.2f}"]])])
    r.page([("h1", "Glossary"),
            ("p", "Scope 1: direct GHG emissions from sources a company owns or controls. Scope 2: indirect emissions "
                  "from purchased electricity, steam, heat and cooling. Scope 3: all other indirect emissions in the "
                  "value chain. Carbon intensity: emissions per unit of output. Internal carbon price: a cost per "
                  "tonne applied to investment decisions. Limited assurance: a lower level of assurance than "
                  "reasonable assurance. Net zero: a state where remaining emissions are balanced by removals.")])
    r.page(*gri_index(r, index_pages))

    q = [
        ("Report your gross global Scope 1 emissions for the reporting year in metric tonnes CO2e.", "Number with unit", ("s1",), "number"),
        ("What were your Scope 2 emissions (market-based) for the reporting year?", "Number with unit", ("s2",), "number"),
        ("What share of the electricity you consume comes from renewable sources?", "Percentage", ("renewable",), "number"),
        ("Total water withdrawal in the reporting year.", "Number with unit", ("water",), "number"),
        ("Percentage of women in senior management positions.", "Percentage", ("women",), "number"),
        ("Explain the change in your carbon intensity compared with the previous year and its main reasons.", "Text", ("intensity_table", "intensity_reason"), "text"),
        ("Describe the main levers you will use to meet your emissions reduction target.", "Text", ("levers",), "text"),
        ("State your Scope 1 and 2 emissions reduction target, including the base year and target year.", "Text", ("target",), "text"),
        ("Is executive remuneration linked to climate-related performance?", "Yes/No and explanation", ("remuneration",), "yesno"),
        ("Does your organisation use an internal carbon price?", "Yes/No and the price", ("carbon_price",), "yesno"),
        ("Is your GHG inventory verified by a third party? Give the assurance level.", "Yes/No and explanation", ("assurance",), "yesno"),
        ("How do you engage your suppliers on climate change?", "Text", ("suppliers",), "text"),
        ("Which physical climate risks have you identified for your operations?", "Text", ("physical",), "text"),
    ]
    rows = []
    for i, (question, form, keys, kind) in enumerate(q, start=1):
        pages = r.gold(keys)
        rows.append({"no": i, "question": question, "form": form, "gold_answer": "", "answer_type": kind,
                     "gold": [{"file": f"{name} Sustainability Report {y}.pdf", "page": p, "evidence": ""} for p in pages]})
    return r, rows


def write_questionnaire(path: Path, company: str, rows: list[dict]) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    ws.append([f"{company}: sustainability questionnaire {YEAR}"])
    ws.append([])
    ws.append(["No.", "Question", "Form of answer", "Answer"])
    for row in rows:
        ws.append([row["no"], row["question"], row["form"], None])
    wb.save(path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--companies", type=int, default=4)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--index-pages", action="store_true",
                    help="the GRI content index prints the page of each disclosure, as real reports' indexes do")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "samples"))
    from make_sample_pdf import build_pdf

    for name, sector, unit, site in COMPANIES[: args.companies]:
        folder = args.out / name.replace(" ", "_")
        folder.mkdir(parents=True, exist_ok=True)
        report, rows = build(name, sector, unit, site, args.seed, args.index_pages)
        build_pdf(folder / f"{name} Sustainability Report {YEAR}.pdf", report.pages, header=f"{name} | Sustainability Report {YEAR}")
        write_questionnaire(folder / "questionnaire.xlsx", name, rows)
        gold = [{k: v for k, v in row.items() if k != "form"} for row in rows]
        (folder / "gold.json").write_text(json.dumps(gold, indent=1))
        print(f"{folder}: {len(report.pages)} pages, {len(rows)} questions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
