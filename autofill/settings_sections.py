"""The settings of each stage: one dataclass per section of `autofill.toml` (`[ingest]`, `[llm]`,
`[retrieval]`, ...) with its defaults and what each value means, and `Secret`, a text that never shows
itself. `settings.py` puts them together into `Settings` and reads them from files, the environment and the
command line; import them from there or from here."""

from __future__ import annotations

from dataclasses import dataclass, field


class Secret(str):
    """A string that never shows itself in repr(), logs or dumps of the settings."""

    def __repr__(self) -> str:
        return "Secret('***')" if self else "Secret('')"


@dataclass
class IngestSettings:
    chunk_chars: int = 1000
    # Characters of the previous chunk repeated at the start of the next, so a fact that straddles
    # a boundary is still found whole in one chunk.
    chunk_overlap: int = 150
    min_chunk_chars: int = 200
    extract_tables: bool = True
    # Where to run PyMuPDF's table finder (~0.3 s a page): "auto" = only pages whose words look
    # tabular (numbers in columns), "all" = every page (slower, finds text-only tables too).
    table_pages: str = "auto"
    # Pages with less text than this are counted as "no extractable text" (image-only pages).
    min_page_chars: int = 20
    # A document is stored with a warning when more than this share of its pages have no text and
    # at least damaged_min_empty_pages of them: real reports have 0-11 % such pages (covers, photos;
    # 24 annual and climate reports measured), the first third of a truncated report ~65 %.
    damaged_empty_share: float = 0.3
    damaged_min_empty_pages: int = 3
    # OCR (Tesseract, ingest/ocr.py) of pages without a text layer and of large images on pages with
    # text (charts, infographics, scanned statements). false: only the text layer is read.
    ocr: bool = True
    ocr_dpi: int = 150  # rendering resolution for OCR (higher: slower, better on small print)
    ocr_language: str = "eng"  # Tesseract language(s), "eng+fra" for several
    # A page with fewer text-layer characters than this is OCR'd whole (a scan with a printed footer,
    # a cover); on other pages only images covering at least `ocr_image_share` of the page are.
    ocr_page_chars: int = 200
    ocr_image_share: float = 0.2
    # Contextual retrieval (`ingest --contextualize`, ingest/contextualize.py): the chat model writes one
    # line per chunk situating it in its document; embedded and BM25-indexed with the chunk, never shown.
    # Costs one cached model call per chunk (estimated before it runs); part of the chunking fingerprint.
    contextualize: bool = False


@dataclass
class EmbeddingSettings:
    # "local" (bge-small-en-v1.5, or all-MiniLM-L6-v2, both bundled ONNX models), "openai" or "cohere". Empty (the
    # default): the embedder an existing store was built with, "local" for a new one. Set explicitly, an
    # ingest into a store built with another embedder is refused rather than mixing vector spaces.
    provider: str = ""
    model: str = ""  # empty: the provider's default
    # Texts per model call (local) or per API request; 0: the embedder's own default (local ONNX 1, torch
    # 32, OpenAI and Cohere 64). On CPU one text at a time is the fastest and lightest for the ONNX model:
    # 16.0 chunks/s and 274 MB peak against 6.7 chunks/s and 1,047 MB at 32 (256 financebench-dev chunks).
    batch_size: int = 0
    device: str = "cpu"  # torch runtime only
    # How the local model runs: "onnx" (default: onnxruntime, no torch, loads in under a second) or
    # "torch" (sentence-transformers; needs `pip install 'autofill[torch]'`), which runs all-MiniLM-L6-v2
    # only (a new store on it gets that model): the same store name as its ONNX run, vectors within 0.999
    # cosine (benchmarks/embedder_runtimes.py).
    runtime: str = "onnx"
    # Keep the vectors of the texts a run searches with (questions, HyDE passages) in the workspace
    # (vectordb/.query-cache/), so a re-run whose model replies are cached never loads the model.
    query_cache: bool = True


@dataclass
class StoreSettings:
    # Empty: embedded PersistentClient under <workspace>/vectordb. Set: HttpClient against a
    # `chroma run` server at this URL.
    chroma_url: str = ""
    lock_timeout_s: float = 600.0


@dataclass
class LLMSettings:
    # "auto": OpenAI when OPENAI_API_KEY or OPENAI_BASE_URL is set, else Cohere when COHERE_API_KEY
    # is set, else none (evidence-only drafts). Or force "openai", "cohere", "none" (the provider
    # table: autofill/choices.py PROVIDERS).
    provider: str = "auto"
    model: str = ""  # empty: provider default (gpt-4o-mini / command-r-plus)
    base_url: str = ""
    api_key: Secret = field(default_factory=Secret)
    cohere_api_key: Secret = field(default_factory=Secret)
    cohere_base_url: str = ""
    temperature: float = 0.0
    max_tokens: int = 1200
    timeout_s: float = 120.0
    max_retries: int = 4
    # First backoff delay; doubles per attempt with jitter, and a server's Retry-After wins.
    retry_base_delay_s: float = 1.0
    # Used when base_url is an Azure OpenAI endpoint (*.openai.azure.com); the model is the deployment.
    azure_api_version: str = "2024-10-21"
    concurrency: int = 4
    cache: bool = True


@dataclass
class RetrievalSettings:
    # "auto" resolves to "hyde" with an LLM and "hybrid" without one (autofill/plan.py).
    # Choices: the table autofill/choices.py RETRIEVAL_MODES (dense, hybrid, hyde, hyde+hybrid).
    mode: str = "auto"
    # "auto" resolves to "llm" with an LLM and "none" without one. Choices: the table
    # autofill/choices.py RERANKERS (llm, cohere, cross-encoder, none).
    reranker: str = "auto"
    cohere_rerank_model: str = "rerank-v3.5"
    candidates: int = 30
    final_k: int = 6
    # Reciprocal rank fusion: score = sum of weight / (rrf_k + rank). A smaller k lets the top ranks of
    # either list count more (20 beat 60 on both development sets; benchmarks/retrieval_dev.py).
    rrf_k: int = 20
    # Weight of the BM25 list against the dense list (1.0) in hybrid fusion. 2.0 raised BHP MRR a little
    # but lost hit and recall on financebench-dev (benchmarks/retrieval_configs/5-keyword-weight-2.toml).
    keyword_weight: float = 1.0
    # What every search looks for: "row" (question, form of answer, explanation), "question" alone, or
    # "both": each search runs for the row and for the question alone, and all lists are fused. "both"
    # since issue 27: the question is what an embedding model and BM25 match best against passages, and
    # the row adds the questionnaire's own terms; it beat "row" on the four development sets (docs/BENCHMARKS.md,
    # "How good and how fast").
    query_parts: str = "both"
    # Listwise rerank sees up to `rerank_window` candidates in one call. 30 passages (~8k tokens) fit
    # any current chat model, so the default ranks all candidates at once (3 calls per row); larger
    # candidate sets or small local models use RankGPT-style sliding windows from the bottom up, each
    # moved by half a window (answer/rerank.py).
    rerank_window: int = 30
    # Add the report-side wording of financial and GHG terms to the BM25 query ("capital expenditure"
    # -> "purchases of property, plant and equipment"; search/query.py SYNONYMS). The BM25 query always
    # leaves out questionnaire instructions ("round to two decimal places"), the candidates always hold
    # one passage per page (its best), and without a reranker the final_k too (one per page lifted BHP
    # page recall@6 from 0.60 to 0.74 at equal MRR); retired choices: settings_files.RETIRED.
    synonyms: bool = True
    # Multi-query retrieval (`run --multi-query`, search/multiquery.py): with a model, the question is
    # rewritten into 2-3 search queries, each searched and fused by RRF with the question's own lists.
    multi_query: bool = False
    # The report's own map (search/index_pages.py): the pages a report's content index (GRI, ESRS, TCFD)
    # names for a row's framework datapoints join the row's candidates before rerank.
    content_index: bool = True
    # Pages that answer nothing (search/boilerplate.py: covers, contents, disclaimers, glossaries, content
    # indexes, pages repeated across the company's reports) leave a row's candidates while any other passage
    # remains (ranked last when none does), unless the row asks about them (basis of preparation, assurance,
    # forward-looking statements, definitions, the content index). False: ranked as the search found them.
    boilerplate_last: bool = True
    # Rows in a language the store's embedder was not trained for (a German questionnaire against a store
    # of English reports built with bge-small-en-v1.5), or against documents in such a language, are
    # searched with the store's multilingual index (store/multilingual.py: multilingual-e5-small, built
    # on first use); English against English is searched as before.
    multilingual_index: bool = True
    # Rows searched with the multilingual index against English documents are searched in English words
    # too: their words translated by a bilingual dictionary (translation/translator.py; FreeDict's, as the
    # Debian packages dict-freedict-deu-eng and the like install them in `dictionaries`). No dictionary
    # for the row's language: searched as before, and the run says which package to install.
    translate_queries: bool = True
    dictionaries: str = "/usr/share/dictd"
    # Apertium's data folder (autofill/translation/apertium.py: Debian's apertium and its pairs, scripts/
    # install_dictionaries.sh): where it has a route into English, a row is machine-translated whole
    # instead; "" never uses it.
    apertium: str = "/usr/share/apertium"
    # Such rows are searched relative to their questionnaire too (search/centring.py): each search text and
    # the index's passages minus their means, that list fused with the plain one. A questionnaire of
    # fewer than five such rows (`ask`'s one question) is searched plainly.
    centre_queries: bool = True
    # The second stage (search/second_stage.py): the candidates reordered offline before the LLM reranker's
    # window or the evidence-only draft's top k, passages holding a table left in their places. Choices: the
    # table autofill/choices.py SECOND_STAGES. Off by default since issue 44: its cost did not pay for its
    # gain. "colbert-question+cross-encoder" (the default of issue 35) lifts pooled MRR on the development
    # sets (0.845 -> 0.864 on BHP, BHP expert and sector, 92 questions; hit@6 and recall@6 level) but on
    # held-out reports it gains on one set and loses on another, and an offline run of BHP's 15 rows took
    # 2.9 times the time and 2.8 times the peak memory of the first stage alone (5.25 s and 708 MB against
    # 1.84 s and 250 MB; a 5,000-row run went over its 500 MB target). With a model the LLM reranker reads
    # all 30 candidates in one window, so the second stage only changes the order it reads them in (no gain
    # measured there). Its models load once per process when chosen (docs/BENCHMARKS.md, "How good and how fast").
    second_stage: str = "none"
    # The first stage's candidates the second stage reorders (the rest keep their places): its cost is per
    # candidate (ColBERT and the cross-encoder read each), and 10 of 30 did as well as all 30 (pooled MRR
    # 0.787 against 0.785, both passing the rule) at a third of the cost. 0: all of them.
    second_stage_depth: int = 10


@dataclass
class WorkbookSettings:
    sheet: str = ""
    header_row: int = 0
    question_col: str = ""
    answer_col: str = ""
    # Previous versions of an output kept in <output folder>/history/ before a run replaces it (0: none).
    history_versions: int = 10


@dataclass
class CostSettings:
    # Your prices, USD per million tokens: model -> [input, output]. They apply at any endpoint. The
    # providers' list prices (choices.PROVIDERS) apply only at their own endpoints; any other model or
    # endpoint (a loopback or self-hosted server, a proxy) has cost "unknown" until priced here.
    prices: dict[str, list[float]] = field(default_factory=dict)


@dataclass
class PortfolioSettings:
    # Companies of a `batch` worked on at once (ingest, then rows). Their rows share the one
    # llm.concurrency limit, so this only keeps the model busy while one company writes its workbook.
    companies_at_once: int = 4
    # Characters per token before any usage was reported (then the calibration in
    # vectordb/.usage-calibration.json takes over).
    chars_per_token: float = 4.0
    # Where `batch` does the work: "local" (threads in this process) or "ray" (Ray tasks: documents
    # parsed and embedded across a cluster; portfolio/ray_engine.py). ray_address: a running cluster
    # to join ("" starts a local Ray instance).
    engine: str = "local"
    ray_address: str = ""


@dataclass
class EvalSettings:
    judge_model: str = ""  # empty: same provider's default, preferably a different model
    passage_jaccard: float = 0.7
    number_tolerance: float = 0.02


@dataclass
class LibrarySettings:
    """The answer library: approved answers of earlier questionnaires, matched to each new question."""

    enabled: bool = True
    # Calibrated match strength (0-1, about the chance that two questions ask the same thing) from
    # which a library answer is shown in the `Library answer` column and given to the answer prompt.
    # 0.8 kept 19 of 24 rewordings and none of 24 near-duplicate or unrelated questions in calibration.
    threshold: float = 0.8
    # "off": library answers are suggested only. "approved" (`run --reuse approved`): a near-exact
    # match whose cited documents are unchanged is written as the answer without any model call.
    reuse: str = "off"
    # Match strength a question needs for reuse without a model call: near-exact wording. The strength
    # tops out at about 0.98 for the same words with trivial edits (the same text, normalised, is 1.0);
    # rewordings on the BHP benchmark scored 0.92-0.98. No contrast term (scope, year, reference vs
    # align ...) may differ, and every cited document must be unchanged.
    reuse_threshold: float = 0.975
    # `run` adds the rows a reviewer marked Approved (in the workbook passed in or in an existing
    # output of the same questionnaire) to the library.
    learn_from_runs: bool = True


@dataclass
class RunSettings:
    # The questionnaire's reporting year (`run --year`): an answer stating an earlier year (not a
    # baseline or a target) is tiered Check. 0: not given, nothing checked.
    reporting_year: int = 0
    # Consent before paying: `run` and `batch` with a model ask on a terminal (or need --yes) when a
    # questionnaire has more rows than this, or the estimated cost is above confirm_above_usd.
    confirm_rows: int = 500
    confirm_above_usd: float = 5.0
    # With a model, rows whose framework datapoints the offline rules leave unsure (none strong enough for
    # the Framework datapoints cell, or two nearly as strong) are mapped with the model's help: one call
    # a row, stage "datapoints" (frameworks/model_map.tag_unsure_rows). Off: the offline mapping only.
    map_with_model: bool = False


@dataclass
class VerifySettings:
    # Model verification: one extra call per answered row asks whether the cited passages support each
    # claim of the answer; unsupported claims make the row Needs work. Cached and costed ("verify").
    llm: bool = False
    judge_model: str = ""  # empty: the answering model
