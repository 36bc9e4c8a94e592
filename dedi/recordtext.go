package dedi

import (
	"fmt"

	"github.com/svc-directory/svc/proof"
)

// A verified file keeps its records as text: a large file's records parsed into Go values all
// at once would take several times the file's size. The file is parsed once with the records
// streamed: each is shape-checked, written as canonical text for the signature check (which
// then drops that text), and dropped, only its place in the text kept. The records are parsed
// again a batch at a time by whoever needs them: the check against the registry's schema, the
// indexing.

// span is the place of a record's text in the file's bytes.
type span struct{ start, end int }

// recordScan takes the records of a file as ParseJSONEach streams them: it keeps their
// places, and notes the first one that is not of the schema's shape and, while there is none,
// the first name seen twice.
type recordScan struct {
	spans []span
	names map[string]struct{}
	canon []byte // the records' canonical texts, comma-separated, while all are canonical
	bad   error  // the first record not of the shape of $defs/record
	dup   error  // the first record whose name came before
}

func (sc *recordScan) add(i int, v any, start, end int) {
	sc.spans = append(sc.spans, span{start, end})
	if sc.bad != nil {
		return
	}
	if sc.canon != nil {
		if i > 0 {
			sc.canon = append(sc.canon, ',')
		}
		var err error
		if sc.canon, err = proof.AppendCanonical(sc.canon, v); err != nil {
			sc.canon = nil // the signature check parses the records again and names the failure
		}
	}
	if !recordShapeOK(v) {
		if err := checkShape(recordSchemaID, v, fmt.Sprintf("/records/%d", i)); err != nil {
			sc.bad = err
			return
		}
	}
	if sc.dup != nil {
		return
	}
	name := v.(map[string]any)["record_name"].(string)
	if _, seen := sc.names[name]; seen {
		sc.dup = fail(Invalid, "record name %q appears more than once (at /records/%d)", shorten(name, 80), i)
		return
	}
	sc.names[name] = struct{}{}
}

// parseFileText is ParseFile keeping the records as text (the envelope as a tree).
func parseFileText(raw []byte, lim Limits) (*File, error) {
	if int64(len(raw)) > lim.file() {
		return nil, fail(Invalid, "the file is larger than %d bytes", lim.file())
	}
	sc := recordScan{names: map[string]struct{}{}, canon: make([]byte, 0, compactSize(raw))}
	v, deferred, err := proof.ParseJSONEach(raw, maxDepth, "records", sc.add)
	if err != nil {
		return nil, fail(Invalid, "%v", err)
	}
	if !deferred {
		return fileFromValue(v) // not an object with an array of records: as ParseFile
	}
	doc := v.(map[string]any) // records reads as []
	if err := checkShape(FileSchemaID, doc, ""); err != nil {
		return nil, fail(Invalid, "not a DeDi file: %v", err)
	}
	if sc.bad != nil {
		return nil, fail(Invalid, "not a DeDi file: %v", sc.bad)
	}
	if sc.dup != nil {
		return nil, sc.dup
	}
	f := envelopeOf(doc)
	f.raw, f.spans, f.canon = raw, sc.spans, sc.canon
	doc["records"] = recordsText{f}
	return f, f.checkEnvelope()
}

// recordsText writes the canonical text of a file's records: the text the parse kept, while
// the file has it, or else parsing the records again one at a time.
type recordsText struct{ f *File }

func (r recordsText) AppendCanonicalText(dst []byte) ([]byte, error) {
	if r.f.canon != nil {
		dst = append(dst, '[')
		dst = append(dst, r.f.canon...)
		return append(dst, ']'), nil
	}
	dst = append(dst, '[')
	for i := range r.f.spans {
		if i > 0 {
			dst = append(dst, ',')
		}
		v, err := r.f.recordValue(i)
		if err != nil {
			return dst, err
		}
		if dst, err = proof.AppendCanonical(dst, v); err != nil {
			return dst, fmt.Errorf("/records/%d: %v", i, err)
		}
	}
	return append(dst, ']'), nil
}

// recordValue parses the text of record i again.
func (f *File) recordValue(i int) (any, error) {
	s := f.spans[i]
	v, err := proof.ParseJSON(f.raw[s.start:s.end], maxDepth)
	if err != nil {
		return nil, fmt.Errorf("/records/%d: %v", i, err)
	}
	return v, nil
}

// RecordCount is the number of the file's records.
func (f *File) RecordCount() int {
	if f.spans != nil {
		return len(f.spans)
	}
	return len(f.Records)
}

// RecordRange returns the records lo to hi-1. A file that Verify or VerifyFile read keeps its
// records as text (its Records field is nil) and parses them again on each call; a file that
// ParseFile read or a caller built returns a part of Records.
func (f *File) RecordRange(lo, hi int) ([]Record, error) {
	if f.spans == nil {
		return f.Records[lo:hi], nil
	}
	out := make([]Record, 0, hi-lo)
	for i := lo; i < hi; i++ {
		r, err := f.RecordAt(i)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// RecordAt returns record i.
func (f *File) RecordAt(i int) (Record, error) {
	if f.spans == nil {
		return f.Records[i], nil
	}
	v, err := f.recordValue(i)
	if err != nil {
		return Record{}, err
	}
	return recordOf(v), nil
}

// recordOf reads a record whose shape was checked.
func recordOf(v any) Record {
	m := v.(map[string]any)
	rec := Record{Name: m["record_name"].(string), Details: m["details"].(map[string]any)}
	rec.Description, _ = m["description"].(string)
	rec.Meta, _ = m["meta"].(map[string]any)
	return rec
}

// compactSize is about the size of the canonical text of raw, a JSON text, to allocate the
// signing input at once: its length without the whitespace between tokens (an indented file
// is often half whitespace), and a little more for numbers and escapes written anew.
func compactSize(raw []byte) int {
	n, inString, escaped := 0, false, false
	for _, c := range raw {
		switch {
		case inString:
			n++
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			n++
			inString = c == '"'
		}
	}
	return n + n/64 + 64
}
