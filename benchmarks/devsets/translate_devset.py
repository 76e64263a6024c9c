"""Development sets in other languages: the English questions of a set, translated by hand, with the
same gold pages (the reports stay English).

    python benchmarks/devsets/translate_devset.py [--out benchmarks/devsets] [--bhp ../shared/datasets/bhp]

Reads `translations/<set>.<lang>.json` ({no, section, question, form_of_answer, explanation} per
question, written by people, not by a word list) and the English set's gold (bhp_expert: its
questions.json; bhp: ../shared/datasets/bhp/gold.json), and writes `<set>_<lang>/questionnaire.xlsx`
and `gold.json` (build_devset.py's layout, with the header, title, drop-down and instructions in that
language). Deterministic. A translation must cover every question of its set; the English sets are left
as they are. Measure with retrieval_dev.py `--pdfs ../shared/datasets/bhp --company <store>` as the
English sets are."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
BHP = HERE.parents[1].parent / "shared" / "datasets" / "bhp"
FINANCEBENCH = HERE.parents[1].parent / "shared" / "datasets" / "financebench-dev"
# The filings' questionnaires: their form of answer and a section heading, in each language they are in.
FILING_WORDS = {"de": ("Fragen zum Dokument", "Kurze Antwort mit Zahlen und Einheiten"),
                "fr": ("Questions sur le document", "Réponse courte avec chiffres et unités")}

from build_devset import gold_key, questionnaire_bytes  # noqa: E402

WORDS = {
    "de": {"title": "Nachhaltigkeitsfragebogen des Kunden — Klima",
           "header": ["Nr.", "Abschnitt", "Frage", "Antwortform", "Erläuterung", "Antwort", "Kommentare"],
           "dropdown": '"Ja,Nein,Teilweise,Nicht offengelegt"',
           "instructions": ["Hinweise", None, "Bitte beantworten Sie jede Frage in der Spalte Antwort und "
                            "nennen Sie die Fundstellen (Dokument und Seite) in der Spalte Kommentare."]},
    "fr": {"title": "Questionnaire client sur la durabilité — climat",
           "header": ["N°", "Rubrique", "Question", "Forme de réponse", "Explication", "Réponse", "Commentaires"],
           "dropdown": '"Oui,Non,Partiellement,Non publié"',
           "instructions": ["Instructions", None, "Veuillez répondre à chaque question dans la colonne Réponse "
                            "et citer les sources (document et page) dans la colonne Commentaires."]},
    "es": {"title": "Cuestionario de sostenibilidad del cliente — clima",
           "header": ["Nº", "Sección", "Pregunta", "Forma de respuesta", "Explicación", "Respuesta", "Comentarios"],
           "dropdown": '"Sí,No,Parcialmente,No divulgado"',
           "instructions": ["Instrucciones", None, "Responda cada pregunta en la columna Respuesta e indique "
                            "las fuentes (documento y página) en la columna Comentarios."]},
    "it": {"title": "Questionario di sostenibilità del cliente — clima",
           "header": ["N.", "Sezione", "Domanda", "Forma di risposta", "Spiegazione", "Risposta", "Commenti"],
           "dropdown": '"Sì,No,Parzialmente,Non divulgato"',
           "instructions": ["Istruzioni", None, "Rispondere a ogni domanda nella colonna Risposta e indicare "
                            "le fonti (documento e pagina) nella colonna Commenti."]},
    "pt": {"title": "Questionário de sustentabilidade do cliente — clima",
           "header": ["N.º", "Seção", "Pergunta", "Forma de resposta", "Explicação", "Resposta", "Comentários"],
           "dropdown": '"Sim,Não,Parcialmente,Não divulgado"',
           "instructions": ["Instruções", None, "Responda a cada pergunta na coluna Resposta e indique as "
                            "fontes (documento e página) na coluna Comentários."]},
    "nl": {"title": "Duurzaamheidsvragenlijst van de klant — klimaat",
           "header": ["Nr.", "Onderdeel", "Vraag", "Antwoordvorm", "Toelichting", "Antwoord", "Opmerkingen"],
           "dropdown": '"Ja,Nee,Gedeeltelijk,Niet openbaar gemaakt"',
           "instructions": ["Instructies", None, "Beantwoord elke vraag in de kolom Antwoord en vermeld de "
                            "bronnen (document en pagina) in de kolom Opmerkingen."]},
}


def english(name: str, bhp: Path) -> list[dict]:
    """The English set's questions with their gold (number, answer, type, pages, evidence)."""
    if name == "bhp_expert":
        return json.loads((HERE / "bhp_expert" / "questions.json").read_text(encoding="utf-8"))
    return json.loads((bhp / "gold.json").read_text(encoding="utf-8"))


def translated(source: list[dict], translation: list[dict], where: str) -> list[dict]:
    by_no = {t["no"]: t for t in translation}
    missing = [q["no"] for q in source if q["no"] not in by_no]
    if missing or len(by_no) != len(source):
        raise SystemExit(f"{where}: translations missing for {missing or 'some'} or extra ones")
    return [{**q, **{k: by_no[q["no"]][k] for k in ("section", "question", "form_of_answer", "explanation")}}
            for q in source]


def financebench(translation: list[dict], lang: str, source: Path, out: Path) -> Path:
    """`<out>/financebench_<lang>/<company>/`: each filing's questions in `lang` with the shared set's gold
    (its questionnaire and gold.json; the filings stay in `source`: retrieval_dev.py --pdfs). Written
    outside the project, since the gold quotes the filings."""
    by_key = {(t["company"], t["no"]): t["question"] for t in translation}
    section, form = FILING_WORDS[lang]
    used: set[tuple] = set()
    for folder in sorted(p for p in source.iterdir() if (p / "gold.json").is_file()):
        questions = []
        for q in json.loads((folder / "gold.json").read_text(encoding="utf-8")):
            key = (folder.name, q["no"])
            if key not in by_key:
                raise SystemExit(f"financebench.{lang}.json: no translation of {folder.name} question {q['no']}")
            used.add(key)
            questions.append({**q, "question": by_key[key], "section": section, "form_of_answer": form,
                              "explanation": ""})
        target = out / f"financebench_{lang}" / folder.name
        target.mkdir(parents=True, exist_ok=True)
        (target / "gold.json").write_text(gold_key(questions), encoding="utf-8")
        (target / "questionnaire.xlsx").write_bytes(questionnaire_bytes(questions, **WORDS[lang]))
    if set(by_key) - used:
        raise SystemExit(f"financebench.{lang}.json: translations of questions not in {source}: "
                         f"{sorted(set(by_key) - used)}")
    return out / f"financebench_{lang}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=HERE)
    ap.add_argument("--bhp", type=Path, default=BHP, help="the shared BHP set (its gold.json)")
    ap.add_argument("--english-headers", action="store_true",
                    help="keep the English header row (what versions before issue 33 can read: the baseline)")
    ap.add_argument("--financebench", type=Path, default=FINANCEBENCH, help="the shared filings set")
    ap.add_argument("--financebench-out", type=Path, default=None,
                    help="where to write the filings' translated sets (outside the project: their gold quotes "
                         "the filings); without it they are not written")
    args = ap.parse_args(argv)
    for path in sorted((HERE / "translations").glob("*.json")):
        name, lang = path.stem.rsplit(".", 1)
        if name == "financebench":
            if args.financebench_out is None or not args.financebench.is_dir():
                print(f"skipped {path.name}: no --financebench-out, or no data at {args.financebench}")
                continue
            folder = financebench(json.loads(path.read_text(encoding="utf-8")), lang, args.financebench,
                                  args.financebench_out)
            print(f"{folder}: {len(list(folder.iterdir()))} filings")
            continue
        if name == "bhp" and not args.bhp.is_dir():
            print(f"skipped {path.name}: no data at {args.bhp}")
            continue
        questions = translated(english(name, args.bhp), json.loads(path.read_text(encoding="utf-8")), path.name)
        folder = args.out / f"{name}_{lang}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "gold.json").write_text(gold_key(questions), encoding="utf-8")
        words = {k: v for k, v in WORDS[lang].items() if not (args.english_headers and k == "header")}
        (folder / "questionnaire.xlsx").write_bytes(questionnaire_bytes(questions, **words))
        print(f"{folder}: {len(questions)} questions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
