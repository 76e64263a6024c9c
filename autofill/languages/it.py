"""Italian: what autofill knows of it (see autofill/languages/__init__.py for each field)."""

from autofill.languages import Language

LANGUAGE = Language(
    code='it', name='Italian', order=4,
    stemmer='italian', stopwords='STOPWORDS_ITALIAN',
    markers="""
        il gli di della e che è per con non sono dei delle nel alla si anche come nostro nostra
        degli questo ed
    """,
    instruction_words="""
        risposta risposte rispondere rispondete rispondi domanda domande per favore indicare
        indicate indichi fornire fornite dare descrivere descrivete spiegare spiegate spiegazione
        spiegazioni breve brevi brevemente testo libero forma formato sì no parzialmente divulgato
        divulgata elenco elencare elencate selezionare scegliere opzione cifra cifre unità numero
        numeri arrotondare arrotondato decimale decimali supporre analista calcolare calcolato
        utilizzare utilizzando usare dettagli dettaglio mostrare basato basata seguente richiesto
        informazione informazioni qui caso specificare precisare
    """,
    form_words={'sì': 'yes',
                'si': 'yes',
                'no': 'no',
                'parzialmente': 'partially',
                'in parte': 'partially',
                'non divulgato': 'not disclosed',
                'non dichiarato': 'not disclosed',
                'non applicabile': 'n/a',
                'sconosciuto': 'unknown',
                'in corso': 'in progress',
                'previsto': 'planned'},
    or_word='o',
    headers={'number': ('n.', 'numero'),
             'section': ('sezione', 'categoria', 'tema', 'ambito', 'capitolo'),
             'form_of_answer': ('forma di risposta', 'formato di risposta', 'tipo di risposta'),
             'explanation': ('spiegazione', 'spiegazioni', 'istruzioni', 'indicazioni', 'descrizione'),
             'question': ('domanda', 'domande', 'indicatore', 'criterio'),
             'answer': ('risposta', 'risposte', 'la vostra risposta'),
             'comments': ('commenti', 'commento', 'osservazioni')},
    terms={'rendiconto finanziario': 'cash flow statement',
           'stato patrimoniale': 'balance sheet',
           'situazione patrimoniale-finanziaria': 'statement of financial position',
           'conto economico': 'income statement',
           'spese in conto capitale': 'capital expenditure',
           'immobili, impianti e macchinari': 'pp&e',
           'immobilizzazioni materiali': 'pp&e',
           'ricavi': 'revenue',
           'fatturato': 'revenue',
           'vendite': 'sales',
           'costo del venduto': 'cogs',
           'risultato operativo': 'operating income',
           'utile operativo': 'operating income',
           'margine operativo': 'operating margin',
           'ammortamenti': 'depreciation',
           'flusso di cassa libero': 'free cash flow',
           'flusso di cassa operativo': 'operating cash flow',
           'capitale circolante': 'working capital',
           'rimanenze': 'inventory',
           'scorte': 'inventory',
           'rotazione delle scorte': 'inventory turnover',
           'debiti verso fornitori': 'accounts payable',
           'totale attivo': 'total assets',
           'indebitamento': 'debt',
           'dividendi': 'dividends',
           'aliquota fiscale effettiva': 'effective tax rate',
           'utile per azione': 'eps',
           'utile netto': 'net income',
           'patrimonio netto': "shareholders' equity",
           'valore contabile': 'book value',
           'gas serra': 'ghg',
           'gas a effetto serra': 'ghg',
           'emissioni': 'emissions',
           'zero netto': 'net zero',
           'zero emissioni nette': 'net zero',
           'neutralità carbonica': 'net zero',
           'crediti di carbonio': 'carbon offsets',
           'compensazione delle emissioni': 'carbon offsets',
           'prezzo interno del carbonio': 'internal carbon price',
           'remunerazione dei dirigenti': 'executive remuneration',
           'analisi di scenario': 'scenario analysis',
           'analisi degli scenari': 'scenario analysis',
           'rischi fisici': 'physical risks'},
)
