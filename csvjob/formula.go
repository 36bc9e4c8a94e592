package csvjob

// Spreadsheet formula injection (OWASP, "CSV Injection"): a spreadsheet that opens a CSV file
// runs a cell that begins with =, +, -, @, a tab or a carriage return as a formula. Every cell
// the export writes that begins with one of them is written with a single quotation mark
// before it, which spreadsheets show as text and do not run. The upload reads the mark away,
// so the round trip stays lossless: a cell that begins with the mark followed by one of those
// characters, or by a second mark, loses its first mark; any other cell is read as it is. So
// that a value which itself begins with a mark and one of those characters comes back whole,
// the export marks it too ('=x is written ''=x).

// formulaStart reports whether c begins a formula in a spreadsheet.
func formulaStart(c byte) bool {
	switch c {
	case '=', '+', '-', '@', '\t', '\r':
		return true
	}
	return false
}

// neutralise is the cell as the export writes it.
func neutralise(cell string) string {
	if cell == "" {
		return cell
	}
	if formulaStart(cell[0]) || (cell[0] == '\'' && len(cell) > 1 && (formulaStart(cell[1]) || cell[1] == '\'')) {
		return "'" + cell
	}
	return cell
}

// unneutralise is the value of a cell an upload reads: neutralise's mark taken away.
func unneutralise(cell string) string {
	if len(cell) > 1 && cell[0] == '\'' && (formulaStart(cell[1]) || cell[1] == '\'') {
		return cell[1:]
	}
	return cell
}
