"""French: what autofill knows of it (see autofill/languages/__init__.py for each field)."""

from autofill.languages import Language
from autofill.languages.glossaries.fr import GLOSSARY

LANGUAGE = Language(
    code='fr', name='French', order=2,
    stemmer='french', stopwords='STOPWORDS_FRENCH',
    markers="""
        le la les des et du un une est que pour dans par sur au aux qui plus ne pas avec ce son sont
        nous notre cette leur été nos ses
    """,
    instruction_words="""
        réponse réponses répondre répondez question questions veuillez merci indiquer indiquez
        fournir fournissez donner décrire décrivez expliquer expliquez explication explications bref
        brève brièvement courte court texte libre forme format oui non partiellement publié publiée
        liste sélectionner choisir option chiffre chiffres unité unités nombre nombres arrondir
        arrondi décimale décimales supposer analyste calculer calculé utiliser utilisant détails
        détail montrer fondé fondée base suivant suivante demandé information informations ici cas
        échéant précisez préciser
    """,
    form_words={'oui': 'yes',
                'non': 'no',
                'partiellement': 'partially',
                'en partie': 'partially',
                'non communiqué': 'not disclosed',
                'non publié': 'not disclosed',
                'non divulgué': 'not disclosed',
                'non applicable': 'n/a',
                'sans objet': 'n/a',
                'inconnu': 'unknown',
                'en cours': 'in progress',
                'prévu': 'planned'},
    or_word='ou',
    headers={'number': ('n°', 'numéro'),
             'section': ('rubrique', 'catégorie', 'thème', 'domaine'),
             'form_of_answer': ('forme de réponse', 'format de réponse', 'type de réponse'),
             'explanation': ('explication', 'explications', 'indications', 'précisions'),
             'question': ('exigence', 'indicateur', 'critère'),
             'answer': ('réponse', 'réponses', 'votre réponse'),
             'comments': ('commentaires', 'commentaire', 'remarques')},
    terms={'tableau des flux de trésorerie': 'cash flow statement',
           'tableau de flux de trésorerie': 'cash flow statement',
           'état des flux de trésorerie': 'statement of cash flows',
           'bilan': 'balance sheet',
           'état de la situation financière': 'statement of financial position',
           'compte de résultat': 'income statement',
           'état du résultat': 'statement of income',
           "dépenses d'investissement": 'capital expenditure',
           'immobilisations corporelles': 'pp&e',
           "chiffre d'affaires": 'revenue',
           'produits des activités ordinaires': 'revenue',
           'ventes': 'sales',
           'coût des ventes': 'cogs',
           'coût des marchandises vendues': 'cost of goods sold',
           'résultat opérationnel': 'operating income',
           "résultat d'exploitation": 'operating income',
           'marge opérationnelle': 'operating margin',
           "marge d'exploitation": 'operating margin',
           'dotations aux amortissements': 'depreciation',
           'amortissements': 'depreciation',
           'flux de trésorerie disponible': 'free cash flow',
           'trésorerie issue des opérations': 'cash from operations',
           'flux de trésorerie opérationnels': 'operating cash flow',
           'flux de trésorerie liés aux activités opérationnelles': 'cash flow from operating activities',
           'fonds de roulement': 'working capital',
           'stocks': 'inventory',
           'rotation des stocks': 'inventory turnover',
           'dettes fournisseurs': 'accounts payable',
           "total de l'actif": 'total assets',
           'total actif': 'total assets',
           'endettement': 'debt',
           'dettes financières': 'debt',
           'dividendes': 'dividends',
           'dividende': 'dividends',
           "taux effectif d'imposition": 'effective tax rate',
           "taux d'imposition effectif": 'effective tax rate',
           'bénéfice par action': 'eps',
           'résultat par action': 'eps',
           'bpa': 'eps',
           'résultat net': 'net income',
           'bénéfice net': 'net income',
           'capitaux propres': "shareholders' equity",
           'valeur comptable': 'book value',
           'ges': 'ghg',
           'gaz à effet de serre': 'ghg',
           'émissions': 'emissions',
           'zéro émission nette': 'net zero',
           'zéro net': 'net zero',
           'neutralité carbone': 'net zero',
           'compensation carbone': 'carbon offsets',
           'crédits carbone': 'carbon offsets',
           'prix interne du carbone': 'internal carbon price',
           'rémunération des dirigeants': 'executive remuneration',
           'analyse de scénarios': 'scenario analysis',
           'risques physiques': 'physical risks'},
    glossary=GLOSSARY,
    cognate_suffixes=(("ification", ("ification",)), ("issement", ("ment",)), ("isation", ("isation", "ization")), ("ité", ("ity",)),
                      ("ique", ("ic", "ical", "ics")), ("isme", ("ism",)), ("iste", ("ist",)), ("aire", ("ary", "ar")),
                      ("oire", ("ory",)), ("eur", ("or", "er")), ("eux", ("ous",)), ("euse", ("ous",)), ("if", ("ive",)),
                      ("ive", ("ive",)), ("elle", ("al",)), ("el", ("al",)), ("logie", ("logy",)), ("gie", ("gy",)),
                      ("ie", ("y",)), ("ée", ("ed", "ee")), ("é", ("ed", "e", "")), ("iser", ("ise", "ize")),
                      ("ifier", ("ify",)), ("er", ("e", "")), ("e", ("", "e")), ("", ("",))),
    negated=r"\([^()]*\b(?:non|pas|hors|sans)\b[^()]*\)"
            r"|,\s*(?:mais |et )?(?:non|pas)\b[^.;?]*|\b(?:plutôt que|au lieu de)\b[^.;?]*",
    inflections=(("after", (("aux", "al"), ("aux", "ail"), ("s", ""), ("x", ""))),  # plurals
                 ("each", (("ive", "if"), ("euse", "eux"), ("elle", "el"), ("enne", "en"), ("ère", "er"),
                           ("ète", "et"), ("ée", "é"), ("e", ""))),  # feminines
                 ("after", (("é", "er"), ("i", "ir"), ("u", "re"), ("ent", "er"), ("e", "er"), ("ons", "er"),
                            ("ez", "er"), ("ait", "er"), ("aient", "er"), ("issent", "ir"), ("it", "ir")))),  # verbs
)
