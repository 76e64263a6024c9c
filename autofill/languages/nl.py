"""Dutch: what autofill knows of it (see autofill/languages/__init__.py for each field)."""

from autofill.languages import Language

LANGUAGE = Language(
    code='nl', name='Dutch', order=5,
    stemmer='dutch', stopwords='STOPWORDS_DUTCH',
    markers="""
        het een en van is dat op te voor met zijn niet aan er ook als bij door om wordt worden onze
        naar dan
    """,
    instruction_words="""
        antwoord antwoorden antwoordt beantwoord beantwoorden vraag vragen graag alstublieft geef
        geven vermeld vermelden noem noemen beschrijf beschrijven licht toe toelichten toelichting
        uitleg leg kort korte tekst vrije vorm formaat ja nee gedeeltelijk openbaar gemaakt niet
        lijst selecteer kies kiezen optie getal getallen cijfer cijfers eenheid eenheden aantal
        afronden afgerond decimaal decimalen aannemen analist berekenen berekend gebruik gebruiken
        gebruikt details detail tonen gebaseerd volgende gevraagd informatie hier indien van
        toepassing specificeer specificeren
    """,
    form_words={'ja': 'yes',
                'nee': 'no',
                'gedeeltelijk': 'partially',
                'deels': 'partially',
                'niet bekendgemaakt': 'not disclosed',
                'niet openbaar gemaakt': 'not disclosed',
                'niet van toepassing': 'n/a',
                'onbekend': 'unknown',
                'in uitvoering': 'in progress',
                'gepland': 'planned'},
    or_word='of',
    headers={'number': ('nr', 'nr.'),
             'section': ('sectie', 'onderdeel', 'hoofdstuk', 'onderwerp', 'categorie'),
             'form_of_answer': ('antwoordvorm', 'vorm van antwoord', 'antwoordformaat', 'type antwoord'),
             'explanation': ('toelichting', 'uitleg', 'instructies', 'omschrijving'),
             'question': ('vraag', 'vragen', 'eis', 'criterium'),
             'answer': ('antwoord', 'antwoorden', 'uw antwoord'),
             'comments': ('opmerkingen', 'opmerking')},
    terms={'kasstroomoverzicht': 'cash flow statement',
           'balans': 'balance sheet',
           'winst-en-verliesrekening': 'income statement',
           'resultatenrekening': 'income statement',
           'investeringsuitgaven': 'capital expenditure',
           'materiële vaste activa': 'pp&e',
           'omzet': 'revenue',
           'opbrengsten': 'revenue',
           'verkopen': 'sales',
           'kostprijs van de omzet': 'cogs',
           'bedrijfsresultaat': 'operating income',
           'operationeel resultaat': 'operating income',
           'operationele marge': 'operating margin',
           'afschrijvingen': 'depreciation',
           'vrije kasstroom': 'free cash flow',
           'operationele kasstroom': 'operating cash flow',
           'werkkapitaal': 'working capital',
           'voorraden': 'inventory',
           'voorraadomloopsnelheid': 'inventory turnover',
           'handelsschulden': 'accounts payable',
           'totale activa': 'total assets',
           'balanstotaal': 'total assets',
           'schulden': 'debt',
           'dividend': 'dividends',
           'dividenden': 'dividends',
           'effectief belastingtarief': 'effective tax rate',
           'winst per aandeel': 'eps',
           'nettowinst': 'net income',
           'eigen vermogen': "shareholders' equity",
           'boekwaarde': 'book value',
           'broeikasgas': 'ghg',
           'broeikasgassen': 'ghg',
           'broeikasgasemissies': 'ghg',
           'emissies': 'emissions',
           'netto nul': 'net zero',
           'klimaatneutraliteit': 'net zero',
           'co2-compensatie': 'carbon offsets',
           'koolstofcompensatie': 'carbon offsets',
           'interne koolstofprijs': 'internal carbon price',
           'bestuurdersbeloning': 'executive remuneration',
           'scenarioanalyse': 'scenario analysis',
           "fysieke risico's": 'physical risks'},
)
