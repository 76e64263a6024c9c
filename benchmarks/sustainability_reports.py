"""A development set of the product's own kind: generated sustainability reports with customer
questionnaires and gold pages, written once, before any retrieval tuning, and never tuned on.

    python benchmarks/sustainability_reports.py OUT_DIR [--companies N] [--index-pages] [--language {en,de,fr}]
                                                [--questions {en,de,fr}]

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
measuring `retrieval.content_index` (README, "Framework datapoints"); without it the bytes are as before.
--language de|fr: the reports are written in German or French (`<company> Nachhaltigkeitsbericht 2024.pdf`,
`<company> Rapport de durabilité 2024.pdf`), every page by hand as a German or French company words it,
numbers the local way (1.234.567 / 1 234 567, decimal commas), from report_texts_de.py / report_texts_fr.py
(English: report_texts_en.py, the bytes as before). The draws do not depend on the language, so a seed gives
the same numbers, section order and gold pages in every language. --questions en|de|fr: the questionnaire's
language (default: the reports'; hand-written questions in a customer's wording, not the report's); cross-
language sets are two runs into two folders, the same PDFs with their own questionnaires and gold keys,
e.g. `--language de` (German questions) and `--language de --questions en` (English questions), or English
reports with `--questions de`."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

COMPANIES = [
    ("Calder Cement", "cement", "tonne of cementitious product", "kiln"),
    ("Harbourline Logistics", "logistics", "thousand tonne-kilometres", "depot"),
    ("Verdant Foods", "food processing", "tonne of finished product", "factory"),
    ("Solvay Ridge Chemicals", "specialty chemicals", "tonne of production", "plant"),
    ("Northgate Retail", "retail", "square metre of sales floor", "store"),
    ("Aurora Paper", "pulp and paper", "air-dried tonne", "mill"),
]
YEAR = 2024
LANGUAGES = ("en", "de", "fr")  # each with its page texts in benchmarks/report_texts_<language>.py


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
# The disclosures' titles are the language's (report_texts_*.GRI_TOPICS, in this order).
GRI_INDEX = [("GRI 305-1", ("s1",)), ("GRI 305-2", ("s2",)), ("GRI 305-4", ("intensity_table",)),
             ("GRI 305-5", ("levers",)), ("GRI 302-1", ("energy",)), ("GRI 303-3", ("water",)),
             ("GRI 306-4", ("waste",)), ("GRI 405-1", ("women",)), ("GRI 403-9", ("safety",)),
             ("GRI 2-19", ("remuneration",))]

# The questionnaire's rows: the facts whose pages are a question's gold, and the kind of answer; the
# questions themselves are the language's (report_texts_*.QUESTIONS, in this order).
QUESTIONS = [(("s1",), "number"), (("s2",), "number"), (("renewable",), "number"), (("water",), "number"),
             (("women",), "number"), (("intensity_table", "intensity_reason"), "text"), (("levers",), "text"),
             (("target",), "text"), (("remuneration",), "yesno"), (("carbon_price",), "yesno"),
             (("assurance",), "yesno"), (("suppliers",), "text"), (("physical",), "text")]


def texts(language: str):
    """The module holding a language's page texts and questions (benchmarks/report_texts_<language>.py)."""
    import importlib

    return importlib.import_module(f"report_texts_{language}")


def words(L, name: str, sector: str, unit: str, site: str) -> dict:
    """The company's words in the language of `L` (a report_texts module): its sector, unit of output and
    site; English's are COMPANIES' own."""
    if L.TERMS is None:
        return {"sector": sector, "unit": unit, "site": site, "sites": f"{site}s"}
    return dict(zip(L.TERM_FIELDS, L.TERMS[name]))


def number_formats(L):
    """num (whole numbers with thousands separators), dec (places after the decimal sign) and signed_pct
    (a change in per cent) in the language of `L`."""
    def num(x: float) -> str:
        return f"{x:,.0f}".replace(",", L.THOUSANDS)

    def dec(x: float, places: int) -> str:
        return f"{x:.{places}f}".replace(".", L.DECIMAL)

    def signed_pct(x: float) -> str:
        return f"{x:+.1f}".replace(".", L.DECIMAL) + L.PERCENT

    return num, dec, signed_pct


def report_file(name: str, language: str = "en") -> str:
    return f"{name} {texts(language).TITLE} {YEAR}.pdf"


def gri_index(r: Report, pages: bool, L=None) -> tuple[list[tuple], tuple]:
    """The GRI content index page: disclosures and topics, and with `pages` the page numbers the report
    prints (the footer's numbers, which are the PDF's here), as real indexes print them. Laid out last,
    so the pages are known."""
    L = L or texts("en")
    disclosure, topic, page = L.T["gri_columns"]
    if not pages:
        rows = [[c, t] for (c, _), t in zip(GRI_INDEX, L.GRI_TOPICS)]
        return [("h1", L.T["gri_heading"]), ("table", [disclosure, topic], rows)], ()
    rows = [[c, t, ", ".join(str(p) for p in r.gold(keys))] for (c, keys), t in zip(GRI_INDEX, L.GRI_TOPICS)]
    return [("h1", L.T["gri_heading"]), ("table", [disclosure, topic, page], rows)], ()


def build(name: str, sector: str, unit: str, site: str, seed: int, index_pages: bool = False,
          language: str = "en", questions: str = "") -> tuple[Report, list[dict]]:
    """One company's report in `language` and its questionnaire rows in `questions` (default: the report's
    language). The random draws do not depend on the language: a seed gives the same numbers, choices,
    section order and gold pages in every language."""
    L, Q = texts(language), texts(questions or language)
    rng = random.Random(f"{seed}:{name}")
    n = numbers(rng)
    y, py = YEAR, YEAR - 1
    inten = (n["s1"] + n["s2m"]) / n["out"]
    prev_inten = (n["prev"][0] + n["prev"][1]) / n["prev_out"]
    change = 100 * (inten / prev_inten - 1)
    (num, dec, signed_pct), T = number_formats(L), L.T
    v = {"name": name, **words(L, name, sector, unit, site), "employees": num(n["employees"]), "n_sites": n["sites"],
         "y": y, "py": py, "y6": y + 6, "carbon_price": n["carbon_price"], "target_pct": n["target_pct"],
         "base": n["base"], "nz": n["nz"], "re_share": dec(n["re_share"], 0), "re_target": n["re_target"],
         "change": signed_pct(change), "trifr": dec(n["trifr"], 2), "training": dec(n["training"], 0),
         "women": dec(n["women"], 0), "suppliers": dec(n["suppliers"], 0)}

    def say(template: str) -> str:
        return template.format(**v)

    def choose(key: str) -> str:
        return say(pick(rng, *T[key]))

    levers = [(key, say(text)) for key, text in L.LEVERS.items()]
    rng.shuffle(levers)
    v["reason"], v["reason2"] = choose("reason"), choose("reason2")
    r = Report()
    # Cover and CEO letter: generic commitments, numbers rounded and unspecific.
    r.page([("h1", f"{name}"), ("h2", f"{L.TITLE} {y}"), ("p", say(T["cover_intro"])),
            ("h2", T["ceo_heading"]), ("p", choose("ceo")), ("p", T["ceo_thanks"])])
    sections = []

    sections.append(([("h1", T["gov_heading"]), ("p", choose("gov_board")), ("p", choose("gov_pay")),
                      ("p", choose("gov_price"))],
                     ("remuneration", "carbon_price")))
    sections.append(([("h1", T["target_heading"]), ("p", choose("target")), ("p", say(T["netzero"])),
                      ("p", say(T["target_more"]))],
                     ("target", "netzero")))
    ghg = [("h1", T["ghg_heading"]), ("p", T["ghg_intro"]),
           ("table", [T["ghg_unit"], str(y - 2), str(py), str(y)],
            [[label, num(prev * grow), num(prev), num(now)] for label, prev, grow, now in
             zip(T["ghg_rows"], n["prev"], (1.04, 1.05, 1.03, 1.02), (n["s1"], n["s2m"], n["s2l"], n["s3"]))]),
           ("p", T["ghg_note"])]
    sections.append((ghg, ("s1", "s2")))
    sections.append(([("h1", T["intensity_heading"]),
                      ("table", [T["indicator"], str(py), str(y), T["change"]],
                       [[say(T["intensity_row"]), dec(prev_inten * 1000, 1), dec(inten * 1000, 1), signed_pct(change)],
                        [T["production_row"], dec(n["prev_out"] / 1e6, 2), dec(n["out"] / 1e6, 2), ""]]),
                      ("p", T["intensity_note"])],
                     ("intensity_table",)))
    sections.append(([("h1", T["commentary_heading"]), ("p", say(T["commentary"])), ("p", T["commentary_grid"])],
                     ("intensity_reason",)))
    sections.append(([("h1", T["pathway_heading"]), ("p", T["pathway_intro"]),
                      ("h3", T["first"].format(lever=L.LEVER_NAMES[levers[0][0]][0])), ("p", levers[0][1]),
                      ("h3", T["second"].format(lever=L.LEVER_NAMES[levers[1][0]][0])), ("p", levers[1][1])],
                     _lever_facts(levers[:2])))
    sections.append(([("h1", T["energy_heading"]),
                      ("table", [T["energy_col"], str(py), str(y)],
                       [[T["energy_rows"][0], num(n["energy"] * 1.03), num(n["energy"])],
                        [T["energy_rows"][1], dec(n["re_share"] - 6, 0), dec(n["re_share"], 0)]])],
                     ("renewable", "energy")))
    sections.append(([("h1", T["beyond_heading"]), ("p", T["beyond_intro"]),
                      ("h3", L.LEVER_NAMES[levers[2][0]][1]), ("p", levers[2][1]),
                      ("h3", L.LEVER_NAMES[levers[3][0]][1]), ("p", levers[3][1]),
                      ("p", T["beyond_residual"])],
                     _lever_facts(levers[2:4])))
    sections.append(([("h1", T["water_heading"]),
                      ("table", [T["indicator"], str(y)],
                       [[T["water_rows"][0], dec(n["water"], 1)], [T["water_rows"][1], dec(n["recycled"], 0)]]),
                      ("p", T["water_note"])],
                     ("water", "waste")))
    sections.append(([("h1", T["people_heading"]), ("p", say(T["safety"])), ("p", say(T["women"]))],
                     ("women", "safety")))
    sections.append(([("h1", T["suppliers_heading"]), ("p", say(T["suppliers"]))], ("suppliers",)))
    sections.append(([("h1", T["risk_heading"]), ("p", choose("physical")), ("p", T["transition"])], ("physical",)))
    rng.shuffle(sections)
    for items, facts in sections:
        r.page(items, facts)
    r.page([("h1", T["assurance_heading"]), ("p", say(T["assurance"]))], ("assurance",))
    r.page([("h1", T["finance_heading"]),
            ("table", [T["finance_unit"], str(py), str(y)],
             [[T["finance_rows"][0], dec(n["revenue"] * 0.95, 1), dec(n["revenue"], 1)],
              [T["finance_rows"][1], dec(n["revenue"] * 0.08, 2), dec(n["revenue"] * 0.09, 2)]])])
    r.page([("h1", T["glossary_heading"]), ("p", T["glossary"])])
    r.page(*gri_index(r, index_pages, L))

    rows = []
    for i, ((keys, kind), (question, form)) in enumerate(zip(QUESTIONS, Q.QUESTIONS), start=1):
        pages = r.gold(keys)
        rows.append({"no": i, "question": question, "form": form, "gold_answer": "", "answer_type": kind,
                     "gold": [{"file": report_file(name, language), "page": p, "evidence": ""} for p in pages]})
    return r, rows


def write_questionnaire(path: Path, company: str, rows: list[dict], language: str = "en") -> None:
    from openpyxl import Workbook

    Q = texts(language)
    wb = Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    ws.append([Q.QUESTIONNAIRE_TITLE.format(company=company, year=YEAR)])
    ws.append([])
    ws.append(list(Q.QUESTIONNAIRE_HEADER))
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
    ap.add_argument("--language", choices=LANGUAGES, default="en", help="the language the reports are written in")
    ap.add_argument("--questions", choices=LANGUAGES, default="",
                    help="the language of the questionnaires (default: the reports')")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "samples"))
    from make_sample_pdf import build_pdf

    for name, sector, unit, site in COMPANIES[: args.companies]:
        folder = args.out / name.replace(" ", "_")
        folder.mkdir(parents=True, exist_ok=True)
        report, rows = build(name, sector, unit, site, args.seed, args.index_pages, args.language, args.questions)
        build_pdf(folder / report_file(name, args.language), report.pages,
                  header=f"{name} | {texts(args.language).TITLE} {YEAR}")
        write_questionnaire(folder / "questionnaire.xlsx", name, rows, args.questions or args.language)
        gold = [{k: v for k, v in row.items() if k != "form"} for row in rows]
        (folder / "gold.json").write_text(json.dumps(gold, indent=1))
        print(f"{folder}: {len(report.pages)} pages, {len(rows)} questions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
