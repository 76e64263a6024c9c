"""HyDE: ask the model for a short hypothetical report passage answering the question, and embed
that passage instead of the question. A report-style passage lies closer to real report passages
in embedding space than a question does. The passage is only a query; it is never shown as evidence."""

from __future__ import annotations

from autofill.providers.base import Call
from autofill.language import prompt_languages
from autofill.providers.base import ChatMessage
from autofill.records import QuestionRow
from autofill.replies import PASSAGE_PREAMBLE, drop_label_line, drop_preamble, unfence
from autofill.settings import Settings
from autofill.templating import render

def parse_hyde(text: str) -> str:
    """The passage from a HyDE reply, without code fences, "Here is ..." preambles, a heading-like
    label line or surrounding quotes. Returns "" for an empty reply."""
    text = drop_label_line(drop_preamble(unfence(text), PASSAGE_PREAMBLE))
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'“”":
        text = text[1:-1].strip()
    if text.startswith("“") and text.endswith("”"):
        text = text[1:-1].strip()
    return text


def hyde_messages(settings: Settings, company: str, row: QuestionRow, report_language: str = "") -> list[ChatMessage]:
    """`report_language`: the store's (language.report_language); the passage is written in it, so that it
    resembles the real passages, whatever the questionnaire's language."""
    language, _ = prompt_languages(row.language, report_language)
    prompt = render(settings.templates_dir, "hyde", company=company, question=row.question,
                    form_of_answer=row.form_of_answer, explanation=row.explanation, hyde_hint=row.hyde_hint,
                    report_language=language)
    return [ChatMessage("system", render(settings.templates_dir, "hyde_system")), ChatMessage("user", prompt)]


def hypothetical_passage(settings: Settings, call: Call, company: str, row: QuestionRow,
                         report_language: str = "") -> str:
    """The HyDE passage for `row`; "" when the model returned nothing usable (retrieval then falls
    back to the question query)."""
    return parse_hyde(call(hyde_messages(settings, company, row, report_language), False).text)
