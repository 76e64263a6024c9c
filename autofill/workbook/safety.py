"""Guards at the workbook's edges: what kind of file this is, what openpyxl would lose, and cell text
that Excel can store safely.

Everything here is about not harming the customer's workbook: refuse files we cannot round-trip with a
clear message, warn before writing about Excel features openpyxl drops, and never let text from a model
or a PDF become a formula or an invalid cell (workbook/celltext.py, whose names are re-exported here)."""

from __future__ import annotations

import csv
import io
import re
import warnings
import zipfile
from pathlib import Path

from autofill.errors import InputError
from autofill.fileio import missing
# Cell text (issue 43) lives in workbook/celltext.py; its names are this module's too, as callers know them.
from autofill.workbook.celltext import (EXCEL_CELL_LIMIT, FORMULA_PREFIXES, ILLEGAL_CHARACTERS_RE,  # noqa: F401
                                        REPLACEMENT, clean_text, guard_workbook, replaced_reason, say_replaced,
                                        set_text, xml_safe)

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ZIP_MAGIC = b"PK"
XLSX_SUFFIXES = (".xlsx", ".xlsm", ".xltx", ".xltm")


# ------------------------------------------------------------------------------------ file kinds


def check_workbook_file(path: Path) -> str:
    """Say what kind of file `path` is: "xlsx" (any OOXML workbook) or "csv"; raise InputError with a
    one-line reason for anything autofill cannot fill safely."""
    path = Path(path)
    if not path.exists():
        raise missing("questionnaire", path)
    if path.is_dir():
        raise InputError(f"questionnaire is a folder, not a workbook: {path}")
    suffix = path.suffix.lower()
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if suffix in (".csv", ".tsv", ".txt") and not head.startswith((ZIP_MAGIC, OLE_MAGIC)):
        return "csv"
    if head.startswith(OLE_MAGIC):
        if is_encrypted_ooxml(path):
            raise InputError(f"{path.name} is a password-protected workbook; remove the password in Excel "
                             "(File > Info > Protect Workbook > Encrypt with Password, clear it), save, and try again")
        raise InputError(
            f"{path.name} is an old binary Excel (.xls) workbook; open it in Excel, save it as .xlsx "
            "(Excel Workbook) and try again")
    if suffix == ".xls":
        raise InputError(f"{path.name} is not a valid .xls workbook; save it as .xlsx in Excel and try again")
    if suffix in (".ods", ".xlsb", ".numbers"):
        raise InputError(f"{path.name}: {suffix} files are not supported; save it as .xlsx in Excel and try again")
    if not head.startswith(ZIP_MAGIC):
        raise InputError(f"{path.name} is not an Excel .xlsx workbook (corrupt file or another format)")
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            bad = zf.testzip()
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise InputError(f"{path.name} is corrupt and cannot be opened as a workbook ({exc})") from None
    if bad is not None:
        raise InputError(f"{path.name} is corrupt: damaged part {bad}; open and re-save it in Excel")
    if "xl/workbook.xml" not in names:
        if "xl/workbook.bin" in names:
            raise InputError(f"{path.name} is a binary .xlsb workbook; save it as .xlsx in Excel and try again")
        raise InputError(f"{path.name} is a zip file but not an Excel workbook")
    return "xlsx"


def ole_stream_names(path: Path) -> set[str]:
    """Names of the streams in an OLE compound file, read from its directory wherever the writer put
    it (Excel writes it after the data, megabytes into a large file). Empty when it cannot be read."""
    try:
        import olefile
    except ImportError:  # pragma: no cover - a declared dependency
        return set()
    try:
        with olefile.OleFileIO(str(path)) as ole:
            return {"/".join(entry) for entry in ole.listdir(streams=True, storages=False)}
    except Exception:  # noqa: BLE001 - a damaged container is simply not a readable one
        return set()


def is_encrypted_ooxml(path: Path) -> bool:
    """An Office workbook saved with a password: an OLE container holding `EncryptionInfo` and
    `EncryptedPackage` streams (MS-OFFCRYPTO), not a legacy binary .xls. Falls back to looking for the
    stream names anywhere in the file when the directory cannot be parsed."""
    names = ole_stream_names(path)
    if names:
        return "EncryptedPackage" in names or "EncryptionInfo" in names
    wanted = ("EncryptedPackage".encode("utf-16-le"), "EncryptionInfo".encode("utf-16-le"))
    with open(path, "rb") as fh:
        overlap = b""
        while block := fh.read(1 << 20):
            window = overlap + block
            if any(w in window for w in wanted):
                return True
            overlap = window[-64:]
    return False


def _detach_vba_archive(wb) -> None:
    """openpyxl keeps a .xlsm's parts in `wb.vba_archive`, a ZipFile in append mode over a BytesIO.
    When the garbage collector finalises the BytesIO first, ZipFile.__del__ tries to write its central
    directory into the closed buffer and prints an `Exception ignored in ZipFile.__del__` traceback.
    Closing it now (the buffer stays open: it was passed in) and reopening it read-only keeps every part
    for the save and leaves nothing to write at collection time."""
    archive = getattr(wb, "vba_archive", None)
    if archive is None or getattr(archive, "mode", "r") == "r":
        return
    buffer = archive.fp
    archive.close()
    buffer.seek(0)
    wb.vba_archive = zipfile.ZipFile(buffer, "r")


def load_workbook_safely(path: Path, data_only: bool = False, rich_text: bool = False):
    """Open an .xlsx/.xlsm (keeping macros and external links) or convert a CSV questionnaire into a
    one-sheet workbook in memory. Errors become one-line InputErrors. Writeback passes rich_text=True:
    without it openpyxl flattens partly-bold cell text to plain strings on save."""
    import openpyxl

    path = Path(path)
    kind = check_workbook_file(path)
    if kind == "csv":
        return csv_to_workbook(path)
    keep_vba = path.suffix.lower() in (".xlsm", ".xltm")
    try:
        # openpyxl warns on stderr about features it drops; check_lossy_features reports them properly.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            wb = openpyxl.load_workbook(path, data_only=data_only, keep_vba=keep_vba, keep_links=True,
                                        rich_text=rich_text)
        _detach_vba_archive(wb)
        return wb
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - openpyxl raises many types for damaged XML
        raise InputError(f"{path.name} is corrupt or not a workbook openpyxl can read: "
                         f"{type(exc).__name__}: {exc}") from None


def csv_encoding(raw: bytes) -> str:
    """The encoding of a CSV file's bytes, as Excel and other tools write them: a byte-order mark says
    UTF-8 or UTF-16 outright; UTF-16 without one shows as NUL bytes in every other position (questionnaire
    text is mostly ASCII); valid UTF-8 is UTF-8; anything else is Windows-1252 (Excel's "CSV" on
    Western Windows)."""
    if raw.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    sample = raw[:4096]
    if len(sample) >= 4:
        even, odd = sample[0::2], sample[1::2]
        if odd.count(0) > 0.3 * len(odd) and even.count(0) < 0.05 * len(even):
            return "utf-16-le"
        if even.count(0) > 0.3 * len(even) and odd.count(0) < 0.05 * len(odd):
            return "utf-16-be"
    try:
        raw.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        return "cp1252"


def decode_csv(raw: bytes, name: str = "CSV file") -> tuple[str, str]:
    """(text, encoding) of a CSV file's bytes; see `csv_encoding`. Undecodable bytes are an InputError
    that says which encoding was tried and what to do."""
    encoding = csv_encoding(raw)
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError:
        if encoding != "cp1252":
            raise InputError(f"{name}: looks like {encoding} but cannot be decoded as such; "
                             "save it from Excel as 'CSV UTF-8' or as .xlsx") from None
        # cp1252 leaves five bytes undefined; latin-1 maps every byte, so nothing is lost.
        text, encoding = raw.decode("latin-1"), "latin-1"
    if "\x00" in text:
        raise InputError(f"{name}: holds NUL bytes after decoding as {encoding}; it is probably not a text "
                         "CSV file (save it from Excel as 'CSV UTF-8' or as .xlsx)")
    return text.lstrip("\ufeff"), encoding


def csv_to_workbook(path: Path):
    """A CSV questionnaire as a one-sheet workbook named "Questionnaire" (all cells text)."""
    import openpyxl

    text, _ = decode_csv(Path(path).read_bytes(), Path(path).name)
    try:
        dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    try:
        for r, record in enumerate(csv.reader(io.StringIO(text), dialect), start=1):
            for c, value in enumerate(record, start=1):
                if value.strip():
                    set_text(ws.cell(row=r, column=c), value)
    except csv.Error as exc:
        raise InputError(f"{path.name}: not a readable CSV file ({exc})") from None
    return wb


# ------------------------------------------------------------------------------------ lossy features

_X14_DV_URI = "{CCE6A557-97BC-4b89-ADB6-D9C93CAAB3DF}"
# Sheet-level <ext> URIs Excel uses for features openpyxl does not read back.
_EXT_URIS = {
    "{CCE6A557-97BC-4b89-ADB6-D9C93CAAB3DF}": "drop-down lists stored in an extension list "
                                              "(cross-sheet data validations)",
    "{78C0D931-6437-407d-A8EE-F0AAD7539E65}": "extended conditional formats (data bars, icon sets)",
    "{05C60535-1F16-4fd2-B633-F4F36F0B64E0}": "sparklines",
    "{A8765BA9-456A-4dab-B4F3-ACF838C121DE}": "slicers",
    "{3A4CF648-6AED-40f4-86FF-DC5316D8AED3}": "table slicers",
    "{7E03D99C-DC04-49d9-9315-930204A7B6E9}": "timelines",
    "{05F6AF47-C8C3-4eb3-8DC0-6A0F5AC5D3E4}": "protected ranges",
}

_PART_FEATURES = [
    ("xl/slicers/", "slicers"),
    ("xl/slicerCaches/", "slicers"),
    ("xl/timelines/", "timelines"),
    ("xl/ctrlProps/", "form controls (check boxes, buttons)"),
    ("xl/activeX/", "ActiveX controls"),
    ("xl/threadedComments/", "threaded comments (replies are lost; the first note is kept)"),
    ("xl/embeddings/", "embedded objects"),
    ("xl/connections.xml", "data connections (Power Query)"),
    ("xl/model/", "a data model"),
    ("xl/webextensions/", "Office add-ins"),
    ("xl/queryTables/", "query tables (external data ranges)"),
    ("customXml/", "custom XML parts (e.g. SharePoint document properties)"),
]


def check_lossy_features(path: Path) -> list[str]:
    """Excel features in `path` that openpyxl would drop or change when the filled copy is written.

    Reads the zip's XML directly (openpyxl never sees these parts). Returns human-readable warnings,
    one per feature, naming the sheets where it matters; an empty list means a faithful round trip."""
    path = Path(path)
    if check_workbook_file(path) != "xlsx":
        return []
    found: dict[str, set[str]] = {}

    def note(feature: str, where: str = "") -> None:
        found.setdefault(feature, set()).update([where] if where else [])

    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        sheet_names = _sheet_part_names(zf)
        for prefix, feature in _PART_FEATURES:
            if any(n.startswith(prefix) for n in names):
                note(feature)
        if any(n.startswith("xl/media/") for n in names) and not _pillow_available():
            note("images (openpyxl needs Pillow to keep them)")
        if "xl/vbaProject.bin" in names and path.suffix.lower() not in (".xlsm", ".xltm"):
            note("macros (the file holds VBA but is not .xlsm; the copy is written without them)")
        for name in names:
            if name.startswith("xl/worksheets/") and name.endswith(".xml"):
                xml = zf.read(name).decode("utf-8", "replace")
                sheet = sheet_names.get(name, name)
                for uri, feature in _EXT_URIS.items():
                    if uri.lower() in xml.lower():
                        note(feature, sheet)
                if "<extLst" in xml and not any(u.lower() in xml.lower() for u in _EXT_URIS):
                    note("other Excel extension data", sheet)
                if "<controls" in xml:
                    note("form controls (check boxes, buttons)", sheet)
            elif name.startswith("xl/drawings/") and name.endswith(".xml") and "/_rels/" not in name:
                xml = zf.read(name).decode("utf-8", "replace")
                if "<xdr:sp>" in xml or "<xdr:sp " in xml or "<xdr:grpSp" in xml:
                    note("shapes and text boxes")
                if "<xdr:graphicFrame" in xml and "chart" in xml:
                    note("charts (kept, but their formatting may change)")
    warnings = []
    for feature in sorted(found):
        where = sorted(found[feature])
        suffix = f" in sheet {', '.join(repr(w) for w in where)}" if where else ""
        if feature == _EXT_URIS[_X14_DV_URI]:
            warnings.append(f"{path.name}: {feature}{suffix}: openpyxl cannot keep these; autofill re-creates "
                            "them as standard drop-downs (their input and error messages are lost)")
        else:
            warnings.append(f"{path.name}: {feature}{suffix} will not survive in the filled copy")
    return warnings


def _pillow_available() -> bool:
    try:
        import PIL  # noqa: F401
    except ImportError:
        return False
    return True


def _sheet_part_names(zf: zipfile.ZipFile) -> dict[str, str]:
    """Map worksheet part names (xl/worksheets/sheet1.xml) to sheet names, via workbook.xml rels."""
    try:
        wb_xml = zf.read("xl/workbook.xml").decode("utf-8", "replace")
        rels = zf.read("xl/_rels/workbook.xml.rels").decode("utf-8", "replace")
    except KeyError:
        return {}
    targets = {}
    for m in re.finditer(r"<Relationship\b[^>]*>", rels):
        tag = m.group(0)
        rid = re.search(r'\bId="([^"]+)"', tag)
        target = re.search(r'\bTarget="([^"]+)"', tag)
        if rid and target:
            t = target.group(1).lstrip("/")
            targets[rid.group(1)] = t if t.startswith("xl/") else "xl/" + t
    out = {}
    for m in re.finditer(r"<(?:\w+:)?sheet\b[^>]*>", wb_xml):
        tag = m.group(0)
        name = re.search(r'\bname="([^"]*)"', tag)
        rid = re.search(r'\br:id="([^"]+)"', tag) or re.search(r'\b\w+:id="([^"]+)"', tag)
        if name and rid and rid.group(1) in targets:
            out[targets[rid.group(1)]] = _xml_unescape(name.group(1))
    return out


def _xml_unescape(text: str) -> str:
    return (text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
            .replace("&apos;", "'").replace("&amp;", "&"))
