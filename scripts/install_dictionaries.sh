#!/usr/bin/env bash
# Translation into English for searching questions in other languages in English reports' words too
# (autofill/answer/translation.py): FreeDict's bilingual dictionaries (Debian packages dict-freedict-deu-eng
# and the like, in /usr/share/dictd) and Apertium's machine translation with its Spanish-English,
# French-Spanish, French-Catalan and Catalan-English pairs (apertium, apertium-eng-spa, apertium-fr-es,
# apertium-fra-cat, apertium-eng-cat, in /usr/share/apertium; French reaches English through Spanish and
# through Catalan). Idempotent and quick when installed. Without root (and without password-less
# sudo) or apt-get it installs nothing and says how; autofill then searches such questions without them
# and says which package would help. It never fails the caller.
set -u

want=""
for lang in deu fra spa ita nld por dan swe fin tur pol; do
    if [ ! -f "/usr/share/dictd/freedict-$lang-eng.index" ]; then
        want="$want dict-freedict-$lang-eng"
    fi
done
command -v apertium >/dev/null 2>&1 || want="$want apertium"
for mode in spa-eng:apertium-eng-spa fr-es:apertium-fr-es fra-cat:apertium-fra-cat cat-eng:apertium-eng-cat; do
    if [ ! -f "/usr/share/apertium/modes/${mode%%:*}.mode" ]; then
        want="$want ${mode#*:}"
    fi
done
if [ -z "$want" ]; then
    exit 0
fi
bash "$(dirname "$0")/apt_install.sh" install_dictionaries "${want# }" \
    "questions in other languages are searched without a dictionary or Apertium"
