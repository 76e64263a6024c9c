"""A development set of other report kinds (issue 35): a bank's climate report (TCFD), an insurer's climate
report and a utility's integrated report, laid out as real ones are: a cover, a contents page naming every
topic, a letter, highlights that repeat the headline figures, KPI tables, charts drawn as images (their
figures readable only through OCR), a basis-of-preparation page, a GRI/TCFD index and a glossary as
distractors. The questions were written from the reports' facts, in a questionnaire's wording (CDP for
financial services, a utility customer's supplier survey), before any retriever was run on them.

    python benchmarks/sector_reports.py OUT_DIR

Writes one folder per company under OUT_DIR (`<company>/<company> <kind> 2024.pdf`, `questionnaire.xlsx`,
`gold.json`), the layout `retrieval_dev.py --data OUT_DIR` and `second_stage.py` read. Gold pages are tracked
as the pages are laid out: a question's gold is every page that holds one of its facts (a highlights page
that repeats a figure counts). Deterministic apart from the chart images' bytes (matplotlib's version)."""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from sustainability_reports import Report, fmt, write_questionnaire  # noqa: E402

YEAR = 2024
CHART_RECT = (60, 430, 535, 770)  # where a chart page's image goes (its text stays above)


def chart_png(kind: str, title: str, labels: list[str], values: list[float], unit: str) -> bytes:
    """A bar or pie chart as a PNG, its figures printed on it (as report charts do)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4), dpi=110)
    if kind == "pie":
        ax.pie(values, labels=[f"{label}\n{v:.0f}%" for label, v in zip(labels, values)], startangle=90,
               textprops={"fontsize": 10})
        ax.axis("equal")
    else:
        bars = ax.barh(labels, values, color="#2a6f97")
        for bar, v in zip(bars, values):
            ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, f" {v:,.1f}", va="center", fontsize=10)
        ax.set_xlabel(unit)
        ax.invert_yaxis()
        ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title, fontsize=12)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


class LaidOut(Report):
    """Pages with fact keys, plus chart images to place on some of them."""

    def __init__(self) -> None:
        super().__init__()
        self.charts: dict[int, bytes] = {}  # 0-based page -> PNG

    def chart_page(self, items: list[tuple], png: bytes, facts: tuple[str, ...] = ()) -> None:
        self.charts[len(self.pages)] = png
        self.page(items, facts)


def contents(r: LaidOut, titles: list[str]) -> None:
    """A contents page naming every section (filled in once the pages are known)."""
    r.page([("h1", "Contents"), ("lines", [f"{t}" for t in titles])])


def bank(name: str, seed: int) -> tuple[LaidOut, list[tuple], str]:
    rng = random.Random(f"{seed}:{name}")
    y = YEAR
    fe = {"Oil and gas": rng.uniform(6, 12), "Power generation": rng.uniform(4, 9), "Steel": rng.uniform(2, 5),
          "Cement": rng.uniform(1, 3), "Aviation": rng.uniform(0.8, 2.5), "Commercial real estate": rng.uniform(0.5, 1.5),
          "Residential mortgages": rng.uniform(0.6, 1.8)}
    total_fe = sum(fe.values())
    dq = rng.uniform(2.6, 3.6)
    s1, s2 = rng.uniform(8, 25) * 1000, rng.uniform(20, 60) * 1000
    re_share = rng.uniform(60, 95)
    sf_goal, sf_done = rng.choice([300, 500, 750]), rng.uniform(120, 260)
    power_base, power_2030 = rng.uniform(300, 420), rng.uniform(120, 180)
    og_cut = rng.choice([30, 34, 40])
    flood = rng.uniform(2, 7)
    ecl = rng.uniform(0.4, 1.6)
    coal_oecd, coal_row = 2030, 2040
    green_bond = rng.choice([1.0, 1.5, 2.0])
    trained = rng.randint(8000, 30000)
    r = LaidOut()
    r.page([("h1", name), ("h2", f"Climate Report {y}"), ("p", "Task Force on Climate-related Financial Disclosures "
            "(TCFD) report and Net-Zero Banking Alliance progress update."), ("space", 200),
            ("p", "Financing a just and orderly transition.")])
    titles = ["Letter from our Group Chief Executive", "Highlights", "Governance", "Strategy: our transition plan",
              "Sector targets", "Sustainable finance", "Our financed emissions", "Financed emissions by sector",
              "Fossil fuel policy", "Scenario analysis and stress testing", "Physical risk in our lending",
              "Risk management", "Our own operations", "People and culture", "Basis of preparation",
              "TCFD and GRI index", "Glossary"]
    contents(r, titles)
    r.page([("h1", "Letter from our Group Chief Executive"),
            ("p", "Banks do not emit much themselves; what we finance does. That is why this report puts the emissions "
                  "of our clients at its centre. This year we set targets for the most carbon-intensive sectors in our "
                  "portfolio and grew the finance we provide for the transition."),
            ("p", "We know our numbers will change as client data improves, and we say where our estimates are weak. "
                  "We remain committed to net zero and to helping our clients get there.")])
    r.page([("h1", "Highlights"),
            ("table", ["Indicator", str(y)],
             [["Sustainable finance provided since 2021 (USD bn)", f"{sf_done:.0f}"],
              ["Financed emissions (Mt CO2e)", f"{total_fe:.1f}"],
              ["Electricity from renewable sources in our operations (%)", f"{re_share:.0f}"],
              ["Colleagues trained on climate risk", f"{trained:,}"]])],
           ("sf_progress", "financed_total", "renewable_ops"))
    r.page([("h1", "Governance"),
            ("p", "The Board sets our climate strategy and approves our transition plan. Its Board Risk Committee "
                  "reviews climate risk appetite, the results of climate stress tests and progress against sector "
                  "targets at every quarterly meeting."),
            ("p", "The Group Chief Risk Officer is the senior executive accountable for climate risk, supported by a "
                  "Climate Risk Forum that meets monthly."),
            ("p", f"Climate metrics carry a 10% weight in the long-term incentive plan of the Group Executive "
                  f"Committee: half on sustainable finance volumes, half on progress against our {y + 6} sector targets.")],
           ("board", "remuneration"))
    r.page([("h1", "Strategy: our transition plan"),
            ("p", "We joined the Net-Zero Banking Alliance in 2021 and committed to align our lending and investment "
                  "portfolios with pathways to net-zero emissions by 2050."),
            ("p", "Our plan has three parts: setting targets for the sectors that account for most of our financed "
                  "emissions, growing sustainable finance, and managing climate risk in our lending."),
            ("p", "Client transition plans are assessed when we renew credit for companies in high-emitting sectors.")],
           ("netzero",))
    r.page([("h1", "Sector targets"),
            ("table", ["Sector", "Metric", "Baseline", str(y), f"{y + 6} target"],
             [["Power generation", "kg CO2e/MWh", f"{power_base:.0f}", f"{power_base * 0.85:.0f}", f"{power_2030:.0f}"],
              ["Oil and gas", "Absolute Mt CO2e", "2020", f"-{og_cut / 2:.0f}%", f"-{og_cut}%"],
              ["Steel", "t CO2e/t steel", "1.9", "1.8", "1.4"],
              ["Cement", "t CO2e/t cement", "0.66", "0.64", "0.52"]]),
            ("p", "Targets cover lending to clients; baselines are 2020 unless stated. Intensity targets follow the "
                  "IEA Net Zero Emissions scenario.")],
           ("power_target", "og_target"))
    r.page([("h1", "Sustainable finance"),
            ("p", f"We aim to provide USD {sf_goal} billion of sustainable finance between 2021 and 2030: green, "
                  f"social and sustainability-linked loans and bonds, and advisory on transition transactions."),
            ("p", f"By the end of {y} we had provided USD {sf_done:.0f} billion. Renewable energy projects made up the "
                  f"largest share, followed by green mortgages and sustainability-linked loans."),
            ("p", f"In {y} we issued our third green bond, of USD {green_bond:.1f} billion, whose proceeds fund "
                  f"renewable energy and energy-efficient buildings.")],
           ("sf_goal", "sf_progress", "green_bond"))
    r.page([("h1", "Our financed emissions"),
            ("p", f"We measure the emissions of our lending with the PCAF Global GHG Accounting and Reporting Standard. "
                  f"Financed emissions were {total_fe:.1f} Mt CO2e in {y}, covering the Scope 1 and 2 emissions of our "
                  f"clients and, for oil and gas, their Scope 3."),
            ("p", f"The weighted data quality score was {dq:.1f} on PCAF's scale of 1 (best) to 5; most of our "
                  f"corporate clients' figures are reported, most mortgage figures are estimated from floor area."),
            ("p", "Financed emissions are more than 99% of our total footprint (category 15 of Scope 3).")],
           ("financed_total", "data_quality"))
    r.chart_page([("h1", "Financed emissions by sector"),
                  ("p", "Absolute financed emissions by sector of our corporate and retail lending at year end "
                        "(PCAF), in million tonnes CO2e. The chart shows where the emissions of our portfolio sit.")],
                 chart_png("bar", f"Financed emissions by sector, {y} (Mt CO2e)", list(fe), list(fe.values()),
                           "Mt CO2e"), ("fe_sector",))
    r.page([("h1", "Fossil fuel policy"),
            ("p", "We do not provide project finance for new oil and gas fields or for new coal mines, coal-fired power "
                  "plants or their infrastructure."),
            ("p", f"We will exit thermal coal mining and coal power clients by {coal_oecd} in OECD countries and by "
                  f"{coal_row} elsewhere. Clients with more than 10% of revenue from thermal coal must have a "
                  f"credible transition plan to receive new lending."),
            ("p", "Arctic and oil sands exploration and production are excluded.")],
           ("coal",))
    r.page([("h1", "Scenario analysis and stress testing"),
            ("p", "We ran three scenarios of the Network for Greening the Financial System (Net Zero 2050, Delayed "
                  "Transition and Current Policies) over a 30-year horizon, with the central bank's climate "
                  "biennial exploratory scenario as our regulatory stress test."),
            ("p", f"Under Delayed Transition, expected credit losses would rise by USD {ecl:.1f} billion cumulatively "
                  f"by 2050, concentrated in oil and gas and commercial real estate. Results sit within our risk "
                  f"appetite and capital buffers.")],
           ("scenario",))
    r.page([("h1", "Physical risk in our lending"),
            ("p", f"Using flood maps and climate projections, {flood:.1f}% of our residential mortgage book by value is "
                  f"secured on properties at high risk of river, coastal or surface-water flooding by 2050 under a "
                  f"high-emissions pathway."),
            ("p", "Physical risk is assessed at origination for commercial property and agriculture loans.")],
           ("flood",))
    r.page([("h1", "Risk management"),
            ("p", "Climate risk is treated as a driver of existing risk types (credit, market, operational and "
                  "reputational) rather than a stand-alone risk. Each risk type's framework says how climate factors "
                  "are identified and measured."),
            ("p", "A climate risk heatmap rates every sector of our lending for transition and physical risk; sectors "
                  "rated high need a client-level assessment before credit is approved.")],
           ("risk_process",))
    r.page([("h1", "Our own operations"),
            ("table", ["Emissions (t CO2e)", str(y - 1), str(y)],
             [["Scope 1 (buildings, vehicles)", fmt(s1 * 1.08), fmt(s1)],
              ["Scope 2 (market-based)", fmt(s2 * 1.2), fmt(s2)],
              ["Business travel", fmt(s1 * 0.9), fmt(s1 * 0.8)]]),
            ("p", f"{re_share:.0f}% of the electricity we used came from renewable sources, through on-site solar, "
                  f"green tariffs and a power purchase agreement.")],
           ("scope12", "renewable_ops"))
    r.page([("h1", "People and culture"),
            ("p", f"{trained:,} colleagues completed climate risk training this year, including every relationship "
                  f"manager covering high-emitting sectors."),
            ("p", "Women made up 38% of senior leadership and employee engagement stood at 76%.")],
           ("training",))
    r.page([("h1", "Basis of preparation"),
            ("p", "Financed emissions follow PCAF; operational emissions follow the GHG Protocol Corporate Standard "
                  "with the operational control approach. Estimates are restated when data improve."),
            ("p", "Selected metrics, including operational emissions and sustainable finance volumes, received limited "
                  "assurance from an independent auditor under ISAE 3000 (Revised) and ISAE 3410.")],
           ("assurance",))
    r.page([("h1", "TCFD and GRI index"),
            ("table", ["Recommended disclosure", "Section"],
             [["Governance a) Board oversight", "Governance"], ["Strategy c) Resilience / scenarios", "Scenario analysis"],
              ["Risk management a) Processes", "Risk management"], ["Metrics b) Scope 1, 2, 3", "Our own operations; financed emissions"],
              ["Metrics c) Targets", "Sector targets"], ["GRI 305-1 / 305-2", "Our own operations"],
              ["GRI 201-2 Climate risks and opportunities", "Strategy"], ["GRI 404-2 Training", "People and culture"]])])
    r.page([("h1", "Glossary"),
            ("p", "Financed emissions: the emissions of clients attributed to a lender. PCAF: the Partnership for "
                  "Carbon Accounting Financials. NGFS: Network for Greening the Financial System. Sustainable "
                  "finance: lending and capital markets activity for environmental or social purposes. "
                  "Sustainability-linked loan: a loan whose margin depends on the borrower's performance targets. "
                  "Expected credit loss: the probability-weighted loss on a loan.")])
    questions = [
        ("What were your absolute financed emissions (Scope 3 category 15) for the reporting year?", "Number with unit", ("financed_total",), "number"),
        ("Which methodology and data quality score did you use for your portfolio emissions?", "Text", ("data_quality",), "text"),
        ("Which sector of your lending contributes most to your portfolio emissions, and how much?", "Text", ("fe_sector",), "text"),
        ("Have you set a target for the emissions intensity of your lending to electricity generators? Give the target value and year.", "Yes/No and target", ("power_target",), "yesno"),
        ("Describe your target for your oil and gas portfolio.", "Text", ("og_target",), "text"),
        ("What is your commitment for green and sustainable financing, and how much has been deployed to date?", "Text", ("sf_goal", "sf_progress"), "text"),
        ("Do you restrict financing for thermal coal? Give phase-out dates.", "Yes/No and dates", ("coal",), "yesno"),
        ("Which climate scenarios did you use, and what was the estimated impact on credit losses?", "Text", ("scenario",), "text"),
        ("What share of your mortgage portfolio is exposed to high flood risk?", "Percentage", ("flood",), "number"),
        ("Which board committee oversees climate-related issues?", "Text", ("board",), "text"),
        ("Is executive remuneration linked to climate-related targets?", "Yes/No and explanation", ("remuneration",), "yesno"),
        ("Report your gross Scope 1 and Scope 2 (market-based) emissions.", "Number with unit", ("scope12",), "number"),
        ("What percentage of the electricity you consume is renewable?", "Percentage", ("renewable_ops",), "number"),
        ("Are you a member of a net-zero alliance, and what is your net-zero target year?", "Text", ("netzero",), "text"),
        ("How are climate-related risks integrated into your risk management framework?", "Text", ("risk_process",), "text"),
        ("Did you issue green bonds in the reporting year? State the amount.", "Yes/No and amount", ("green_bond",), "yesno"),
        ("Is your climate data externally assured?", "Yes/No and explanation", ("assurance",), "yesno"),
    ]
    return r, questions, "Climate Report"


def insurer(name: str, seed: int) -> tuple[LaidOut, list[tuple], str]:
    rng = random.Random(f"{seed}:{name}")
    y = YEAR
    cat = {"Windstorm": rng.uniform(300, 900), "Flood": rng.uniform(200, 600), "Wildfire": rng.uniform(50, 300),
           "Hail": rng.uniform(80, 250), "Winter storm": rng.uniform(40, 150)}
    waci = rng.uniform(90, 160)
    waci_cut = rng.choice([25, 30, 35])
    green_inv, green_goal = rng.uniform(3, 9), rng.choice([12, 15, 20])
    s12 = rng.uniform(15, 45) * 1000
    coal_uw = 2030
    cr = rng.uniform(92, 99)
    r = LaidOut()
    r.page([("h1", name), ("h2", f"Climate and Sustainability Report {y}"),
            ("p", "Our TCFD report and progress on the Forum for Insurance Transition to Net Zero."), ("space", 200)])
    contents(r, ["Chair's statement", "Year at a glance", "How climate is governed", "Climate risk in underwriting",
                 "Natural catastrophe losses", "Our investment portfolio", "Underwriting policy on fossil fuels",
                 "Climate scenario analysis", "Products for the transition", "Operational footprint",
                 "Basis of preparation", "GRI and TCFD index"])
    r.page([("h1", "Chair's statement"),
            ("p", "Climate change is already in our numbers: weather losses are larger and more frequent than the "
                  "models of a decade ago expected. Pricing that risk well, and helping customers adapt, is our job."),
            ("p", "As an investor we also shape the transition, and this year we went further in aligning our portfolio.")])
    r.page([("h1", "Year at a glance"),
            ("table", ["", str(y)],
             [["Combined ratio (%)", f"{cr:.1f}"],
              ["Natural catastrophe claims (USD m)", fmt(sum(cat.values()))],
              ["Green investments (USD bn)", f"{green_inv:.1f}"],
              ["Investment portfolio carbon intensity (t CO2e/USD m revenue)", f"{waci:.0f}"]])],
           ("natcat_total", "green_inv", "waci"))
    r.page([("h1", "How climate is governed"),
            ("p", "The Board's Risk and Capital Committee oversees climate risk, including our natural catastrophe "
                  "risk appetite and the results of climate scenario analysis, twice a year."),
            ("p", "The Chief Underwriting Officer and the Chief Investment Officer own the climate targets of their "
                  "areas; 15% of their annual bonus depends on them.")],
           ("board", "remuneration"))
    r.page([("h1", "Climate risk in underwriting"),
            ("p", "Natural catastrophe models are adjusted for the warming already observed; our view of risk for "
                  "flood and wildfire is above the vendor models' for several regions."),
            ("p", "Reinsurance protects capital against a one-in-200-year catastrophe year; its cost rose this year.")],
           ("uw_risk",))
    r.chart_page([("h1", "Natural catastrophe losses"),
                  ("p", f"Claims incurred from natural catastrophes in {y} by peril, net of reinsurance, in USD million. "
                        f"Losses from secondary perils such as flood and hail continued to grow.")],
                 chart_png("bar", f"Natural catastrophe claims by peril, {y} (USD m)", list(cat), list(cat.values()),
                           "USD million"), ("natcat_peril",))
    r.page([("h1", "Our investment portfolio"),
            ("p", f"The weighted average carbon intensity of our listed equity and corporate bond holdings was "
                  f"{waci:.0f} tonnes CO2e per USD million of revenue, and we aim to reduce it by {waci_cut}% by "
                  f"{y + 1 + 4} from 2019."),
            ("p", f"Green investments (green bonds, renewable infrastructure, certified buildings) reached USD "
                  f"{green_inv:.1f} billion against a goal of USD {green_goal} billion by 2030.")],
           ("waci", "waci_target", "green_inv"))
    r.page([("h1", "Underwriting policy on fossil fuels"),
            ("p", f"We no longer insure new thermal coal mines or power plants, and we will end cover for existing "
                  f"thermal coal clients by {coal_uw}. New oil sands and Arctic drilling projects are excluded.")],
           ("coal",))
    r.page([("h1", "Climate scenario analysis"),
            ("p", "We tested our balance sheet under an orderly and a disorderly transition and a hot-house world. "
                  "In the hot-house world, modelled annual catastrophe losses rise by a third by 2050; in a "
                  "disorderly transition, our investments lose 6% of value, mostly in energy and utilities."),
            ("p", "Solvency stays above our target range in every scenario.")],
           ("scenario",))
    r.page([("h1", "Products for the transition"),
            ("p", "We insure over 40 GW of wind and solar capacity and offer parametric flood cover to small businesses."
                  " Premiums from products with environmental benefits reached 9% of gross written premiums.")],
           ("products",))
    r.page([("h1", "Operational footprint"),
            ("table", ["t CO2e", str(y - 1), str(y)],
             [["Scope 1", fmt(s12 * 0.3 * 1.1), fmt(s12 * 0.3)], ["Scope 2 (market-based)", fmt(s12 * 0.7 * 1.15), fmt(s12 * 0.7)]]),
            ("p", "All our offices buy renewable electricity where the market allows.")],
           ("scope12",))
    r.page([("h1", "Basis of preparation"),
            ("p", "Emissions follow the GHG Protocol; investment metrics follow the PCAF standard for listed equity "
                  "and corporate bonds. Scope 1 and 2 emissions received limited assurance (ISAE 3410).")],
           ("assurance",))
    r.page([("h1", "GRI and TCFD index"),
            ("table", ["Disclosure", "Where"],
             [["Board oversight of climate", "How climate is governed"], ["Scenario analysis", "Climate scenario analysis"],
              ["GRI 305-1, 305-2", "Operational footprint"], ["GRI 201-2", "Climate risk in underwriting"],
              ["Targets", "Our investment portfolio"]])])
    questions = [
        ("Which natural hazard caused the largest insured losses in the reporting year?", "Text", ("natcat_peril",), "text"),
        ("What were total natural catastrophe claims in the reporting year?", "Number with unit", ("natcat_total", "natcat_peril"), "number"),
        ("What is the weighted average carbon intensity of your investments, and your reduction target?", "Text", ("waci", "waci_target"), "text"),
        ("How much have you invested in climate solutions, against what goal?", "Text", ("green_inv",), "text"),
        ("Do you restrict insurance cover for coal? Give the exit date.", "Yes/No and date", ("coal",), "yesno"),
        ("Which scenarios did you use to assess climate risk, and what was the result?", "Text", ("scenario",), "text"),
        ("Which board committee is responsible for climate risk oversight?", "Text", ("board",), "text"),
        ("Are management incentives linked to climate targets?", "Yes/No and explanation", ("remuneration",), "yesno"),
        ("Report your Scope 1 and Scope 2 emissions.", "Number with unit", ("scope12",), "number"),
        ("How is climate change reflected in your underwriting risk models?", "Text", ("uw_risk",), "text"),
        ("Describe insurance products that support the low-carbon transition.", "Text", ("products",), "text"),
        ("Are your emissions figures verified by a third party?", "Yes/No and explanation", ("assurance",), "yesno"),
    ]
    return r, questions, "Climate and Sustainability Report"


def utility(name: str, seed: int) -> tuple[LaidOut, list[tuple], str]:
    rng = random.Random(f"{seed}:{name}")
    y = YEAR
    mix = {"Coal": rng.uniform(10, 25), "Natural gas": rng.uniform(20, 35), "Wind": rng.uniform(15, 25),
           "Solar": rng.uniform(5, 12), "Hydro": rng.uniform(5, 12)}
    total = sum(mix.values())
    mix = {k: 100 * v / total for k, v in mix.items()}
    intensity, prev_int = rng.uniform(0.28, 0.45), 0.0
    prev_int = intensity * rng.uniform(1.06, 1.18)
    s1 = rng.uniform(8, 25)  # Mt
    re_gw, re_goal = rng.uniform(6, 14), rng.choice([20, 25, 30])
    coal_exit = rng.choice([2028, 2030, 2032])
    capex, capex_green = rng.uniform(4, 9), rng.choice([70, 75, 80])
    saidi, prev_saidi = rng.uniform(55, 110), 0.0
    prev_saidi = saidi * rng.uniform(0.85, 1.2)
    customers = rng.uniform(3, 9)
    ebitda, net_debt = rng.uniform(3, 7), rng.uniform(12, 30)
    water = rng.uniform(200, 900)
    workers = rng.randint(800, 2500)
    r = LaidOut()
    r.page([("h1", name), ("h2", f"Integrated Report {y}"), ("p", "Strategic report, sustainability performance and "
            "financial statements summary."), ("space", 200), ("p", "Powering a cleaner tomorrow.")])
    contents(r, ["Chair and CEO letter", "The year in numbers", "Our business model", "Strategy and capital allocation",
                 "Generation portfolio", "Decarbonisation", "Emissions performance", "Networks and customers",
                 "Just transition", "Climate risks", "Water and nature", "Governance", "Financial review",
                 "Sustainability data and GRI index"])
    r.page([("h1", "Chair and CEO letter"),
            ("p", "The energy transition is the largest investment programme in our history. This year we connected "
                  "record amounts of new renewable capacity and kept our promise to close our oldest coal units."),
            ("p", "Affordability matters as much as emissions: we kept bills flat in real terms while investing in the "
                  "network.")])
    r.page([("h1", "The year in numbers"),
            ("table", ["", str(y)],
             [["Customers (million)", f"{customers:.1f}"], ["Renewable capacity (GW)", f"{re_gw:.1f}"],
              ["Underlying EBITDA (EUR bn)", f"{ebitda:.2f}"],
              ["Carbon intensity of generation (t CO2e/MWh)", f"{intensity:.3f}"]])],
           ("customers", "re_capacity", "ebitda", "intensity"))
    r.page([("h1", "Our business model"),
            ("p", "We generate electricity, operate regulated electricity and gas distribution networks, and supply "
                  "homes and businesses. Regulated networks earn a return set by the energy regulator every five years."),
            ("p", "Our value is created through four capitals: financial, manufactured, natural and human.")])
    r.page([("h1", "Strategy and capital allocation"),
            ("p", f"We plan to invest EUR {capex:.1f} billion a year to {y + 4}, of which {capex_green}% goes to "
                  f"renewables and grids and counts as taxonomy-aligned."),
            ("p", f"We aim to reach {re_goal} GW of renewable capacity by 2030.")],
           ("capex", "re_goal"))
    r.chart_page([("h1", "Generation portfolio"),
                  ("p", f"Share of the electricity we generated in {y} by source. The chart shows our output mix; "
                        f"capacity is in the sustainability data.")],
                 chart_png("pie", f"Electricity generated by source, {y}", list(mix), list(mix.values()), "%"),
                 ("mix",))
    r.page([("h1", "Decarbonisation"),
            ("p", f"Our targets, validated by the Science Based Targets initiative as consistent with 1.5 C, are to "
                  f"reduce the carbon intensity of our generation by 80% by 2030 from 2017, and to reach net zero "
                  f"across Scopes 1, 2 and 3 by 2040."),
            ("p", f"We will close or convert our last coal-fired units by {coal_exit}. Two units were retired this "
                  f"year and one converted to biomass.")],
           ("sbt", "coal_exit"))
    r.page([("h1", "Emissions performance"),
            ("table", ["Indicator", str(y - 1), str(y)],
             [["Scope 1 emissions (Mt CO2e)", f"{s1 * prev_int / intensity:.1f}", f"{s1:.1f}"],
              ["Generation carbon intensity (t CO2e/MWh)", f"{prev_int:.3f}", f"{intensity:.3f}"],
              ["SF6 leakage rate (%)", "0.42", "0.38"]]),
            ("p", f"Intensity fell by {100 * (1 - intensity / prev_int):.0f}% because lower-carbon output grew while two "
                  f"coal units closed; a dry year reduced hydro output and partly offset the gain.")],
           ("scope1", "intensity", "intensity_reason"))
    r.page([("h1", "Networks and customers"),
            ("p", f"We serve {customers:.1f} million customers. The average time customers were without power "
                  f"(SAIDI) was {saidi:.0f} minutes, against {prev_saidi:.0f} minutes the year before; storms in "
                  f"the autumn caused most of the interruptions."),
            ("p", "Smart meters now reach 84% of homes, and we connected 41,000 heat pumps and 95,000 electric "
                  "vehicle chargers to our grid.")],
           ("saidi", "customers"))
    r.page([("h1", "Just transition"),
            ("p", f"Closing coal plants affects {workers:,} employees. Every one has been offered redeployment, "
                  f"retraining for renewable and network roles, or early retirement, agreed with the trade unions."),
            ("p", "We fund economic development in the coal regions, with a focus on new industrial employers.")],
           ("just_transition",))
    r.page([("h1", "Climate risks"),
            ("p", "Physical risks: heatwaves limit the output of thermal plants whose cooling water gets too warm, "
                  "droughts reduce hydro generation, and storms damage overhead lines."),
            ("p", "Transition risks: carbon prices, faster coal exit required by law, and market prices that fall "
                  "when wind and solar output is high. Opportunities: electrification of heat and transport.")],
           ("physical", "transition_risk"))
    r.page([("h1", "Water and nature"),
            ("p", f"Thermal plants withdrew {water:.0f} million m3 of water for cooling, 95% of it returned to "
                  f"rivers. New wind and solar sites follow a biodiversity net gain plan.")],
           ("water",))
    r.page([("h1", "Governance"),
            ("p", "The Board's Sustainability Committee oversees the decarbonisation plan and climate risk; the "
                  "Audit Committee reviews climate-related financial disclosures."),
            ("p", "The long-term incentive plan gives a 20% weight to the reduction of carbon intensity and the "
                  "growth of renewable capacity.")],
           ("board", "remuneration"))
    r.page([("h1", "Financial review"),
            ("table", ["EUR billion", str(y - 1), str(y)],
             [["Revenue", f"{ebitda * 5.2:.1f}", f"{ebitda * 5.5:.1f}"], ["Underlying EBITDA", f"{ebitda * 0.93:.2f}", f"{ebitda:.2f}"],
              ["Capital expenditure", f"{capex * 0.9:.1f}", f"{capex:.1f}"], ["Net debt", f"{net_debt * 0.95:.1f}", f"{net_debt:.1f}"]]),
            ("p", "Net debt rose with the investment programme; our credit rating was unchanged.")],
           ("ebitda", "net_debt"))
    r.page([("h1", "Sustainability data and GRI index"),
            ("table", ["GRI disclosure", "Topic", "Page"],
             [["GRI 305-1", "Direct (Scope 1) GHG emissions", "Emissions performance"],
              ["GRI 305-4", "GHG emissions intensity", "Emissions performance"],
              ["GRI 303-3", "Water withdrawal", "Water and nature"],
              ["EU1", "Installed capacity by source", "Generation portfolio"],
              ["EU28", "Power outage frequency", "Networks and customers"],
              ["GRI 201-2", "Climate risks and opportunities", "Climate risks"],
              ["GRI 2-19", "Remuneration policies", "Governance"]])])
    questions = [
        ("What was the share of coal in your electricity generation in the reporting year?", "Percentage", ("mix",), "number"),
        ("What share of your power output came from wind?", "Percentage", ("mix",), "number"),
        ("What is the emissions intensity of your power generation, and why did it change?", "Text", ("intensity", "intensity_reason"), "text"),
        ("Report your gross Scope 1 emissions.", "Number with unit", ("scope1",), "number"),
        ("When will you stop generating electricity from coal?", "Year", ("coal_exit",), "number"),
        ("Are your emissions reduction targets approved by the Science Based Targets initiative?", "Yes/No and explanation", ("sbt",), "yesno"),
        ("How much renewable generation capacity do you operate, and what is your goal?", "Text", ("re_capacity", "re_goal"), "text"),
        ("What share of planned capital expenditure is aligned with the EU taxonomy?", "Percentage", ("capex",), "number"),
        ("What was your grid reliability (average interruption duration) in the reporting year?", "Number with unit", ("saidi",), "number"),
        ("How do you support workers affected by the closure of fossil fuel plants?", "Text", ("just_transition",), "text"),
        ("Which physical climate risks affect your generation assets?", "Text", ("physical",), "text"),
        ("How much water did you withdraw?", "Number with unit", ("water",), "number"),
        ("Is executive pay linked to climate performance?", "Yes/No and explanation", ("remuneration",), "yesno"),
        ("What was your net debt at year end?", "Number with unit", ("net_debt",), "number"),
        ("How many customers do you serve?", "Number", ("customers",), "number"),
    ]
    return r, questions, "Integrated Report"


COMPANIES = [("Meridian Bank", bank), ("Halcyon Insurance Group", insurer), ("Northmoor Energy", utility)]


def write(folder: Path, name: str, report: LaidOut, questions: list[tuple], title: str) -> int:
    import pymupdf

    from make_sample_pdf import build_pdf

    pdf = folder / f"{name} {title} {YEAR}.pdf"
    build_pdf(pdf, report.pages, header=f"{name} | {title} {YEAR}")
    if report.charts:
        doc = pymupdf.open(str(pdf))
        for index, png in report.charts.items():
            doc[index].insert_image(pymupdf.Rect(*CHART_RECT), stream=png)
        tmp = pdf.with_name(pdf.name + ".tmp")
        doc.save(tmp, garbage=3, deflate=True, no_new_id=True)
        doc.close()
        tmp.replace(pdf)
    rows = []
    for i, (question, form, keys, kind) in enumerate(questions, start=1):
        rows.append({"no": i, "question": question, "form": form, "gold_answer": "", "answer_type": kind,
                     "gold": [{"file": pdf.name, "page": p, "evidence": ""} for p in report.gold(keys)]})
    write_questionnaire(folder / "questionnaire.xlsx", name, rows)
    (folder / "gold.json").write_text(json.dumps([{k: v for k, v in row.items() if k != "form"} for row in rows], indent=1))
    return len(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--seed", type=int, default=35)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "samples"))
    for name, build in COMPANIES:
        folder = args.out / name.replace(" ", "_")
        folder.mkdir(parents=True, exist_ok=True)
        report, questions, title = build(name, args.seed)
        n = write(folder, name, report, questions, title)
        print(f"{folder}: {len(report.pages)} pages ({len(report.charts)} chart), {n} questions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
