"""`autofill review`: a local web application over a filled workbook, where reviewers approve, edit,
send back and re-answer rows, with every decision written into the workbook by the same row-state
rules a re-run reads (modules: commands, app, security, session, sidecar, apply, reanswer)."""
