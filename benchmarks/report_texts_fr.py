"""The French page texts and questions of benchmarks/sustainability_reports.py (`--language fr`):
the report_texts_en.py pages written as a French company's rapport de durabilité words them, by hand,
with French number formats (1 234 567 ; 12,3 % ; t CO2e). Same keys, same number of choices in the same
places as the English table (see its docstring); the questions are a customer's questionnaire wording,
not the report's. The PDFs' base font is Latin-1: no ligature oe, typographic apostrophe or narrow space."""

from __future__ import annotations

TITLE = "Rapport de durabilité"

# Per company: the sector (with its article), the unit of output, the site in the singular and plural,
# "our two largest sites" and "of one older site" (agreeing with the site's gender).
TERM_FIELDS = ("sector", "unit", "site", "sites", "two_largest", "older_site")
TERMS = {
    "Calder Cement": ("un cimentier", "tonne de produit cimentaire", "cimenterie", "cimenteries",
                      "nos deux plus grandes cimenteries", "d'une cimenterie plus ancienne"),
    "Harbourline Logistics": ("un groupe de logistique", "millier de tonnes-kilomètres", "entrepôt", "entrepôts",
                              "nos deux plus grands entrepôts", "d'un entrepôt plus ancien"),
    "Verdant Foods": ("un groupe agroalimentaire", "tonne de produit fini", "usine", "usines",
                      "nos deux plus grandes usines", "d'une usine plus ancienne"),
    "Solvay Ridge Chemicals": ("un groupe de chimie de spécialité", "tonne produite", "site de production",
                               "sites de production", "nos deux plus grands sites de production",
                               "d'un site de production plus ancien"),
    "Northgate Retail": ("un groupe de distribution", "mètre carré de surface de vente", "magasin", "magasins",
                         "nos deux plus grands magasins", "d'un magasin plus ancien"),
    "Aurora Paper": ("un groupe papetier", "tonne séchée à l'air", "usine", "usines", "nos deux plus grandes usines",
                     "d'une usine plus ancienne"),
}
THOUSANDS, DECIMAL, PERCENT = " ", ",", " %"  # 1 234 567 ; 12,3 %

LEVERS = {
    "electrification": "L'électrification de la chaleur industrielle et des engins mobiles de nos {sites}, en "
                       "commençant par les deux plus importants, remplace la combustion de gazole et de gaz naturel.",
    "renewables": "Des contrats d'achat d'électricité (PPA) éolienne et solaire porteront la part renouvelable de "
                  "notre électricité de {re_share} % à {re_target} %.",
    "efficiency": "Un programme d'efficacité énergétique, fondé sur la récupération de chaleur, les variateurs de "
                  "vitesse et la réparation des fuites d'air comprimé, sur l'ensemble de nos {n_sites} {sites}.",
    "fuels": "Le remplacement du charbon et du fioul lourd par de la biomasse, du biogaz et des huiles végétales "
             "hydrotraitées (HVO), lorsque l'approvisionnement est certifié durable.",
    "ccus": "Un pilote de captage du carbone sur notre plus grand site, la décision sur un captage à pleine échelle "
            "étant attendue d'ici 2027.",
}
LEVER_NAMES = {"electrification": ("l'électrification", "Électrification"),
               "renewables": ("l'électricité renouvelable", "Électricité renouvelable"),
               "efficiency": ("l'efficacité énergétique", "Efficacité énergétique"),
               "fuels": ("la substitution des combustibles", "Substitution des combustibles"),
               "ccus": ("le captage, stockage et valorisation du CO2", "Captage, stockage et valorisation du CO2")}

T = {
    "reason": ("le passage du charbon au gaz naturel dans {two_largest}",
               "la mise en service d'un contrat d'achat d'électricité solaire de 60 MW",
               "la hausse de la production de nos {sites} les plus efficaces et la fermeture {older_site}"),
    "reason2": ("en partie compensé par un hiver plus froid, qui a accru la consommation de combustible pour le "
                "chauffage",
                "en partie compensé par une moindre utilisation des capacités lors d'un arrêt de maintenance programmé",
                "à volumes de production globalement stables"),
    "cover_intro": "{name} est {sector} qui compte {employees} collaborateurs et {n_sites} {sites}. Le présent rapport "
                   "couvre l'exercice {y} et rend compte de nos progrès en matière de climat, de nature et de capital "
                   "humain.",
    "ceo_heading": "Le mot du Directeur général",
    "ceo": ("Le changement climatique est le défi majeur de notre secteur. Cette année, nous avons réellement "
            "progressé dans la tenue de nos engagements, et nous restons déterminés à atteindre la neutralité carbone.",
            "Notre ambition est d'être le leader de notre secteur dans la transition vers une économie bas carbone. "
            "L'année écoulée a montré que décarbonation et création de valeur vont de pair."),
    "ceo_thanks": "Je tiens à remercier nos équipes, dont l'engagement en faveur de la sécurité et des territoires où "
                  "nous sommes implantés a rendu cette année possible. Nous continuerons d'être à l'écoute de nos "
                  "parties prenantes et de rendre compte en toute transparence des points sur lesquels nous devons "
                  "progresser.",
    "gov_heading": "Gouvernance de la durabilité",
    "gov_board": ("Le Comité RSE du Conseil d'administration supervise les risques et opportunités liés au climat et "
                  "se réunit quatre fois par an.",
                  "Les questions climatiques sont suivies par le Conseil d'administration au travers de son Comité "
                  "Sécurité, Santé et Environnement, qui a examiné notre plan de transition à deux reprises au cours "
                  "de l'exercice."),
    "gov_pay": ("Rémunération des dirigeants : la grille d'objectifs de la part variable annuelle du comité exécutif "
                "attribue une pondération de 15 % à l'atteinte du jalon annuel de réduction des émissions.",
                "Vingt pour cent du plan d'intéressement à long terme des cadres dirigeants sont acquis en fonction "
                "des progrès accomplis vers notre objectif d'émissions opérationnelles à horizon {y6}."),
    "gov_price": ("Les décisions d'investissement supérieures à 10 millions USD sont évaluées au regard d'un prix "
                  "fictif du carbone de {carbon_price} USD par tonne, appelé à augmenter dans le temps.",
                  "Lors de l'évaluation des projets d'investissement, nous appliquons un coût théorique de "
                  "{carbon_price} USD à chaque tonne de CO2e que le projet émettrait."),
    "target_heading": "Nos engagements climatiques",
    "target": ("Nous réduirons de {target_pct} % d'ici {y6}, par rapport à {base}, les émissions directes de nos "
               "propres activités et celles liées à l'énergie que nous achetons.",
               "D'ici {y6}, notre empreinte opérationnelle (combustibles brûlés sur nos sites et électricité achetée) "
               "sera inférieure de {target_pct} % à son niveau de {base}."),
    "netzero": "À long terme, nous visons zéro émission nette sur l'ensemble de nos activités et de notre chaîne de "
               "valeur d'ici {nz}. Un organisme externe a validé la compatibilité de notre objectif de court terme "
               "avec une limitation du réchauffement à 1,5 degré.",
    "target_more": "Nous visons également à couvrir {re_target} % de nos besoins en électricité par des sources "
                   "renouvelables d'ici {y6} et à réduire de moitié nos prélèvements d'eau dans les bassins en "
                   "situation de stress hydrique.",
    "ghg_heading": "Émissions de gaz à effet de serre",
    "ghg_intro": "Les émissions sont exprimées en tonnes d'équivalent CO2 selon l'approche du contrôle opérationnel.",
    "ghg_unit": "Émissions (t CO2e)",
    "ghg_rows": ("Émissions directes de nos activités", "Énergie achetée, méthode marché",
                 "Énergie achetée, méthode localisation", "Chaîne de valeur (amont et aval)"),
    "ghg_note": "Les émissions directes correspondent au Scope 1 et l'énergie achetée au Scope 2 du GHG Protocol.",
    "intensity_heading": "Intensité carbone",
    "indicator": "Indicateur",
    "change": "Variation",
    "intensity_row": "kg CO2e par {unit}",
    "production_row": "Production (millions d'unités)",
    "intensity_note": "L'intensité correspond aux émissions opérationnelles rapportées à la production ; la base de "
                      "production est inchangée.",
    "commentary_heading": "Analyse de la performance",
    "commentary": "Par rapport à {py}, l'empreinte de nos sites par unité produite a évolué de {change}. Cette "
                  "évolution s'explique principalement par {reason}, {reason2}.",
    "commentary_grid": "Les émissions absolues liées à l'électricité achetée ont également diminué grâce à la "
                       "décarbonation des réseaux qui nous alimentent, comme le montrent les chiffres selon la méthode "
                       "localisation.",
    "pathway_heading": "Notre trajectoire à horizon 2030",
    "pathway_intro": "L'atteinte de notre objectif de court terme repose sur un petit nombre de mesures éprouvées, "
                     "dimensionnées selon leur potentiel de réduction et leur coût à la tonne.",
    "first": "Premier levier : {lever}",
    "second": "Deuxième levier : {lever}",
    "energy_heading": "Énergie",
    "energy_col": "Énergie",
    "energy_rows": ("Consommation totale d'énergie (GJ)", "Électricité d'origine renouvelable (%)"),
    "beyond_heading": "Au-delà des premières étapes",
    "beyond_intro": "D'autres réductions viendront de mesures encore en cours de maturation :",
    "beyond_residual": "Les émissions résiduelles subsistant après ces mesures seront traitées par des absorptions de "
                       "haute qualité.",
    "water_heading": "Eau et économie circulaire",
    "water_rows": ("Prélèvements d'eau (millions de m3)", "Déchets détournés de l'enfouissement (%)"),
    "water_note": "L'essentiel de notre eau est prélevé dans des eaux de surface et restitué au milieu naturel après "
                  "traitement.",
    "people_heading": "Nos collaborateurs",
    "safety": "Sécurité : le taux de fréquence des accidents enregistrables (TRIFR) s'est établi à {trifr} par million "
              "d'heures travaillées. Chaque salarié a suivi en moyenne {training} heures de formation.",
    "women": "À la clôture de l'exercice, les femmes occupaient {women} % des postes de direction, pour un objectif de "
             "40 % d'ici {y6}.",
    "suppliers_heading": "Agir avec nos fournisseurs",
    "suppliers": "Nous avons demandé à nos principaux fournisseurs, qui représentent {suppliers} % de nos dépenses "
                 "d'achats, de publier leur empreinte carbone via une plateforme commune et de se fixer des objectifs "
                 "de réduction. Des critères bas carbone font désormais partie de tout appel d'offres supérieur à 1 "
                 "million USD.",
    "risk_heading": "Risques climatiques et résilience",
    "physical": ("L'analyse de scénarios a identifié les inondations de nos {sites} en bord de mer, le stress "
                 "thermique subi par les salariés et la pénurie d'eau sur les sites situés à l'intérieur des terres "
                 "comme les aléas aigus et chroniques les plus significatifs.",
                 "Les aléas les plus importants pour nos {sites} sont les crues, les épisodes de chaleur extrême et "
                 "les sécheresses prolongées, qui pourraient interrompre la production et renchérir nos coûts."),
    "transition": "Les risques de transition comprennent la tarification du carbone, l'évolution des attentes des "
                  "clients et le coût des nouvelles technologies.",
    "assurance_heading": "Rapport de l'organisme tiers indépendant",
    "assurance": "À la demande de {name}, nous avons mené des travaux visant à exprimer une conclusion d'assurance "
                 "modérée sur une sélection d'informations de durabilité de l'exercice {y}, notamment les données "
                 "relatives aux émissions et à l'énergie. Sur la base des travaux réalisés, nous n'avons pas relevé "
                 "d'élément de nature à remettre en cause le fait que les informations sélectionnées ont été établies, "
                 "dans tous leurs aspects significatifs, conformément au référentiel de reporting. Nos travaux ont été "
                 "conduits selon les normes ISAE 3000 et ISAE 3410.",
    "finance_heading": "Chiffres clés financiers",
    "finance_unit": "En milliards USD",
    "finance_rows": ("Chiffre d'affaires", "Investissements"),
    "glossary_heading": "Glossaire",
    "glossary": "Scope 1 : émissions directes de GES provenant de sources détenues ou contrôlées par l'entreprise. "
                "Scope 2 : émissions indirectes liées à l'électricité, à la vapeur, à la chaleur et au froid achetés. "
                "Scope 3 : toutes les autres émissions indirectes de la chaîne de valeur. Intensité carbone : "
                "émissions par unité produite. Prix interne du carbone : coût à la tonne appliqué aux décisions "
                "d'investissement. Assurance modérée : niveau d'assurance inférieur à l'assurance raisonnable. Zéro "
                "émission nette : situation dans laquelle les émissions restantes sont compensées par des absorptions.",
    "gri_heading": "Index du contenu GRI",
    "gri_columns": ("Élément d'information", "Thème", "Page"),
}

GRI_TOPICS = ("Émissions directes de GES (Scope 1)", "GES indirects liés à l'énergie (Scope 2)",
              "Intensité des émissions de GES",
              "Réduction des émissions de GES", "Consommation d'énergie de l'organisation",
              "Prélèvement d'eau", "Déchets non destinés à l'élimination", "Diversité des organes de gouvernance",
              "Accidents du travail", "Politiques de rémunération")

QUESTIONS = (
    ("Indiquez vos émissions brutes mondiales de Scope 1 pour l'année de reporting, en tonnes métriques de CO2e.",
     "Nombre avec unité"),
    ("À combien s'élevaient vos émissions de Scope 2 (méthode fondée sur le marché) pour l'année de reporting ?",
     "Nombre avec unité"),
    ("Quelle part de l'électricité que vous consommez provient de sources renouvelables ?", "Pourcentage"),
    ("Prélèvements totaux d'eau au cours de l'année de reporting.", "Nombre avec unité"),
    ("Pourcentage de femmes aux postes de direction.", "Pourcentage"),
    ("Expliquez l'évolution de votre intensité carbone par rapport à l'année précédente et ses principales causes.",
     "Texte"),
    ("Décrivez les principaux leviers que vous mobiliserez pour atteindre votre objectif de réduction des émissions.",
     "Texte"),
    ("Précisez votre objectif de réduction des émissions de Scope 1 et 2, y compris l'année de référence et l'année "
     "cible.", "Texte"),
    ("La rémunération des dirigeants est-elle liée à la performance climatique ?", "Oui/Non et explication"),
    ("Votre organisation utilise-t-elle un prix interne du carbone ?", "Oui/Non et niveau du prix"),
    ("Votre inventaire de GES est-il vérifié par un tiers ? Précisez le niveau d'assurance.", "Oui/Non et explication"),
    ("Comment impliquez-vous vos fournisseurs dans la lutte contre le changement climatique ?", "Texte"),
    ("Quels risques climatiques physiques avez-vous identifiés pour vos activités ?", "Texte"),
)
QUESTIONNAIRE_TITLE = "{company} : questionnaire développement durable {year}"
QUESTIONNAIRE_HEADER = ("N°", "Question", "Forme de réponse", "Réponse")
