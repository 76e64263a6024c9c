"""The English page texts and questions of benchmarks/sustainability_reports.py (the reports it has always
written; report_texts_de.py and report_texts_fr.py hold the same pages written in German and French).

Every text is a `str.format` template over the fields the generator fills in (`{name}`, `{site}`, the
numbers already formatted the language's way: THOUSANDS, DECIMAL, PERCENT). A tuple is a choice the
generator draws with its random generator, so every language has the same number of options in the same
place and a seed gives the same numbers, section order and gold pages in every language."""

from __future__ import annotations

TITLE = "Sustainability Report"


# The company's words (its sector, unit of output and kind of site) are sustainability_reports.COMPANIES'
# own, the site's plural with an "s"; the other languages name theirs per company.
TERM_FIELDS: tuple[str, ...] = ()
TERMS = None
THOUSANDS, DECIMAL, PERCENT = ",", ".", "%"  # 1,234,567; 12.3%

LEVERS = {
    "electrification": "Electrifying process heat and mobile equipment at our {sites}, starting with the two largest, "
                       "replaces diesel and natural gas combustion.",
    "renewables": "Power purchase agreements for wind and solar electricity will lift the renewable share of our "
                  "electricity from {re_share}% to {re_target}%.",
    "efficiency": "An energy-efficiency programme of heat recovery, variable-speed drives and compressed-air leak "
                  "repair across all {n_sites} {sites}.",
    "fuels": "Switching from coal and heavy fuel oil to biomass, biogas and hydrotreated vegetable oil where supply is "
             "certified sustainable.",
    "ccus": "A carbon capture pilot at our largest site, with a decision on full-scale capture expected by 2027.",
}
# A lever's name in "First, <name>" and as a heading of its own.
LEVER_NAMES = {key: (key, key.capitalize()) for key in LEVERS}

T = {
    "reason": ("a fuel switch from coal to natural gas at our two largest {sites}",
               "the commissioning of a 60 MW solar power purchase agreement",
               "higher output from our most efficient {sites} and the closure of an older {site}"),
    "reason2": ("partly offset by a colder winter that raised heating fuel use",
                "partly offset by lower utilisation during a planned maintenance shutdown",
                "while production volumes were broadly flat"),
    "cover_intro": "{name} is a {sector} company with {employees} employees and {n_sites} {sites}. This report covers "
                   "the financial year {y} and our progress on climate, nature and people.",
    "ceo_heading": "A message from our Chief Executive",
    "ceo": ("Climate change is the defining challenge of our industry. This year we made real progress against our "
            "commitments, and we remain determined to reach net zero.",
            "Our ambition is to lead our sector in the transition to a low-carbon economy. The year showed that "
            "decarbonisation and value creation go hand in hand."),
    "ceo_thanks": "I want to thank our people, whose commitment to safety and to our communities made this year "
                  "possible. We will keep listening to our stakeholders and report transparently on where we fall "
                  "short.",
    "gov_heading": "Governance of sustainability",
    "gov_board": ("The Board's Sustainability Committee oversees climate-related risks and opportunities and meets "
                  "four times a year.",
                  "Climate matters are overseen by the Board through its Safety, Health and Environment Committee, "
                  "which reviewed our transition plan twice during the year."),
    "gov_pay": ("Executive pay: the annual incentive scorecard of the executive team gives a 15% weighting to "
                "delivering the year's emissions reduction milestone.",
                "Twenty per cent of the long-term incentive plan for senior executives vests on progress against our "
                "{y6} operational emissions goal."),
    "gov_price": ("Investment decisions above USD 10 million are tested against a shadow price of carbon of USD "
                  "{carbon_price} per tonne, rising over time.",
                  "We apply a notional cost of USD {carbon_price} for every tonne of CO2e a project would emit when we "
                  "appraise capital projects."),
    "target_heading": "Our climate commitments",
    "target": ("We will cut the direct emissions from our own operations and those from the energy we buy by "
               "{target_pct}% by {y6}, measured against {base}.",
               "By {y6} our operational footprint (fuel burned on our sites plus purchased power) will be "
               "{target_pct}% below its {base} level."),
    "netzero": "Our long-term goal is net-zero emissions across our operations and value chain by {nz}. The near-term "
               "goal has been validated by an external body as consistent with limiting warming to 1.5 C.",
    "target_more": "We also aim to source {re_target}% of our electricity from renewable sources by {y6} and to halve "
                   "the water we withdraw in stressed catchments.",
    "ghg_heading": "Greenhouse gas emissions",
    "ghg_intro": "Emissions are reported in tonnes of CO2 equivalent under the operational control approach.",
    "ghg_unit": "Emissions (t CO2e)",
    "ghg_rows": ("Direct emissions from own operations", "Purchased energy, market-based",
                 "Purchased energy, location-based", "Value chain (upstream and downstream)"),
    "ghg_note": "Direct emissions correspond to Scope 1 and purchased energy to Scope 2 of the GHG Protocol.",
    "intensity_heading": "Carbon intensity",
    "indicator": "Indicator",
    "change": "Change",
    "intensity_row": "kg CO2e per {unit}",
    "production_row": "Production (million units)",
    "intensity_note": "Intensity is operational emissions divided by output; the output basis did not change.",
    "commentary_heading": "Performance commentary",
    "commentary": "Compared with {py}, the footprint of our sites per unit produced moved by {change}. The main driver "
                  "was {reason}, {reason2}.",
    "commentary_grid": "Absolute emissions from purchased electricity also fell as the grids we draw on decarbonised, "
                       "which the location-based figures show.",
    "pathway_heading": "Our pathway to 2030",
    "pathway_intro": "Reaching our near-term goal rests on a small number of proven measures, sized by their abatement "
                     "and their cost per tonne.",
    "first": "First, {lever}",
    "second": "Second, {lever}",
    "energy_heading": "Energy",
    "energy_col": "Energy",
    "energy_rows": ("Total energy consumed (GJ)", "Electricity from renewable sources (%)"),
    "beyond_heading": "Beyond the first steps",
    "beyond_intro": "Further reductions come from measures that are still maturing:",
    "beyond_residual": "Residual emissions after these measures will be addressed with high-quality removals.",
    "water_heading": "Water and circularity",
    "water_rows": ("Water withdrawn (million m3)", "Waste diverted from landfill (%)"),
    "water_note": "Most of our water is withdrawn from surface sources and returned after treatment.",
    "people_heading": "Our people",
    "safety": "Safety: the total recordable injury frequency was {trifr} per million hours worked. Every employee "
              "received {training} hours of training on average.",
    "women": "Women held {women}% of senior leadership roles at year end, against a goal of 40% by {y6}.",
    "suppliers_heading": "Working with suppliers",
    "suppliers": "We asked our largest suppliers, covering {suppliers}% of purchasing spend, to disclose their "
                 "footprint through a common platform and to set reduction goals. Low-carbon criteria now form part of "
                 "every tender above USD 1 million.",
    "risk_heading": "Climate risk and resilience",
    "physical": ("Scenario analysis identified flooding of coastal {sites}, heat stress on workers and water scarcity "
                 "at inland sites as the most material acute and chronic hazards.",
                 "The hazards that matter most to our {sites} are river flooding, extreme heat and prolonged drought, "
                 "which could interrupt production and raise costs."),
    "transition": "Transition risks include carbon pricing, changing customer preferences and the cost of new "
                  "technology.",
    "assurance_heading": "Independent assurance statement",
    "assurance": "We were engaged by {name} to provide limited assurance over selected sustainability information for "
                 "{y}, including the emissions and energy data. Based on the procedures performed, nothing has come to "
                 "our attention that causes us to believe the selected information is not prepared, in all material "
                 "respects, in accordance with the reporting criteria. ISAE 3000 and ISAE 3410 were applied.",
    "finance_heading": "Financial highlights",
    "finance_unit": "USD billion",
    "finance_rows": ("Revenue", "Capital expenditure"),
    "glossary_heading": "Glossary",
    "glossary": "Scope 1: direct GHG emissions from sources a company owns or controls. Scope 2: indirect emissions "
                "from purchased electricity, steam, heat and cooling. Scope 3: all other indirect emissions in the "
                "value chain. Carbon intensity: emissions per unit of output. Internal carbon price: a cost per tonne "
                "applied to investment decisions. Limited assurance: a lower level of assurance than reasonable "
                "assurance. Net zero: a state where remaining emissions are balanced by removals.",
    "gri_heading": "GRI content index",
    "gri_columns": ("Disclosure", "Topic", "Page"),
}

# The GRI disclosures' titles, in the order of sustainability_reports.GRI_INDEX.
GRI_TOPICS = ("Direct (Scope 1) GHG emissions", "Energy indirect (Scope 2) GHG emissions", "GHG emissions intensity",
              "Reduction of GHG emissions", "Energy consumption within the organization", "Water withdrawal",
              "Waste diverted from disposal", "Diversity of governance bodies", "Work-related injuries",
              "Remuneration policies")

# The questionnaire: a customer's wording, not the report's; (question, form of answer) in the order of
# sustainability_reports.QUESTIONS.
QUESTIONS = (
    ("Report your gross global Scope 1 emissions for the reporting year in metric tonnes CO2e.", "Number with unit"),
    ("What were your Scope 2 emissions (market-based) for the reporting year?", "Number with unit"),
    ("What share of the electricity you consume comes from renewable sources?", "Percentage"),
    ("Total water withdrawal in the reporting year.", "Number with unit"),
    ("Percentage of women in senior management positions.", "Percentage"),
    ("Explain the change in your carbon intensity compared with the previous year and its main reasons.", "Text"),
    ("Describe the main levers you will use to meet your emissions reduction target.", "Text"),
    ("State your Scope 1 and 2 emissions reduction target, including the base year and target year.", "Text"),
    ("Is executive remuneration linked to climate-related performance?", "Yes/No and explanation"),
    ("Does your organisation use an internal carbon price?", "Yes/No and the price"),
    ("Is your GHG inventory verified by a third party? Give the assurance level.", "Yes/No and explanation"),
    ("How do you engage your suppliers on climate change?", "Text"),
    ("Which physical climate risks have you identified for your operations?", "Text"),
)
QUESTIONNAIRE_TITLE = "{company}: sustainability questionnaire {year}"
QUESTIONNAIRE_HEADER = ("No.", "Question", "Form of answer", "Answer")
