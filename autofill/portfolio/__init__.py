"""Portfolio runs (`autofill batch`): many companies in one command, priced before any model call,
capped by cost, resumable. manifest -> plan (estimate) -> runner -> workbook + index."""
