#!/usr/bin/env bash
# FreeDict's bilingual dictionaries into English (Debian packages dict-freedict-deu-eng and the like, in
# /usr/share/dictd), for searching questions in other languages in English reports' words too
# (autofill/answer/translation.py). Idempotent and quick when installed. Without root (and without
# password-less sudo) or apt-get it installs nothing and says how; autofill then searches such questions
# without them and says which package would help. It never fails the caller.
set -u

want=""
for lang in deu fra spa ita nld por dan swe fin tur pol; do
    if [ ! -f "/usr/share/dictd/freedict-$lang-eng.index" ]; then
        want="$want dict-freedict-$lang-eng"
    fi
done
if [ -z "$want" ]; then
    exit 0
fi
bash "$(dirname "$0")/apt_install.sh" install_dictionaries "${want# }" \
    "questions in other languages are searched without a dictionary"
