"""The German page texts and questions of benchmarks/sustainability_reports.py (`--language de`):
the report_texts_en.py pages written as a German company's Nachhaltigkeitsbericht words them, by hand,
with German number formats (1.234.567; 12,3 %; t CO2-Äq.). Same keys, same number of choices in the
same places as the English table (see its docstring); the questions are a customer's questionnaire
wording, not the report's."""

from __future__ import annotations

TITLE = "Nachhaltigkeitsbericht"

# Per company: the sector (with its article), the unit of output, the site in the singular, the plural
# (nominative, also genitive) and the dative plural, and "one older site" in the genitive.
TERM_FIELDS = ("sector", "unit", "site", "sites", "sites_dat", "older_site")
TERMS = {
    "Calder Cement": ("ein Zementhersteller", "Tonne Zementprodukt", "Werk", "Werke", "Werken", "eines älteren Werks"),
    "Harbourline Logistics": ("ein Logistikunternehmen", "1.000 Tonnenkilometer", "Logistikzentrum",
                              "Logistikzentren", "Logistikzentren", "eines älteren Logistikzentrums"),
    "Verdant Foods": ("ein Lebensmittelhersteller", "Tonne Fertigware", "Werk", "Werke", "Werken",
                      "eines älteren Werks"),
    "Solvay Ridge Chemicals": ("ein Spezialchemieunternehmen", "Tonne Produktion", "Anlage", "Anlagen", "Anlagen",
                               "einer älteren Anlage"),
    "Northgate Retail": ("ein Einzelhandelsunternehmen", "Quadratmeter Verkaufsfläche", "Filiale", "Filialen",
                         "Filialen", "einer älteren Filiale"),
    "Aurora Paper": ("ein Zellstoff- und Papierhersteller", "Tonne lutro", "Werk", "Werke", "Werken",
                     "eines älteren Werks"),
}
THOUSANDS, DECIMAL, PERCENT = ".", ",", " %"  # 1.234.567; 12,3 %

LEVERS = {
    "electrification": "Die Elektrifizierung von Prozesswärme und mobilen Maschinen an unseren {sites_dat}, beginnend "
                       "mit den beiden größten, ersetzt die Verbrennung von Diesel und Erdgas.",
    "renewables": "Langfristige Stromlieferverträge (PPAs) für Wind- und Solarstrom werden den Anteil erneuerbarer "
                  "Energien an unserem Strombezug von {re_share} % auf {re_target} % erhöhen.",
    "efficiency": "Ein Energieeffizienzprogramm mit Wärmerückgewinnung, drehzahlgeregelten Antrieben und der "
                  "Beseitigung von Druckluftleckagen an allen {n_sites} {sites_dat}.",
    "fuels": "Der Ersatz von Kohle und schwerem Heizöl durch Biomasse, Biogas und hydriertes Pflanzenöl (HVO), soweit "
             "die Versorgung nachweislich nachhaltig zertifiziert ist.",
    "ccus": "Ein Pilotprojekt zur CO2-Abscheidung an unserem größten Standort; über eine Abscheidung im industriellen "
            "Maßstab wollen wir bis 2027 entscheiden.",
}
LEVER_NAMES = {"electrification": ("Elektrifizierung", "Elektrifizierung"),
               "renewables": ("Strom aus erneuerbaren Quellen", "Strom aus erneuerbaren Quellen"),
               "efficiency": ("Energieeffizienz", "Energieeffizienz"),
               "fuels": ("Brennstoffwechsel", "Brennstoffwechsel"),
               "ccus": ("CO2-Abscheidung und -Nutzung", "CO2-Abscheidung und -Nutzung")}

T = {
    "reason": ("die Umstellung von Kohle auf Erdgas an unseren beiden größten {sites_dat}",
               "die Inbetriebnahme eines Stromliefervertrags über 60 MW Solarleistung",
               "eine höhere Auslastung unserer effizientesten {sites} und die Stilllegung {older_site}"),
    "reason2": ("teilweise aufgezehrt durch einen kälteren Winter, der mehr Brennstoff für die Beheizung erforderte",
                "teilweise aufgezehrt durch eine geringere Auslastung während eines planmäßigen Wartungsstillstands",
                "bei weitgehend unveränderten Produktionsmengen"),
    "cover_intro": "{name} ist {sector} mit {employees} Beschäftigten und {n_sites} {sites_dat}. Dieser Bericht "
                   "umfasst das Geschäftsjahr {y} und unsere Fortschritte in den Bereichen Klima, Natur und Mensch.",
    "ceo_heading": "Vorwort des Vorstandsvorsitzenden",
    "ceo": ("Der Klimawandel ist die zentrale Herausforderung unserer Branche. In diesem Jahr sind wir bei der "
            "Umsetzung unserer Zusagen deutlich vorangekommen, und wir halten entschlossen an unserem Ziel fest, "
            "klimaneutral zu werden.",
            "Wir wollen beim Übergang zu einer kohlenstoffarmen Wirtschaft in unserer Branche vorangehen. Das "
            "vergangene Jahr hat gezeigt, dass Dekarbonisierung und Wertschöpfung Hand in Hand gehen."),
    "ceo_thanks": "Mein Dank gilt unseren Mitarbeiterinnen und Mitarbeitern, deren Einsatz für Sicherheit und für die "
                  "Gemeinden an unseren Standorten dieses Jahr möglich gemacht hat. Wir werden weiterhin den Dialog "
                  "mit unseren Stakeholdern suchen und offen darüber berichten, wo wir hinter unseren Ansprüchen "
                  "zurückbleiben.",
    "gov_heading": "Nachhaltigkeitsgovernance",
    "gov_board": ("Der Nachhaltigkeitsausschuss des Aufsichtsrats überwacht die klimabezogenen Risiken und Chancen und "
                  "tritt viermal im Jahr zusammen.",
                  "Die Aufsicht über Klimathemen liegt beim Aufsichtsrat, der sie über seinen Ausschuss für "
                  "Sicherheit, Gesundheit und Umwelt wahrnimmt; dieser hat sich im Berichtsjahr zweimal mit unserem "
                  "Transformationsplan befasst."),
    "gov_pay": ("Vorstandsvergütung: In der Zielvereinbarung für die kurzfristige variable Vergütung des Vorstands ist "
                "das Erreichen des jährlichen Meilensteins zur Emissionsminderung mit 15 % gewichtet.",
                "Zwanzig Prozent der langfristigen variablen Vergütung der oberen Führungskräfte hängen von den "
                "Fortschritten bei unserem betrieblichen Emissionsziel für {y6} ab."),
    "gov_price": ("Investitionsentscheidungen über 10 Mio. USD werden mit einem Schattenpreis von {carbon_price} USD "
                  "je Tonne CO2 bewertet, der im Zeitverlauf ansteigt.",
                  "Bei der Bewertung von Investitionsprojekten setzen wir für jede Tonne CO2-Äq., die ein Projekt "
                  "verursachen würde, kalkulatorische Kosten von {carbon_price} USD an."),
    "target_heading": "Unsere Klimaziele",
    "target": ("Wir werden die direkten Emissionen aus unserem eigenen Betrieb und die Emissionen aus zugekaufter "
               "Energie bis {y6} gegenüber {base} um {target_pct} % senken.",
               "Bis {y6} soll unser betrieblicher Fußabdruck (an unseren Standorten verbrannte Brennstoffe zuzüglich "
               "zugekauften Stroms) {target_pct} % unter dem Niveau von {base} liegen."),
    "netzero": "Langfristig streben wir bis {nz} Netto-Null-Emissionen in unserem Betrieb und entlang der gesamten "
               "Wertschöpfungskette an. Eine externe Stelle hat bestätigt, dass unser kurzfristiges Ziel mit einer "
               "Begrenzung der Erderwärmung auf 1,5 Grad vereinbar ist.",
    "target_more": "Außerdem wollen wir bis {y6} {re_target} % unseres Stroms aus erneuerbaren Quellen beziehen und "
                   "die Wasserentnahme in Einzugsgebieten mit Wasserstress halbieren.",
    "ghg_heading": "Treibhausgasemissionen",
    "ghg_intro": "Die Emissionen werden in Tonnen CO2-Äquivalent nach dem Ansatz der operativen Kontrolle berichtet.",
    "ghg_unit": "Emissionen (t CO2-Äq.)",
    "ghg_rows": ("Direkte Emissionen aus eigenen Betrieben", "Zugekaufte Energie, marktbasiert",
                 "Zugekaufte Energie, standortbasiert", "Wertschöpfungskette (vor-/nachgelagert)"),
    "ghg_note": "Die direkten Emissionen entsprechen Scope 1, die Emissionen aus zugekaufter Energie Scope 2 nach dem "
                "GHG Protocol.",
    "intensity_heading": "CO2-Intensität",
    "indicator": "Kennzahl",
    "change": "Veränderung",
    "intensity_row": "kg CO2-Äq. je {unit}",
    "production_row": "Produktion (Mio. Einheiten)",
    "intensity_note": "Die Intensität ergibt sich aus den betrieblichen Emissionen geteilt durch die Produktionsmenge; "
                      "die Bezugsgröße ist unverändert.",
    "commentary_heading": "Erläuterungen zur Entwicklung",
    "commentary": "Gegenüber {py} hat sich der Fußabdruck unserer Standorte je erzeugter Einheit um {change} "
                  "verändert. Hauptgrund war {reason}, {reason2}.",
    "commentary_grid": "Auch die absoluten Emissionen aus zugekauftem Strom gingen zurück, da die Stromnetze, aus "
                       "denen wir beziehen, weiter dekarbonisiert wurden; dies zeigen die standortbasierten Werte.",
    "pathway_heading": "Unser Weg bis 2030",
    "pathway_intro": "Das Erreichen unseres kurzfristigen Ziels stützt sich auf wenige bewährte Maßnahmen, bemessen "
                     "nach ihrem Minderungspotenzial und ihren Kosten je Tonne.",
    "first": "Erstens: {lever}",
    "second": "Zweitens: {lever}",
    "energy_heading": "Energie",
    "energy_col": "Energie",
    "energy_rows": ("Gesamtenergieverbrauch (GJ)", "Strom aus erneuerbaren Quellen (%)"),
    "beyond_heading": "Über die ersten Schritte hinaus",
    "beyond_intro": "Weitere Minderungen erwarten wir von Maßnahmen, die sich noch in der Entwicklung befinden:",
    "beyond_residual": "Die nach diesen Maßnahmen verbleibenden Restemissionen werden wir durch hochwertige "
                       "CO2-Entnahmen ausgleichen.",
    "water_heading": "Wasser und Kreislaufwirtschaft",
    "water_rows": ("Wasserentnahme (Mio. m3)", "Von der Deponierung umgeleitete Abfälle (%)"),
    "water_note": "Unser Wasser entnehmen wir überwiegend aus Oberflächengewässern und leiten es nach der Aufbereitung "
                  "wieder ein.",
    "people_heading": "Unsere Mitarbeitenden",
    "safety": "Arbeitssicherheit: Die Rate meldepflichtiger Unfälle (TRIFR) lag bei {trifr} je eine Million "
              "geleisteter Arbeitsstunden. Jede Mitarbeiterin und jeder Mitarbeiter absolvierte im Durchschnitt "
              "{training} Stunden Weiterbildung.",
    "women": "Zum Jahresende waren {women} % der Positionen in der oberen Führungsebene mit Frauen besetzt; unser Ziel "
             "sind 40 % bis {y6}.",
    "suppliers_heading": "Zusammenarbeit mit Lieferanten",
    "suppliers": "Wir haben unsere größten Lieferanten, auf die {suppliers} % unseres Einkaufsvolumens entfallen, "
                 "aufgefordert, ihren CO2-Fußabdruck über eine gemeinsame Plattform offenzulegen und sich "
                 "Reduktionsziele zu setzen. CO2-arme Kriterien sind inzwischen Bestandteil jeder Ausschreibung über 1 "
                 "Mio. USD.",
    "risk_heading": "Klimarisiken und Resilienz",
    "physical": ("Die Szenarioanalyse hat Überschwemmungen an küstennahen {sites_dat}, Hitzebelastung der "
                 "Beschäftigten und Wasserknappheit an Standorten im Landesinneren als die wesentlichsten akuten und "
                 "chronischen Gefahren ermittelt.",
                 "Die für unsere {sites} bedeutendsten Gefahren sind Flusshochwasser, extreme Hitze und anhaltende "
                 "Dürre; sie könnten die Produktion unterbrechen und die Kosten erhöhen."),
    "transition": "Zu den transitorischen Risiken zählen die CO2-Bepreisung, veränderte Kundenpräferenzen und die "
                  "Kosten neuer Technologien.",
    "assurance_heading": "Vermerk des unabhängigen Prüfers",
    "assurance": "Wir wurden von {name} beauftragt, ausgewählte Nachhaltigkeitsinformationen für das Geschäftsjahr "
                 "{y}, darunter die Emissions- und Energiedaten, einer Prüfung zur Erlangung begrenzter Sicherheit zu "
                 "unterziehen. Auf Grundlage der durchgeführten Prüfungshandlungen sind uns keine Sachverhalte bekannt "
                 "geworden, die uns zu der Auffassung gelangen lassen, dass die ausgewählten Informationen nicht in "
                 "allen wesentlichen Belangen in Übereinstimmung mit den Berichtskriterien aufgestellt wurden. Der "
                 "Prüfung lagen ISAE 3000 und ISAE 3410 zugrunde.",
    "finance_heading": "Finanzkennzahlen im Überblick",
    "finance_unit": "Mrd. USD",
    "finance_rows": ("Umsatzerlöse", "Investitionen"),
    "glossary_heading": "Glossar",
    "glossary": "Scope 1: direkte THG-Emissionen aus Quellen, die sich im Eigentum oder unter der Kontrolle eines "
                "Unternehmens befinden. Scope 2: indirekte Emissionen aus zugekauftem Strom, Dampf, Wärme und Kälte. "
                "Scope 3: alle übrigen indirekten Emissionen in der Wertschöpfungskette. CO2-Intensität: Emissionen je "
                "erzeugter Einheit. Interner CO2-Preis: ein bei Investitionsentscheidungen angesetzter Preis je Tonne. "
                "Begrenzte Sicherheit: ein geringerer Prüfungsgrad als hinreichende Sicherheit. Netto-Null: ein "
                "Zustand, in dem verbleibende Emissionen durch Entnahmen ausgeglichen werden.",
    "gri_heading": "GRI-Inhaltsindex",
    "gri_columns": ("Angabe", "Thema", "Seite"),
}

GRI_TOPICS = ("Direkte THG-Emissionen (Scope 1)", "Energiebedingte THG-Emissionen (Scope 2)",
              "Intensität der THG-Emissionen", "Senkung der THG-Emissionen",
              "Energieverbrauch in der Organisation", "Wasserentnahme", "Von der Entsorgung umgeleitete Abfälle",
              "Diversität in Kontrollorganen", "Arbeitsbedingte Verletzungen", "Vergütungspolitik")

QUESTIONS = (
    ("Geben Sie Ihre weltweiten Brutto-Scope-1-Emissionen im Berichtsjahr in Tonnen CO2e an.", "Zahl mit Einheit"),
    ("Wie hoch waren Ihre Scope-2-Emissionen (marktbasiert) im Berichtsjahr?", "Zahl mit Einheit"),
    ("Welcher Anteil des von Ihnen verbrauchten Stroms stammt aus erneuerbaren Quellen?", "Prozentsatz"),
    ("Gesamte Wasserentnahme im Berichtsjahr.", "Zahl mit Einheit"),
    ("Anteil von Frauen in Positionen des oberen Managements.", "Prozentsatz"),
    ("Erläutern Sie die Veränderung Ihrer CO2-Intensität gegenüber dem Vorjahr und die wesentlichen Gründe dafür.",
     "Text"),
    ("Beschreiben Sie die wichtigsten Hebel, mit denen Sie Ihr Emissionsreduktionsziel erreichen wollen.", "Text"),
    ("Nennen Sie Ihr Reduktionsziel für Scope-1- und Scope-2-Emissionen einschließlich Basisjahr und Zieljahr.",
     "Text"),
    ("Ist die Vergütung der Geschäftsleitung an klimabezogene Leistungskriterien gekoppelt?",
     "Ja/Nein mit Erläuterung"),
    ("Verwendet Ihre Organisation einen internen CO2-Preis?", "Ja/Nein und Höhe des Preises"),
    ("Wird Ihr THG-Inventar von einer unabhängigen dritten Partei verifiziert? Nennen Sie den Prüfungsgrad.",
     "Ja/Nein mit Erläuterung"),
    ("Wie beziehen Sie Ihre Lieferanten beim Thema Klimawandel ein?", "Text"),
    ("Welche physischen Klimarisiken haben Sie für Ihre Geschäftstätigkeit identifiziert?", "Text"),
)
QUESTIONNAIRE_TITLE = "{company}: Fragebogen zur Nachhaltigkeit {year}"
QUESTIONNAIRE_HEADER = ("Nr.", "Frage", "Antwortformat", "Antwort")
